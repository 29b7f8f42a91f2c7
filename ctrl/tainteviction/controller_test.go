package tainteviction

import (
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus/testutil"

	"github.com/kcmlab/kcm/ctrl"
	"github.com/kcmlab/kcm/internal/testing/resttest"
	"github.com/kcmlab/kcm/kube/api"
	"github.com/kcmlab/kcm/kube/rest"
)

// The tests of this file follow kube-controller-manager's
// taint_eviction_test.go (v1.37.2): TestCreatePod, TestDeletePod,
// TestUpdatePod, TestCreateNode, TestDeleteNode, TestUpdateNode,
// TestUpdateNodeWithMultipleTaints, TestUpdateNodeWithMultiplePods,
// TestGetMinTolerationTime, TestEventualConsistency and
// TestPodDeletionEvent, on the fake clock: a scheduled eviction runs when
// the clock reaches its time, never by waiting.

// TestNoTolerationEvictsAtOnce: a pod that does not tolerate a node's new
// NoExecute taint gets the DisruptionTarget condition and is deleted at
// once, with the "Marking for deletion" event first; a pod on another
// node is left alone (upstream TestUpdateNode "Added taint, without
// tolerations", TestPodDeletionEvent).
func TestNoTolerationEvictsAtOnce(t *testing.T) {
	f := newFixture(t)
	f.setNode(newNode("n1"))
	f.setNode(newNode("n2"))
	f.setPod(newPod("p", "n1"))
	f.setPod(newPod("other", "n2"))
	f.run()
	f.expectActions()

	f.setNode(newNode("n1", unreachable))
	f.run()
	f.expectActions(evicted("p")...)
	f.expectEvents(marking("p"))
	if got := testutil.ToFloat64(f.c.metrics.deletions); got != 1 {
		t.Errorf("pod_deletions_total = %v, want 1", got)
	}
	if n := f.c.evictions.len(); n != 0 {
		t.Errorf("%d evictions left after the deletion, want 0", n)
	}
	if len(f.errs) > 0 {
		t.Errorf("sync errors: %v", f.errs)
	}
}

// TestDisruptionTargetBeforeDelete: the condition is patched into the
// pod's status — strategic merge, the pod's uid as precondition, status
// True, reason DeletionByTaintManager, upstream's message, the pod's
// generation as observedGeneration, dated now — before the delete
// (upstream addConditionAndDeletePod).
func TestDisruptionTargetBeforeDelete(t *testing.T) {
	f := newFixture(t)
	f.setPod(newPod("p", "n1"))
	f.setNode(newNode("n1", unreachable))
	f.run()
	acts := f.api.Take()
	if !resttest.Expect(t, acts, evicted("p")...) {
		return
	}
	patch := acts[1]
	if patch.PatchType != rest.StrategicMergePatch {
		t.Errorf("patch type %s, want strategic merge", patch.PatchType)
	}
	var body struct {
		Metadata struct{ UID string }
		Status   struct{ Conditions []api.PodCondition }
	}
	if err := json.Unmarshal(patch.Body, &body); err != nil {
		t.Fatal(err)
	}
	if body.Metadata.UID != "uid-p" {
		t.Errorf("patch uid %q, want the pod's (a precondition)", body.Metadata.UID)
	}
	want := api.PodCondition{Type: api.DisruptionTarget, Status: api.ConditionTrue, ObservedGeneration: 3,
		Reason: "DeletionByTaintManager", Message: "Taint manager: deleting due to NoExecute taint"}
	if len(body.Status.Conditions) != 1 {
		t.Fatalf("patch conditions %+v, want one", body.Status.Conditions)
	}
	got := body.Status.Conditions[0]
	if got.Type != want.Type || got.Status != want.Status || got.ObservedGeneration != want.ObservedGeneration ||
		got.Reason != want.Reason || got.Message != want.Message || !got.LastTransitionTime.Equal(t0) {
		t.Errorf("patched condition %+v, want %+v dated %v", got, want, t0)
	}
	p, ok := resttest.Get[*api.Pod](f.api, rest.Pods, "ns", "p")
	if !ok || p.DeletionTimestamp == nil {
		t.Fatalf("pod after the eviction: %+v, want it being deleted", p)
	}
	if c := p.Status.Conditions; len(c) != 1 || c[0].Type != api.DisruptionTarget || c[0].Reason != want.Reason {
		t.Errorf("stored conditions %+v, want the DisruptionTarget one", c)
	}
}

// TestConditionAlreadySetIsNotPatchedAgain: a pod that has the condition
// as the controller would write it is only deleted (UpdatePodCondition
// reports no change).
func TestConditionAlreadySetIsNotPatchedAgain(t *testing.T) {
	f := newFixture(t)
	p := newPod("p", "n1")
	p.Status.Conditions = []api.PodCondition{{Type: api.DisruptionTarget, Status: api.ConditionTrue,
		Reason: ConditionReason, Message: ConditionMessage, LastTransitionTime: api.Time{Time: t0.Add(-time.Hour)}}}
	f.setPod(p)
	f.setNode(newNode("n1", unreachable))
	f.run()
	f.expectActions("get pods ns/p", "delete pods ns/p")
}

// TestDisruptionTargetCondition: UpdatePodCondition's rules for an
// existing condition.
func TestDisruptionTargetCondition(t *testing.T) {
	now := api.Time{Time: t0}
	old := api.Time{Time: t0.Add(-time.Hour)}
	for _, tt := range []struct {
		name        string
		existing    []api.PodCondition
		wantChanged bool
		wantLTT     api.Time
	}{
		{"none: added, dated now", nil, true, now},
		{"other types only: added", []api.PodCondition{{Type: api.PodReady, Status: api.ConditionTrue}}, true, now},
		{"same: unchanged, keeps its date", []api.PodCondition{{Type: api.DisruptionTarget, Status: api.ConditionTrue,
			Reason: ConditionReason, Message: ConditionMessage, LastTransitionTime: old}}, false, old},
		{"True with another reason: changed, keeps its date", []api.PodCondition{{Type: api.DisruptionTarget,
			Status: api.ConditionTrue, Reason: "PreemptionByScheduler", LastTransitionTime: old}}, true, old},
		{"False: changed, dated now", []api.PodCondition{{Type: api.DisruptionTarget, Status: api.ConditionFalse,
			Reason: ConditionReason, Message: ConditionMessage, LastTransitionTime: old}}, true, now},
	} {
		p := newPod("p", "n1")
		p.Status.Conditions = tt.existing
		cond, changed := disruptionTarget(p, now)
		if changed != tt.wantChanged || !cond.LastTransitionTime.Equal(tt.wantLTT.Time) || cond.Reason != ConditionReason {
			t.Errorf("%s: changed %v, condition %+v; want changed %v, lastTransitionTime %v", tt.name, changed, cond, tt.wantChanged, tt.wantLTT)
		}
	}
}

// TestTolerationSecondsDelayEviction: a pod tolerating the taint for 30
// seconds is deleted when the clock reaches 30 seconds after the taint was
// seen, not a second earlier (upstream TestCreatePod "with tolerations,
// with taints, limited time").
func TestTolerationSecondsDelayEviction(t *testing.T) {
	f := newFixture(t)
	f.setPod(newPod("p", "n1", tolerate(unreachable, secs(30))))
	f.setNode(newNode("n1", unreachable))
	f.run()
	f.expectActions()
	f.expectEvents()
	f.step(29 * time.Second)
	f.expectActions()
	f.step(time.Second)
	f.expectActions(evicted("p")...)
	f.expectEvents(marking("p"))
	if got := testutil.ToFloat64(f.c.metrics.deletions); got != 1 {
		t.Errorf("pod_deletions_total = %v, want 1", got)
	}
}

// TestToleratedForeverIsNeverEvicted: a toleration without
// tolerationSeconds keeps the pod however long the taint stays (upstream
// TestCreatePod "with tolerations, with taints, unlimited time").
func TestToleratedForeverIsNeverEvicted(t *testing.T) {
	f := newFixture(t)
	f.setPod(newPod("p", "n1", tolerate(unreachable, nil)))
	f.setNode(newNode("n1", unreachable))
	f.run()
	f.step(24 * time.Hour)
	f.expectActions()
	f.expectEvents()
	if n := f.c.evictions.len(); n != 0 {
		t.Errorf("%d evictions scheduled, want none", n)
	}
}

// TestTaintRemovedCancels: when the NoExecute taint goes before the
// toleration runs out, the eviction is cancelled with the "Cancelling
// deletion" event and nothing happens when its time comes (upstream
// TestUpdateNode "Removed taint", handleNodeUpdate's short circuit).
func TestTaintRemovedCancels(t *testing.T) {
	f := newFixture(t)
	f.setPod(newPod("p", "n1", tolerate(unreachable, secs(60))))
	f.setNode(newNode("n1", unreachable))
	f.run()
	f.step(30 * time.Second)
	f.setNode(newNode("n1", noSchedule))
	f.run()
	f.expectEvents(cancelling("p"))
	f.step(time.Hour)
	f.expectActions()
	f.expectEvents()
}

// TestTolerationsChangedToForeverCancels: a pod update that makes the
// pod tolerate the taint forever cancels its eviction (upstream
// TestUpdatePod "scheduled pod tolerations updated").
func TestTolerationsChangedToForeverCancels(t *testing.T) {
	f := newFixture(t)
	p := newPod("p", "n1", tolerate(unreachable, secs(60)))
	f.setPod(p)
	f.setNode(newNode("n1", unreachable))
	f.run()
	f.setPod(withTolerations(p, tolerate(unreachable, nil)))
	f.run()
	f.expectEvents(cancelling("p"))
	f.step(time.Hour)
	f.expectActions()
}

// TestTolerationsNoLongerTolerateEvictNow: a pod update whose tolerations
// no longer tolerate the taint evicts at once, cancelling the scheduled
// eviction first (processPodOnNode: "Not all taints are tolerated after
// update").
func TestTolerationsNoLongerTolerateEvictNow(t *testing.T) {
	f := newFixture(t)
	p := newPod("p", "n1", tolerate(unreachable, secs(600)))
	f.setPod(p)
	f.setNode(newNode("n1", unreachable))
	f.run()
	f.setPod(withTolerations(p, tolerate(notReady, nil)))
	f.run()
	f.expectEvents(cancelling("p"), marking("p"))
	f.expectActions(evicted("p")...)
}

// TestScheduledEvictionKeepsItsTime: re-deciding a pod whose eviction is
// scheduled keeps that eviction and its time, even if its tolerations now
// allow less (processPodOnNode returns when the scheduled eviction was
// created before now).
func TestScheduledEvictionKeepsItsTime(t *testing.T) {
	f := newFixture(t)
	p := newPod("p", "n1", tolerate(unreachable, secs(60)))
	f.setPod(p)
	f.setNode(newNode("n1", unreachable))
	f.run()
	f.step(time.Second)
	f.setPod(withTolerations(p, tolerate(unreachable, secs(10))))
	f.run()
	f.step(10 * time.Second)
	f.expectActions()
	f.step(49 * time.Second)
	f.expectActions(evicted("p")...)
	f.expectEvents(marking("p"))
}

// TestPodBoundToTaintedNode: a pending pod bound later to a tainted node
// is decided by its update (nodeName changed): upstream TestUpdatePod
// "lately scheduled pod".
func TestPodBoundToTaintedNode(t *testing.T) {
	f := newFixture(t)
	p := newPod("p", "")
	f.setPod(p)
	f.setNode(newNode("n1", unreachable))
	f.run()
	f.expectActions()
	bound := *p
	bound.Spec.NodeName = "n1"
	f.setPod(&bound)
	f.run()
	f.expectActions(evicted("p")...)
}

// TestMultipleTaints: with two NoExecute taints the least tolerationSeconds
// of the tolerations used wins; a new taint the pod does not tolerate
// evicts it at once, cancelling the scheduled eviction (upstream
// TestUpdateNodeWithMultipleTaints).
func TestMultipleTaints(t *testing.T) {
	f := newFixture(t)
	f.setPod(newPod("a", "n1", tolerate(unreachable, secs(20)), tolerate(notReady, secs(10))))
	f.setPod(newPod("b", "n2", tolerate(unreachable, secs(20)), tolerate(notReady, secs(10))))
	f.setNode(newNode("n1", unreachable, notReady))
	f.setNode(newNode("n2", unreachable))
	f.run()
	f.step(9 * time.Second)
	f.expectActions()
	f.step(time.Second)
	f.expectActions(evicted("a")...)
	f.expectEvents(marking("a"))
	f.setNode(newNode("n2", unreachable, dedicated))
	f.run()
	f.expectEvents(cancelling("b"), marking("b"))
	f.expectActions(evicted("b")...)
}

// TestEveryPodOfTheNode: a node update decides each of its pods
// (upstream TestUpdateNodeWithMultiplePods).
func TestEveryPodOfTheNode(t *testing.T) {
	f := newFixture(t)
	f.setPod(newPod("now", "n1"))
	f.setPod(newPod("later", "n1", tolerate(unreachable, secs(5))))
	f.setPod(newPod("never", "n1", tolerate(unreachable, nil)))
	f.setNode(newNode("n1", unreachable))
	f.run()
	f.expectActions(evicted("now")...)
	f.step(5 * time.Second)
	f.expectActions(evicted("later")...)
	f.step(time.Hour)
	f.expectActions()
	f.expectEvents(marking("now"), marking("later"))
}

// TestPodDeletedCancels: a pod that goes before its eviction has it
// cancelled, with the event (upstream TestDeletePod).
func TestPodDeletedCancels(t *testing.T) {
	f := newFixture(t)
	p := newPod("p", "n1", tolerate(unreachable, secs(60)))
	f.setPod(p)
	f.setNode(newNode("n1", unreachable))
	f.run()
	f.removePod(p)
	f.run()
	f.expectEvents(cancelling("p"))
	f.step(time.Minute)
	f.expectActions()
}

// TestNodeDeletedForgetsItsTaints: once a node is gone, a pod update no
// longer evicts for its taints (upstream TestDeleteNode: handleNodeUpdate
// forgets the node; handlePodUpdate finds no taints).
func TestNodeDeletedForgetsItsTaints(t *testing.T) {
	f := newFixture(t)
	p := newPod("p", "n1", tolerate(unreachable, nil))
	f.setPod(p)
	f.setNode(newNode("n1", unreachable))
	f.run()
	f.removeNode("n1")
	f.run()
	f.setPod(withTolerations(p)) // would be evicted at once on a tainted node
	f.run()
	f.expectActions()
	f.expectEvents()
}

// TestImmediateEvictionCancelledWithoutEvent: an eviction due at once
// (tolerationSeconds 0) that is cancelled before it ran is not reported:
// upstream's CancelWork reports only a timer.
func TestImmediateEvictionCancelledWithoutEvent(t *testing.T) {
	f := newFixture(t)
	f.setPod(newPod("p", "n1", tolerate(unreachable, secs(0))))
	f.setNode(newNode("n1", unreachable))
	// Decide the node without running the eviction it schedules, then
	// remove the taint before the eviction key is synced.
	if _, err := f.c.Sync(t.Context(), nodeKey("n1")); err != nil {
		t.Fatal(err)
	}
	if _, ok := f.c.evictions.get("ns/p"); !ok {
		t.Fatal("no eviction scheduled for tolerationSeconds 0")
	}
	f.setNode(newNode("n1"))
	if _, err := f.c.Sync(t.Context(), nodeKey("n1")); err != nil {
		t.Fatal(err)
	}
	f.run() // the eviction key finds nothing to do
	f.expectEvents()
	f.expectActions()
}

// TestSyncUnknownKey: a key of no known kind is a terminal error.
func TestSyncUnknownKey(t *testing.T) {
	f := newFixture(t)
	if _, err := f.c.Sync(t.Context(), "ns/p"); !ctrl.IsTerminal(err) || !strings.Contains(err.Error(), `unknown key "ns/p"`) {
		t.Errorf("Sync(ns/p) = %v, want a terminal unknown-key error", err)
	}
}

// TestDescriptor: kube-controller-manager's name, on by default, no alias,
// no flags, no concurrency flag (upstream runs a fixed 8 workers).
func TestDescriptor(t *testing.T) {
	d := Descriptor()
	if d.Name != "taint-eviction-controller" || d.DisabledByDefault || len(d.Aliases) != 0 ||
		len(d.Flags) != 0 || d.Concurrency != nil || d.Constructor == nil {
		t.Errorf("Descriptor() = %+v", d)
	}
	if Workers != 8 || Retries != 5 || RetryInterval != 10*time.Millisecond || ClientName != "node-controller" {
		t.Errorf("Workers %d, Retries %d, RetryInterval %v, ClientName %q: not upstream's", Workers, Retries, RetryInterval, ClientName)
	}
}
