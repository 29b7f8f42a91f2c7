package nodelifecycle

import (
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/kcmlab/kcm/internal/testing/resttest"
	"github.com/kcmlab/kcm/kube/api"
	"github.com/kcmlab/kcm/kube/rest"
)

// TestSilentNodeAndRecovery walks one node through an outage as upstream's
// monitorNodeHealth, doNoExecuteTaintingPass and doNoScheduleTaintingPass
// handle it: registered (RegisteredNode); silent past
// --node-monitor-grace-period → conditions Unknown (NodeStatusUnknown),
// NodeNotReady event, its pods Ready=False (MarkPodsNotReady); then the
// unreachable NoExecute taint from its zone's queue and the unreachable
// NoSchedule taint; back → both taints gone.
func TestSilentNodeAndRecovery(t *testing.T) {
	f := newFixture(t, testConfig())
	for _, n := range []string{"n1", "n2", "n3"} {
		f.kubeletNode(n, "a")
	}
	f.pod("p1", "n1")
	f.pod("p2", "n2")
	f.monitor(0)
	if got := f.events.Lines(); len(got) != 3 || !strings.HasPrefix(got[0], "Normal RegisteredNode Node n1 event: Registered Node n1 in Controller") {
		t.Fatalf("events %q", got)
	}
	f.events.Reset()
	f.api.Take()

	// 40s after the last lease renewal n1 is still within its grace.
	f.clock.Step(20 * time.Second)
	f.renew("n2", "n3")
	f.monitor(20 * time.Second)
	if f.ready("n1") != api.ConditionTrue || len(f.api.Take()) != 0 {
		t.Fatal("n1 marked before its grace period ended (now.After(probe+grace))")
	}
	f.renew("n2", "n3")
	f.monitor(time.Second)
	if f.ready("n1") != api.ConditionUnknown {
		t.Fatalf("n1 Ready %q after the grace period, want Unknown", f.ready("n1"))
	}
	c := getCondition(&f.node("n1").Status, ConditionReady)
	if c.Reason != "NodeStatusUnknown" || c.Message != "Kubelet stopped posting node status." {
		t.Errorf("Ready condition %+v", c)
	}
	if f.podReady("p1") != api.ConditionFalse || f.podReady("p2") != api.ConditionTrue {
		t.Errorf("pod readiness p1=%s p2=%s, want False True", f.podReady("p1"), f.podReady("p2"))
	}
	wantEvents := []string{"Normal NodeNotReady Node n1 status is now: NodeNotReady", "Warning NodeNotReady Node is not ready"}
	if got := f.events.Lines(); !slices.Equal(got, wantEvents) {
		t.Errorf("events %q, want %q", got, wantEvents)
	}
	resttest.ExpectUnordered(t, f.api.Take(), "get leases kube-node-lease/n1", "update nodes/status n1", "update pods/status ns/p1")
	if f.zoneState("a") != StateNormal {
		t.Errorf("zone a %s, want Normal (1 of 3)", f.zoneState("a"))
	}

	// The NoExecute taint comes from the zone's queue, timeAdded now.
	f.taint(0)
	if got := f.taints("n1"); !slices.Equal(got, []string{"node.kubernetes.io/unreachable:NoExecute"}) {
		t.Fatalf("n1 taints %v", got)
	}
	if ta := f.node("n1").Spec.Taints[0].TimeAdded; ta == nil || !ta.Equal(f.clock.Now().Truncate(time.Second)) {
		t.Errorf("timeAdded %v", ta)
	}
	f.noSchedule("n1", "n2")
	if got := f.taints("n1"); !slices.Equal(got, []string{"node.kubernetes.io/unreachable:NoExecute", "node.kubernetes.io/unreachable:NoSchedule"}) {
		t.Fatalf("n1 taints after the NoSchedule pass %v", got)
	}
	if got := f.taints("n2"); len(got) != 0 {
		t.Errorf("healthy n2 tainted: %v", got)
	}
	// A second pass neither marks nor taints again.
	f.api.Take()
	f.renew("n2", "n3")
	f.monitor(5 * time.Second)
	f.taint(0)
	if got := resttest.Select(f.api.Take(), "update"); len(got) != 0 {
		t.Errorf("a second pass wrote %v", resttest.Lines(got))
	}

	// Recovery: the kubelet posts Ready again; the taints come off.
	f.renew("n1", "n2", "n3")
	f.postReady("n1", api.ConditionTrue)
	f.monitor(5 * time.Second)
	f.noSchedule("n1")
	if got := f.taints("n1"); len(got) != 0 {
		t.Errorf("n1 taints after recovery %v", got)
	}
}

// TestTaintSwap: a node tainted not-ready (Ready False) that goes silent
// has the not-ready NoExecute taint swapped for unreachable at once, not
// through the rate-limited queue (processTaintBaseEviction).
func TestTaintSwap(t *testing.T) {
	f := newFixture(t, testConfig())
	f.kubeletNode("n1", "a")
	f.kubeletNode("n2", "a")
	f.postReady("n1", api.ConditionFalse)
	f.monitor(0)
	f.taint(0)
	if got := f.tainted("n1", "n2"); !slices.Equal(got, []string{"n1=node.kubernetes.io/not-ready"}) {
		t.Fatalf("tainted %v, want n1 not-ready", got)
	}
	// Spend the zone's token so that only an immediate swap can taint.
	f.c.tainters["r:\x00:a"].SwapLimiter(0)
	f.silence("n2")
	if f.ready("n1") != api.ConditionUnknown {
		t.Fatalf("n1 Ready %s", f.ready("n1"))
	}
	if got := f.tainted("n1", "n2"); !slices.Equal(got, []string{"n1=node.kubernetes.io/unreachable"}) {
		t.Fatalf("tainted %v after going silent, want the swap to unreachable", got)
	}
}

// TestStartupGrace: a node that never posted Ready is given
// --node-startup-grace-period from its creation, then its conditions are
// added Unknown (NodeStatusNeverUpdated).
func TestStartupGrace(t *testing.T) {
	f := newFixture(t, testConfig())
	resttest.Add(f.api, rest.Nodes, testNode("new", "a"))
	f.monitor(0)
	f.monitor(60 * time.Second)
	if f.ready("new") != "" {
		t.Fatal("a node without status marked within its startup grace period")
	}
	f.monitor(time.Second)
	c := getCondition(&f.node("new").Status, ConditionReady)
	if c == nil || c.Status != api.ConditionUnknown || c.Reason != "NodeStatusNeverUpdated" || c.Message != "Kubelet never posted node status." {
		t.Fatalf("Ready %+v after the startup grace period", c)
	}
	if n := len(f.node("new").Status.Conditions); n != 4 {
		t.Errorf("%d conditions, want Ready and the three pressures", n)
	}
}

// TestLeaseCircuitBreaker: when the cached Lease says the node expired but
// the live Lease has moved on (the cache is behind), the node is not marked
// (NodeControllerLeaseCircuitBreaker, on by default in 1.37); with the
// gate off it is.
func TestLeaseCircuitBreaker(t *testing.T) {
	for _, off := range []bool{false, true} {
		cfg := testConfig()
		cfg.NoLeaseCircuitBreaker = off
		f := newFixture(t, cfg)
		f.kubeletNode("n1", "a")
		f.kubeletNode("n2", "a")
		f.monitor(0)
		f.clock.Step(41 * time.Second)
		f.renew("n2")
		f.refresh()
		f.renew("n1") // the server has it, the cache does not
		if err := f.c.monitorNodeHealth(t.Context()); err != nil {
			t.Fatal(err)
		}
		want := api.ConditionTrue
		if off {
			want = api.ConditionUnknown
		}
		if got := f.ready("n1"); got != want {
			t.Errorf("breaker off=%v: n1 Ready %s, want %s", off, got, want)
		}
	}
}

// TestMarkPodsNotReadyRetry: a failed pod status write marks the node for
// retry (nodesToRetry), and the next pass marks its pods although the node
// was already not Ready.
func TestMarkPodsNotReadyRetry(t *testing.T) {
	f := newFixture(t, testConfig())
	f.kubeletNode("n1", "a")
	f.kubeletNode("n2", "a")
	f.pod("p1", "n1")
	f.monitor(0)
	remove := f.api.Fail(resttest.On("update", "pods/status"), resttest.Failure(500, "InternalError", "boom"))
	f.silence("n2")
	if f.podReady("p1") != api.ConditionTrue || !f.c.needsRetry("n1") {
		t.Fatalf("p1 %s, retry %v", f.podReady("p1"), f.c.needsRetry("n1"))
	}
	remove()
	f.clock.Step(5 * time.Second)
	f.renew("n2")
	f.monitor(0)
	if f.podReady("p1") != api.ConditionFalse || f.c.needsRetry("n1") {
		t.Fatalf("retry pass: p1 %s, retry %v", f.podReady("p1"), f.c.needsRetry("n1"))
	}
}

// TestPodBoundToNotReadyNode: a pod bound to a node the controller saw not
// Ready is marked NotReady by the pod loop (processPod); on a Ready node,
// or a node not seen yet, it is left alone.
func TestPodBoundToNotReadyNode(t *testing.T) {
	f := newFixture(t, testConfig())
	f.kubeletNode("n1", "a")
	f.kubeletNode("n2", "a")
	f.monitor(0)
	f.silence("n2")
	f.pod("late", "n1")
	f.pod("fine", "n2")
	f.pod("elsewhere", "unknown")
	f.refresh()
	for _, key := range []string{"ns/late", "ns/fine", "ns/elsewhere", "ns/gone"} {
		if _, err := f.c.podSync(t.Context(), key); err != nil {
			t.Fatalf("podSync(%s): %v", key, err)
		}
	}
	if f.podReady("late") != api.ConditionFalse || f.podReady("fine") != api.ConditionTrue || f.podReady("elsewhere") != api.ConditionTrue {
		t.Errorf("late %s fine %s elsewhere %s", f.podReady("late"), f.podReady("fine"), f.podReady("elsewhere"))
	}
}

// TestNodeDeletedAndExcluded: a node gone from the cache is forgotten with
// a RemovingNode event, and its zone, once empty, leaves the zone states;
// a node labelled node.kubernetes.io/exclude-disruption does not count in
// its zone's state (isNodeExcludedFromDisruptionChecks).
func TestNodeDeletedAndExcluded(t *testing.T) {
	f := newFixture(t, testConfig())
	f.kubeletNode("n1", "a")
	f.kubeletNode("n2", "b")
	x := testNode("x", "c", readyCond(api.ConditionTrue, 0, 0))
	x.Labels[LabelNodeExcludeDisruption] = ""
	resttest.Add(f.api, rest.Nodes, x)
	f.monitor(0)
	// Zone c counts no node, so the pass drops its state (the next pass's
	// classifyNodes brings it back as Initial, as upstream's does).
	if f.zoneState("c") != "" || f.zoneState("a") != StateNormal {
		t.Errorf("zone c (only an excluded node) %q, zone a %q; want none, Normal", f.zoneState("c"), f.zoneState("a"))
	}
	f.events.Reset()
	f.api.Remove(rest.Nodes, "", "n2")
	f.renew("n1")
	f.monitor(time.Second)
	if got := f.events.Lines(); !slices.Equal(got, []string{"Normal RemovingNode Node n2 event: Removing Node n2 from Controller"}) {
		t.Errorf("events %q", got)
	}
	if _, ok := f.c.known["n2"]; ok {
		t.Error("n2 still known")
	}
	if s := f.zoneState("b"); s != "" {
		t.Errorf("empty zone b still has state %q", s)
	}
}

// TestLeaseChangedWithoutRenewal: a Lease rewritten without a new renewTime
// (another holder fencing it) is not taken into the node's record
// (upstream takes a Lease only when its renewTime moved), so once the node
// is past its grace period the live Lease's resourceVersion never matches
// the record's and the circuit breaker holds the node back on every pass,
// as kube-controller-manager 1.37.2 does (seen on kwok nodes fenced by
// testenv's PauseHeartbeat while it watched, before that fence renewed the
// Lease).
func TestLeaseChangedWithoutRenewal(t *testing.T) {
	f := newFixture(t, testConfig())
	f.kubeletNode("n1", "a")
	f.kubeletNode("n2", "a")
	f.monitor(0)
	l, _ := resttest.Get[*api.Lease](f.api, rest.Leases, NamespaceNodeLease, "n1")
	holder := "fence"
	l.Spec.HolderIdentity = &holder
	l.ResourceVersion = ""
	resttest.Add(f.api, rest.Leases, l) // same renewTime, new resourceVersion
	for range 3 {
		f.clock.Step(41 * time.Second)
		f.renew("n2")
		f.monitor(0)
		if f.ready("n1") != api.ConditionTrue {
			t.Fatalf("n1 Ready %s: a fenced Lease passed the circuit breaker", f.ready("n1"))
		}
	}
}
