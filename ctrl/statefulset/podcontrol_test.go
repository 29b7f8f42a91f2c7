package statefulset

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/kcmlab/kcm/ctrl"
	"github.com/kcmlab/kcm/internal/testing/resttest"
	"github.com/kcmlab/kcm/kube/api"
	"github.com/kcmlab/kcm/kube/rest"
)

// The tests of statefulPodControl follow Kubernetes'
// stateful_pod_control_test.go, on the recording fake apiserver: the
// requests made, in order, and the events recorded on the set with
// kube-controller-manager's reasons and texts.

// pcCopy is the caller's copy of a cached pod, which the control may
// change (the lister's object must not be).
func pcCopy(t *testing.T, pod *api.Pod) *api.Pod {
	t.Helper()
	cp, err := api.DeepCopy(pod)
	if err != nil {
		t.Fatal(err)
	}
	return cp
}

// withPolicy sets the set's persistentVolumeClaimRetentionPolicy.
func withPolicy(scaled, deleted api.PersistentVolumeClaimRetentionPolicyType) func(m map[string]any) {
	return func(m map[string]any) {
		obj(m, "spec")["persistentVolumeClaimRetentionPolicy"] = map[string]any{"whenScaled": string(scaled), "whenDeleted": string(deleted)}
	}
}

// newPodToCreate is set's pod for ordinal as the controller makes it.
func newPodToCreate(t *testing.T, set *api.StatefulSet, ordinal int) *api.Pod {
	t.Helper()
	pod, err := newVersionedStatefulSetPod(set, set, "web-rev1", "web-rev1", ordinal)
	if err != nil {
		t.Fatal(err)
	}
	return pod
}

// CreateStatefulPod creates the claims first, then the pod, each from the
// JSON of its template (unmodelled fields reach the apiserver).
func TestCreateStatefulPod(t *testing.T) {
	set := pcSet(t, nil)
	f := newPCFixture(t, nil, nil)
	pod := newPodToCreate(t, set, 0)
	if err := f.pc.CreateStatefulPod(context.Background(), set, pod); err != nil {
		t.Fatal(err)
	}
	actions := f.api.Actions()
	claim := f.body(actions, "create persistentvolumeclaims", 0)
	if spec := obj(claim, "spec"); spec["volumeAttributesClassName"] != "gold" || spec["dataSourceRef"] == nil {
		t.Errorf("claim lost unmodelled fields: %v", spec)
	}
	created := f.body(actions, "create pods", 0)
	spec := obj(created, "spec")
	if spec["affinity"] == nil || spec["topologySpreadConstraints"] == nil || spec["hostname"] != "web-0" {
		t.Errorf("pod lost template fields: %v", spec)
	}
	if sc, ok := spec["securityContext"].(map[string]any); !ok || len(sc) != 0 {
		t.Errorf("pod securityContext %v, want {}", spec["securityContext"])
	}
	f.expect([]string{"create persistentvolumeclaims ns/data-web-0", "create pods ns/web-0"},
		"Normal SuccessfulCreate Create Claim data-web-0 Pod web-0 in StatefulSet web success",
		"Normal SuccessfulCreate Create Pod web-0 in StatefulSet web successful")
	got, ok := resttest.Get[*api.Pod](f.api, rest.Pods, "ns", "web-0")
	if !ok || !identityMatches(set, got) || !storageMatches(set, got) {
		t.Errorf("stored pod %v", got)
	}
}

// The events name the StatefulSet as their object.
func TestPodEventsAreOnTheSet(t *testing.T) {
	set := pcSet(t, nil)
	f := newPCFixture(t, nil, nil)
	if err := f.pc.CreateStatefulPod(context.Background(), set, newPodToCreate(t, set, 0)); err != nil {
		t.Fatal(err)
	}
	for _, ev := range f.events.List() {
		if ev.Ref.Kind != "StatefulSet" || ev.Ref.APIVersion != "apps/v1" || ev.Ref.Name != "web" || ev.Ref.Namespace != "ns" || ev.Ref.UID != "uid-web" {
			t.Errorf("event %q about %+v", ev, ev.Ref)
		}
	}
}

// A claim the lister already has is not created again.
func TestCreateStatefulPodClaimExists(t *testing.T) {
	set := pcSet(t, nil)
	live := pcLivePod(t, set, 0, nil)
	f := newPCFixture(t, nil, []*api.PersistentVolumeClaim{pcLiveClaim(t, set, live, nil)})
	if err := f.pc.CreateStatefulPod(context.Background(), set, newPodToCreate(t, set, 0)); err != nil {
		t.Fatal(err)
	}
	f.expect([]string{"create pods ns/web-0"}, "Normal SuccessfulCreate Create Pod web-0 in StatefulSet web successful")
}

// Upstream returns the AlreadyExists of a pod as it is, with no event.
func TestCreateStatefulPodAlreadyExists(t *testing.T) {
	set := pcSet(t, nil)
	live := pcLivePod(t, set, 0, nil)
	f := newPCFixture(t, []*api.Pod{live}, []*api.PersistentVolumeClaim{pcLiveClaim(t, set, live, nil)})
	err := f.pc.CreateStatefulPod(context.Background(), set, newPodToCreate(t, set, 0))
	if !rest.IsAlreadyExists(err) || err.Error() != `pods "web-0" already exists` {
		t.Fatalf("err %v, want the AlreadyExists of pods \"web-0\"", err)
	}
	f.expect([]string{"create pods ns/web-0"})
}

func TestCreateStatefulPodClaimFailures(t *testing.T) {
	cases := []struct {
		name    string
		setup   func(f *pcFixture, set *api.StatefulSet)
		claims  func(t *testing.T, set *api.StatefulSet) []*api.PersistentVolumeClaim
		actions []string
		err     string
		events  []string
	}{
		{
			name: "claim creation fails: no pod",
			setup: func(f *pcFixture, _ *api.StatefulSet) {
				f.api.Fail(resttest.On("create", "persistentvolumeclaims"), resttest.Failure(500, "InternalError", "etcd down"))
			},
			actions: []string{"create persistentvolumeclaims ns/data-web-0"},
			err:     "failed to create PVC data-web-0: etcd down",
			events: []string{
				"Warning FailedCreate Create Claim data-web-0 for Pod web-0 in StatefulSet web failed error: etcd down",
				"Warning FailedCreate Create Pod web-0 in StatefulSet web failed error: failed to create PVC data-web-0: etcd down",
			},
		},
		{
			name: "claim exists but the lister is behind: no claim event",
			setup: func(f *pcFixture, set *api.StatefulSet) {
				resttest.Add(f.api, rest.PersistentVolumeClaims, pcLiveClaim(f.t, set, pcLivePod(f.t, set, 0, nil), nil))
			},
			actions: []string{"create persistentvolumeclaims ns/data-web-0"},
			err:     `failed to create PVC data-web-0: persistentvolumeclaims "data-web-0" already exists`,
			events: []string{
				`Warning FailedCreate Create Pod web-0 in StatefulSet web failed error: failed to create PVC data-web-0: persistentvolumeclaims "data-web-0" already exists`,
			},
		},
		{
			name: "claim being deleted",
			claims: func(t *testing.T, set *api.StatefulSet) []*api.PersistentVolumeClaim {
				return []*api.PersistentVolumeClaim{pcLiveClaim(t, set, pcLivePod(t, set, 0, nil), func(m map[string]any) {
					obj(m, "metadata")["deletionTimestamp"] = "2026-01-01T00:00:00Z"
				})}
			},
			err:    "pvc data-web-0 is being deleted",
			events: []string{"Warning FailedCreate Create Pod web-0 in StatefulSet web failed error: pvc data-web-0 is being deleted"},
		},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			set := pcSet(t, nil)
			var claims []*api.PersistentVolumeClaim
			if tc.claims != nil {
				claims = tc.claims(t, set)
			}
			f := newPCFixture(t, nil, claims)
			if tc.setup != nil {
				tc.setup(f, set)
			}
			err := f.pc.CreateStatefulPod(context.Background(), set, newPodToCreate(t, set, 0))
			if err == nil || err.Error() != tc.err {
				t.Errorf("err %v, want %s", err, tc.err)
			}
			f.expect(tc.actions, tc.events...)
		})
	}
}

// Several failing claims make one error listing each, as apimachinery's
// Aggregate prints it.
func TestCreateStatefulPodAggregatesClaimErrors(t *testing.T) {
	set := pcSet(t, func(m map[string]any) {
		spec := obj(m, "spec")
		tmpl := spec["volumeClaimTemplates"].([]any)
		second := map[string]any{"metadata": map[string]any{"name": "logs"}, "spec": map[string]any{"accessModes": []any{"ReadWriteOnce"}}}
		spec["volumeClaimTemplates"] = append(tmpl, second)
	})
	f := newPCFixture(t, nil, nil)
	f.api.Fail(resttest.On("create", "persistentvolumeclaims").Named("ns/data-web-0"), resttest.Failure(500, "InternalError", "one"))
	f.api.Fail(resttest.On("create", "persistentvolumeclaims").Named("ns/logs-web-0"), resttest.Failure(403, "Forbidden", "two"))
	err := f.pc.CreateStatefulPod(context.Background(), set, newPodToCreate(t, set, 0))
	want := "[failed to create PVC data-web-0: one, failed to create PVC logs-web-0: two]"
	if err == nil || err.Error() != want || !rest.IsForbidden(err) {
		t.Fatalf("err %v, want %s (and Forbidden within)", err, want)
	}
	f.expect([]string{"create persistentvolumeclaims ns/data-web-0", "create persistentvolumeclaims ns/logs-web-0"},
		"Warning FailedCreate Create Claim data-web-0 for Pod web-0 in StatefulSet web failed error: one",
		"Warning FailedCreate Create Claim logs-web-0 for Pod web-0 in StatefulSet web failed error: two",
		"Warning FailedCreate Create Pod web-0 in StatefulSet web failed error: "+want)
}

func TestCreateStatefulPodFails(t *testing.T) {
	set := pcSet(t, nil)
	f := newPCFixture(t, nil, nil)
	f.api.Fail(resttest.On("create", "pods"), resttest.Failure(500, "InternalError", "no"))
	if err := f.pc.CreateStatefulPod(context.Background(), set, newPodToCreate(t, set, 0)); err == nil || err.Error() != "no" {
		t.Fatalf("err %v", err)
	}
	f.expect([]string{"create persistentvolumeclaims ns/data-web-0", "create pods ns/web-0"},
		"Normal SuccessfulCreate Create Claim data-web-0 Pod web-0 in StatefulSet web success",
		"Warning FailedCreate Create Pod web-0 in StatefulSet web failed error: no")
}

// After creating the pod, the claims the lister has get the owners the
// retention policy wants (here whenDeleted Delete: the set).
func TestCreateStatefulPodSetsClaimOwners(t *testing.T) {
	set := pcSet(t, withPolicy(retain, del))
	live := pcLivePod(t, set, 0, nil)
	f := newPCFixture(t, nil, []*api.PersistentVolumeClaim{pcLiveClaim(t, set, live, nil)})
	if err := f.pc.CreateStatefulPod(context.Background(), set, newPodToCreate(t, set, 0)); err != nil {
		t.Fatal(err)
	}
	actions := f.api.Actions()
	f.expect([]string{"create pods ns/web-0", "update persistentvolumeclaims ns/data-web-0"},
		"Normal SuccessfulCreate Create Pod web-0 in StatefulSet web successful")
	updated := f.body(actions, "update persistentvolumeclaims", 0)
	meta := obj(updated, "metadata")
	if refs, _ := meta["ownerReferences"].([]any); len(refs) != 1 || refs[0].(map[string]any)["kind"] != "StatefulSet" || refs[0].(map[string]any)["controller"] != true {
		t.Errorf("claim owners %v", meta["ownerReferences"])
	}
	if obj(updated, "spec")["volumeAttributesClassName"] != "gold" {
		t.Error("claim update lost an unmodelled field")
	}
}

func TestUpdateStatefulPodNoOp(t *testing.T) {
	set := pcSet(t, nil)
	live := pcLivePod(t, set, 0, nil)
	f := newPCFixture(t, []*api.Pod{live}, []*api.PersistentVolumeClaim{pcLiveClaim(t, set, live, nil)})
	if err := f.pc.UpdateStatefulPod(context.Background(), set, pcCopy(t, live)); err != nil {
		t.Fatal(err)
	}
	f.expect(nil)
}

// A pod that lost its identity label is written back with it; the write
// keeps the pod's unmodelled fields (rest.Update's merge).
func TestUpdateStatefulPodIdentity(t *testing.T) {
	set := pcSet(t, nil)
	live := pcLivePod(t, set, 0, func(m map[string]any) { delete(obj(m, "metadata", "labels"), StatefulSetPodNameLabel) })
	f := newPCFixture(t, []*api.Pod{live}, []*api.PersistentVolumeClaim{pcLiveClaim(t, set, live, nil)})
	if err := f.pc.UpdateStatefulPod(context.Background(), set, pcCopy(t, live)); err != nil {
		t.Fatal(err)
	}
	actions := f.api.Actions()
	f.expect([]string{"update pods ns/web-0"}, "Normal SuccessfulUpdate Update Pod web-0 in StatefulSet web successful")
	body := f.body(actions, "update pods", 0)
	if obj(body, "metadata", "labels")[StatefulSetPodNameLabel] != "web-0" || obj(body, "spec")["affinity"] == nil {
		t.Errorf("update body %v", body)
	}
	if len(f.waits) != 0 {
		t.Errorf("waited %v", f.waits)
	}
}

func TestUpdateStatefulPodFails(t *testing.T) {
	set := pcSet(t, nil)
	live := pcLivePod(t, set, 0, func(m map[string]any) { delete(obj(m, "metadata", "labels"), StatefulSetPodNameLabel) })
	f := newPCFixture(t, []*api.Pod{live}, []*api.PersistentVolumeClaim{pcLiveClaim(t, set, live, nil)})
	f.api.Fail(resttest.On("update", "pods"), resttest.Failure(500, "InternalError", "boom"))
	if err := f.pc.UpdateStatefulPod(context.Background(), set, pcCopy(t, live)); err == nil || err.Error() != "boom" {
		t.Fatalf("err %v", err)
	}
	f.expect([]string{"update pods ns/web-0"}, "Warning FailedUpdate Update Pod web-0 in StatefulSet web failed error: boom")
	if len(f.waits) != 0 {
		t.Errorf("a non-conflict error was retried: %v", f.waits)
	}
}

// A Conflict re-reads the pod from the lister and tries again after
// client-go's DefaultBackoff pause; one event for the whole update.
func TestUpdateStatefulPodConflictThenSuccess(t *testing.T) {
	set := pcSet(t, nil)
	live := pcLivePod(t, set, 0, func(m map[string]any) { delete(obj(m, "metadata", "labels"), StatefulSetPodNameLabel) })
	f := newPCFixture(t, []*api.Pod{live}, []*api.PersistentVolumeClaim{pcLiveClaim(t, set, live, nil)})
	f.api.Fail(resttest.On("update", "pods").Nth(1), resttest.Failure(409, "Conflict", "the object has been modified"))
	if err := f.pc.UpdateStatefulPod(context.Background(), set, pcCopy(t, live)); err != nil {
		t.Fatal(err)
	}
	f.expect([]string{"update pods ns/web-0", "update pods ns/web-0"},
		"Normal SuccessfulUpdate Update Pod web-0 in StatefulSet web successful")
	if len(f.waits) != 1 || f.waits[0] < 10*time.Millisecond || f.waits[0] > 11*time.Millisecond {
		t.Errorf("waits %v, want one of 10ms (+10%% jitter)", f.waits)
	}
}

// Four Conflicts give up: the last Conflict is returned, after pauses of
// 10, 50 and 250 ms (each up to 10 % more).
func TestUpdateStatefulPodConflictGivesUp(t *testing.T) {
	set := pcSet(t, nil)
	live := pcLivePod(t, set, 0, func(m map[string]any) { delete(obj(m, "metadata", "labels"), StatefulSetPodNameLabel) })
	f := newPCFixture(t, []*api.Pod{live}, []*api.PersistentVolumeClaim{pcLiveClaim(t, set, live, nil)})
	f.api.Fail(resttest.On("update", "pods"), resttest.Failure(409, "Conflict", "modified"))
	err := f.pc.UpdateStatefulPod(context.Background(), set, pcCopy(t, live))
	if !rest.IsConflict(err) {
		t.Fatalf("err %v, want a Conflict", err)
	}
	f.expect([]string{"update pods", "update pods", "update pods", "update pods"},
		"Warning FailedUpdate Update Pod web-0 in StatefulSet web failed error: modified")
	base := []time.Duration{10 * time.Millisecond, 50 * time.Millisecond, 250 * time.Millisecond}
	if len(f.waits) != len(base) {
		t.Fatalf("waits %v", f.waits)
	}
	for i, w := range f.waits {
		if w < base[i] || w > base[i]+base[i]/10 {
			t.Errorf("wait %d: %v, want %v + up to 10%%", i, w, base[i])
		}
	}
}

// A pod without its claim's volume gets it, and the missing claim is
// created first.
func TestUpdateStatefulPodStorage(t *testing.T) {
	set := pcSet(t, nil)
	live := pcLivePod(t, set, 0, func(m map[string]any) {
		spec := obj(m, "spec")
		spec["volumes"] = []any{map[string]any{"name": "scratch", "emptyDir": map[string]any{}}}
	})
	f := newPCFixture(t, []*api.Pod{live}, nil)
	if err := f.pc.UpdateStatefulPod(context.Background(), set, pcCopy(t, live)); err != nil {
		t.Fatal(err)
	}
	actions := f.api.Actions()
	f.expect([]string{"create persistentvolumeclaims ns/data-web-0", "update pods ns/web-0"},
		"Normal SuccessfulCreate Create Claim data-web-0 Pod web-0 in StatefulSet web success",
		"Normal SuccessfulUpdate Update Pod web-0 in StatefulSet web successful")
	vols, _ := obj(f.body(actions, "update pods", 0), "spec")["volumes"].([]any)
	if len(vols) != 2 || vols[0].(map[string]any)["name"] != "data" {
		t.Errorf("volumes %v", vols)
	}
}

func TestUpdateStatefulPodStorageFailure(t *testing.T) {
	set := pcSet(t, nil)
	live := pcLivePod(t, set, 0, func(m map[string]any) { delete(obj(m, "spec"), "volumes") })
	f := newPCFixture(t, []*api.Pod{live}, nil)
	f.api.Fail(resttest.On("create", "persistentvolumeclaims"), resttest.Failure(500, "InternalError", "full"))
	if err := f.pc.UpdateStatefulPod(context.Background(), set, pcCopy(t, live)); err == nil {
		t.Fatal("no error")
	}
	f.expect([]string{"create persistentvolumeclaims ns/data-web-0"},
		"Warning FailedCreate Create Claim data-web-0 for Pod web-0 in StatefulSet web failed error: full",
		"Warning FailedUpdate Update Pod web-0 in StatefulSet web failed error: failed to create PVC data-web-0: full")
}

// A claim whose owners do not follow the policy is fixed, and the pod is
// written too (upstream marks the pod dirty).
func TestUpdateStatefulPodRetention(t *testing.T) {
	set := pcSet(t, withPolicy(del, del))
	live := pcLivePod(t, set, 0, nil)
	f := newPCFixture(t, []*api.Pod{live}, []*api.PersistentVolumeClaim{pcLiveClaim(t, set, live, nil)})
	if err := f.pc.UpdateStatefulPod(context.Background(), set, pcCopy(t, live)); err != nil {
		t.Fatal(err)
	}
	f.expect([]string{"update persistentvolumeclaims ns/data-web-0", "update pods ns/web-0"},
		"Normal SuccessfulUpdate Update Pod web-0 in StatefulSet web successful")
	claim, _ := resttest.Get[*api.PersistentVolumeClaim](f.api, rest.PersistentVolumeClaims, "ns", "data-web-0")
	if got := refStrings(claim.OwnerReferences); len(got) != 1 || got[0] != "StatefulSet/web/uid-web+c" {
		t.Errorf("claim owners %v", got)
	}
}

func TestDeleteStatefulPod(t *testing.T) {
	set := pcSet(t, nil)
	live := pcLivePod(t, set, 0, nil)
	cases := []struct {
		name   string
		held   []*api.Pod
		fail   *rest.Status
		err    bool
		events []string
	}{
		{"deleted", []*api.Pod{live}, nil, false, []string{"Normal SuccessfulDelete Delete Pod web-0 in StatefulSet web successful"}},
		{"already gone is success", nil, nil, false, []string{"Normal SuccessfulDelete Delete Pod web-0 in StatefulSet web successful"}},
		{"failure", []*api.Pod{live}, &rest.Status{Code: 500, Reason: "InternalError", Message: "nope"}, true,
			[]string{"Warning FailedDelete Delete Pod web-0 in StatefulSet web failed error: nope"}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			f := newPCFixture(t, tc.held, nil)
			if tc.fail != nil {
				f.api.Fail(resttest.On("delete", "pods"), resttest.Failure(tc.fail.Code, tc.fail.Reason, tc.fail.Message))
			}
			err := f.pc.DeleteStatefulPod(context.Background(), set, live)
			if (err != nil) != tc.err {
				t.Errorf("err %v", err)
			}
			f.expect([]string{"delete pods ns/web-0"}, tc.events...)
		})
	}
}

func TestClaimsMatchRetentionPolicy(t *testing.T) {
	cases := []struct {
		name   string
		policy func(m map[string]any)
		claim  bool
		refs   []string
		want   bool
	}{
		{"Retain/Retain, no refs", nil, true, nil, true},
		{"Delete/Delete, no refs", withPolicy(del, del), true, nil, false},
		{"Delete/Delete, set ref", withPolicy(del, del), true, []string{"StatefulSet/web/uid-web+c"}, true},
		{"claim missing", withPolicy(del, del), false, nil, true},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			set := pcSet(t, tc.policy)
			live := pcLivePod(t, set, 0, nil)
			var claims []*api.PersistentVolumeClaim
			if tc.claim {
				c := pcLiveClaim(t, set, live, nil)
				c.OwnerReferences = refs(tc.refs...)
				claims = append(claims, c)
			}
			f := newPCFixture(t, nil, claims)
			got, err := f.pc.ClaimsMatchRetentionPolicy(context.Background(), set, live)
			if err != nil || got != tc.want {
				t.Errorf("%v, %v; want %v", got, err, tc.want)
			}
			f.expect(nil)
		})
	}
}

// UpdatePodClaimForRetentionPolicy writes the owners (the pod's, for a
// pod scaled away under whenScaled Delete) and warns about a claim
// another controller owns, scrubbing our references from it.
func TestUpdatePodClaimForRetentionPolicy(t *testing.T) {
	t.Run("scaled down", func(t *testing.T) {
		set := pcSet(t, withPolicy(del, retain)) // 3 replicas: web-5 is scaled away
		live := pcLivePod(t, set, 5, nil)
		f := newPCFixture(t, nil, []*api.PersistentVolumeClaim{pcLiveClaim(t, set, live, nil)})
		if err := f.pc.UpdatePodClaimForRetentionPolicy(context.Background(), set, live); err != nil {
			t.Fatal(err)
		}
		f.expect([]string{"update persistentvolumeclaims ns/data-web-5"})
		claim, _ := resttest.Get[*api.PersistentVolumeClaim](f.api, rest.PersistentVolumeClaims, "ns", "data-web-5")
		if got := refStrings(claim.OwnerReferences); len(got) != 1 || got[0] != "Pod/web-5/uid-web-5+c" {
			t.Errorf("owners %v", got)
		}
	})
	t.Run("conflicting controller", func(t *testing.T) {
		set := pcSet(t, withPolicy(retain, del))
		live := pcLivePod(t, set, 0, nil)
		c := pcLiveClaim(t, set, live, nil)
		c.OwnerReferences = refs("StatefulSet/web/uid-web+c", "ReplicaSet/rs/uid-rs+c")
		f := newPCFixture(t, nil, []*api.PersistentVolumeClaim{c})
		if err := f.pc.UpdatePodClaimForRetentionPolicy(context.Background(), set, live); err != nil {
			t.Fatal(err)
		}
		f.expect([]string{"update persistentvolumeclaims ns/data-web-0"},
			"Warning ConflictingController PersistentVolumeClaim data-web-0 has a conflicting OwnerReference that acts as a manging controller, the retention policy is ignored for this claim")
		claim, _ := resttest.Get[*api.PersistentVolumeClaim](f.api, rest.PersistentVolumeClaims, "ns", "data-web-0")
		if got := refStrings(claim.OwnerReferences); len(got) != 1 || got[0] != "ReplicaSet/rs/uid-rs+c" {
			t.Errorf("owners %v", got)
		}
	})
	t.Run("update fails", func(t *testing.T) {
		set := pcSet(t, withPolicy(retain, del))
		live := pcLivePod(t, set, 0, nil)
		f := newPCFixture(t, nil, []*api.PersistentVolumeClaim{pcLiveClaim(t, set, live, nil)})
		f.api.Fail(resttest.On("update", "persistentvolumeclaims"), resttest.Failure(500, "InternalError", "x"))
		err := f.pc.UpdatePodClaimForRetentionPolicy(context.Background(), set, live)
		if err == nil || err.Error() != "could not update claim data-web-0 for delete policy ownerRefs: x" {
			t.Errorf("err %v", err)
		}
	})
}

// Kubernetes' PodClaimIsStale: under whenScaled Delete, a claim owned by
// an earlier pod of the name (another UID) blocks the pod's creation.
func TestPodClaimIsStale(t *testing.T) {
	cases := []struct {
		name   string
		policy func(m map[string]any)
		claim  bool
		refs   []string
		want   bool
	}{
		{"Retain never stale", withPolicy(retain, del), true, []string{"Pod/web-0/uid-old+c"}, false},
		{"missing claim", withPolicy(del, retain), false, nil, false},
		{"no refs", withPolicy(del, retain), true, nil, false},
		{"our pod", withPolicy(del, retain), true, []string{"Pod/web-0/uid-web-0+c"}, false},
		{"earlier pod", withPolicy(del, retain), true, []string{"Pod/web-0/uid-old+c"}, true},
		{"earlier pod, both Delete", withPolicy(del, del), true, []string{"StatefulSet/web/uid-web+c", "Pod/web-0/uid-old+c"}, true},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			set := pcSet(t, tc.policy)
			live := pcLivePod(t, set, 0, nil)
			var claims []*api.PersistentVolumeClaim
			if tc.claim {
				c := pcLiveClaim(t, set, live, nil)
				c.OwnerReferences = refs(tc.refs...)
				claims = append(claims, c)
			}
			f := newPCFixture(t, nil, claims)
			got, err := f.pc.PodClaimIsStale(set, live)
			if err != nil || got != tc.want {
				t.Errorf("%v, %v; want %v", got, err, tc.want)
			}
			f.expect(nil)
		})
	}
}

// CreateMissingPersistentVolumeClaims (a Pending pod's claim was
// deleted): the claim is created again; no pod event on success.
func TestCreateMissingPersistentVolumeClaims(t *testing.T) {
	set := pcSet(t, nil)
	live := pcLivePod(t, set, 0, func(m map[string]any) { obj(m, "status")["phase"] = "Pending" })
	f := newPCFixture(t, []*api.Pod{live}, nil)
	if err := f.pc.CreateMissingPersistentVolumeClaims(context.Background(), set, live); err != nil {
		t.Fatal(err)
	}
	f.expect([]string{"create persistentvolumeclaims ns/data-web-0"},
		"Normal SuccessfulCreate Create Claim data-web-0 Pod web-0 in StatefulSet web success")
	f2 := newPCFixture(t, []*api.Pod{live}, nil)
	f2.api.Fail(resttest.On("create", "persistentvolumeclaims"), resttest.Failure(500, "InternalError", "x"))
	if err := f2.pc.CreateMissingPersistentVolumeClaims(context.Background(), set, live); err == nil {
		t.Fatal("no error")
	}
	// Upstream records the claim's failure but no pod event here.
	f2.expect([]string{"create persistentvolumeclaims ns/data-web-0"},
		"Warning FailedCreate Create Claim data-web-0 for Pod web-0 in StatefulSet web failed error: x")
}

// pcRVSource is a cache at a fixed resourceVersion.
type pcRVSource string

func (s pcRVSource) LastStoreSyncResourceVersion() string { return string(s) }

// Each pod and claim written is recorded for the stale-cache check
// (kube-controller-manager's consistencyStore.WroteAt): a cache older
// than the write holds the set's next sync back.
func TestPodControlRecordsWrites(t *testing.T) {
	set := pcSet(t, nil)
	f := newPCFixture(t, nil, nil)
	cs := ctrl.NewConsistency(map[ctrl.GroupResource]ctrl.ResourceVersionSource{
		ctrl.GroupResourceOf(rest.Pods):                   pcRVSource("1"),
		ctrl.GroupResourceOf(rest.PersistentVolumeClaims): pcRVSource("1"),
	}, nil)
	f.pc.withConsistency(cs)
	if err := f.pc.CreateStatefulPod(context.Background(), set, newPodToCreate(t, set, 0)); err != nil {
		t.Fatal(err)
	}
	err := cs.EnsureReady(set.Key())
	var stale *ctrl.StaleError
	if !errors.As(err, &stale) {
		t.Fatalf("EnsureReady after the writes: %v, want a StaleError", err)
	}
	if !strings.Contains(err.Error(), "pods") && !strings.Contains(err.Error(), "persistentvolumeclaims") {
		t.Errorf("stale error %v names neither resource", err)
	}
}
