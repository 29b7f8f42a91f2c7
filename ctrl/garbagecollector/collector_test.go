package garbagecollector

import (
	"context"
	"errors"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/kcmlab/kcm/clock"
	"github.com/kcmlab/kcm/ctrl"
	"github.com/kcmlab/kcm/internal/testing/resttest"
	"github.com/kcmlab/kcm/kube/api"
	"github.com/kcmlab/kcm/kube/rest"
)

// Live objects of the sync tests: Deployment web (d1) → ReplicaSet web-1
// (rs1) → pod web-1-a (p1), in namespace ns.
func liveDeployment() *api.RawObject { return obj("apps/v1", "Deployment", "ns", "web", "d1", "10") }
func liveReplicaSet() *api.RawObject {
	return obj("apps/v1", "ReplicaSet", "ns", "web-1", "rs1", "20", refD1)
}
func livePod() *api.RawObject { return obj("v1", "Pod", "ns", "web-1-a", "p1", "30", refRS1) }

func withFinalizers(o *api.RawObject, fs ...string) *api.RawObject {
	c := *o
	c.ObjectMeta = *deleting(&o.ObjectMeta, fs...)
	return &c
}

func syncItem(t *testing.T, f *fixture, uid string) (ctrl.Result, error) {
	t.Helper()
	return f.c.AttemptToDelete(context.Background(), uid)
}

// TestAttemptToDelete runs the attempt-to-delete sync on one node with
// the graph and the live objects given, and checks the API calls it
// makes, in the style of the sample controller. Each case cites the rule
// of Kubernetes' attemptToDeleteItem it checks.
func TestAttemptToDelete(t *testing.T) {
	dangling := ownerRef("v1", "ConfigMap", "gone", "c9", false)
	for _, tc := range []struct {
		name     string
		live     []*api.RawObject // on the server
		observed []*api.RawObject // in the graph
		uid      string
		want     []string
		result   ctrl.Result
		err      error
	}{
		{
			name:     "owner exists with the referenced uid → not collected",
			live:     []*api.RawObject{liveDeployment(), liveReplicaSet()},
			observed: []*api.RawObject{liveDeployment(), liveReplicaSet()},
			uid:      "rs1",
			want:     []string{"get replicasets ns/web-1", "get deployments ns/web"},
		},
		{
			name:     "owner absent (404) → collected in the background, on condition of uid and resourceVersion",
			live:     []*api.RawObject{liveReplicaSet()},
			observed: []*api.RawObject{liveReplicaSet()},
			uid:      "rs1",
			want: []string{"get replicasets ns/web-1", "get deployments ns/web",
				"delete replicasets ns/web-1 uid=rs1 rv=20 policy=Background"},
		},
		{
			name:     "owner name now has another uid (recreated) → the live GET says absent, collected",
			live:     []*api.RawObject{obj("apps/v1", "Deployment", "ns", "web", "d2", "11"), liveReplicaSet()},
			observed: []*api.RawObject{liveReplicaSet()},
			uid:      "rs1",
			want: []string{"get replicasets ns/web-1", "get deployments ns/web",
				"delete replicasets ns/web-1 uid=rs1 rv=20 policy=Background"},
		},
		{
			name:     "the graph still has the owner, the apiserver does not → the live GET decides: collected",
			live:     []*api.RawObject{liveReplicaSet()},
			observed: []*api.RawObject{liveDeployment(), liveReplicaSet()},
			uid:      "rs1",
			want: []string{"get replicasets ns/web-1", "get deployments ns/web",
				"delete replicasets ns/web-1 uid=rs1 rv=20 policy=Background"},
		},
		{
			name:     "the item itself is gone → virtual delete, no write",
			live:     []*api.RawObject{liveDeployment()},
			observed: []*api.RawObject{liveReplicaSet()},
			uid:      "rs1",
			want:     []string{"get replicasets ns/web-1"},
		},
		{
			name:     "the item's name has another uid (recreated) → virtual delete, the new object untouched",
			live:     []*api.RawObject{obj("apps/v1", "ReplicaSet", "ns", "web-1", "rs2", "21", refD1)},
			observed: []*api.RawObject{liveReplicaSet()},
			uid:      "rs1",
			want:     []string{"get replicasets ns/web-1"},
		},
		{
			name:     "no ownerReferences on the live object → nothing to do",
			live:     []*api.RawObject{obj("apps/v1", "ReplicaSet", "ns", "web-1", "rs1", "22")},
			observed: []*api.RawObject{liveReplicaSet()},
			uid:      "rs1",
			want:     []string{"get replicasets ns/web-1"},
		},
		{
			name: "one solid owner and one dangling → the dangling reference is patched away (strategic merge), no delete",
			live: []*api.RawObject{liveDeployment(),
				obj("apps/v1", "ReplicaSet", "ns", "web-1", "rs1", "20", refD1, dangling)},
			observed: []*api.RawObject{obj("apps/v1", "ReplicaSet", "ns", "web-1", "rs1", "20", refD1, dangling)},
			uid:      "rs1",
			want: []string{"get replicasets ns/web-1", "get deployments ns/web", "get configmaps ns/gone",
				`patch replicasets ns/web-1 strategic {"metadata":{"uid":"rs1","ownerReferences":[{"$patch":"delete","uid":"c9"}]}}`},
		},
		{
			name: "a custom resource refuses the strategic merge patch → JSON merge patch of the remaining references",
			live: []*api.RawObject{obj("v1", "ConfigMap", "ns", "cm", "c1", "5"),
				obj("example.com/v1", "Widget", "ns", "w", "w1", "8", ownerRef("v1", "ConfigMap", "cm", "c1", false), dangling)},
			observed: []*api.RawObject{obj("example.com/v1", "Widget", "ns", "w", "w1", "8", ownerRef("v1", "ConfigMap", "cm", "c1", false), dangling)},
			uid:      "w1",
			want: []string{"get widgets ns/w", "get configmaps ns/cm", "get configmaps ns/gone",
				`patch widgets ns/w strategic {"metadata":{"uid":"w1","ownerReferences":[{"$patch":"delete","uid":"c9"}]}}`,
				"get widgets ns/w",
				`patch widgets ns/w merge {"metadata":{"resourceVersion":"8","ownerReferences":[{"apiVersion":"v1","kind":"ConfigMap","name":"cm","uid":"c1","controller":true}]}}`},
		},
		{
			name:     "owner waits for its dependents and the item has dependents → foreground deletion propagates down",
			live:     []*api.RawObject{withFinalizers(liveDeployment(), FinalizerDeleteDependents), liveReplicaSet(), livePod()},
			observed: []*api.RawObject{liveReplicaSet(), livePod()},
			uid:      "rs1",
			want: []string{"get replicasets ns/web-1", "get deployments ns/web",
				"delete replicasets ns/web-1 uid=rs1 rv=20 policy=Foreground"},
		},
		{
			name:     "owner waits for its dependents and the item has none → deleted in the background",
			live:     []*api.RawObject{withFinalizers(liveReplicaSet(), FinalizerDeleteDependents), livePod()},
			observed: []*api.RawObject{livePod()},
			uid:      "p1",
			want:     []string{"get pods ns/web-1-a", "get replicasets ns/web-1", "delete pods ns/web-1-a uid=p1 rv=30 policy=Background"},
		},
		{
			name:     "a solid owner and a waiting one → the waiting reference is dropped, the item stays",
			live:     []*api.RawObject{liveDeployment(), withFinalizers(obj("v1", "ConfigMap", "ns", "cm", "c1", "5"), FinalizerDeleteDependents), obj("apps/v1", "ReplicaSet", "ns", "web-1", "rs1", "20", refD1, ownerRef("v1", "ConfigMap", "cm", "c1", true))},
			observed: []*api.RawObject{obj("apps/v1", "ReplicaSet", "ns", "web-1", "rs1", "20", refD1, ownerRef("v1", "ConfigMap", "cm", "c1", true))},
			uid:      "rs1",
			want: []string{"get replicasets ns/web-1", "get deployments ns/web", "get configmaps ns/cm",
				`patch replicasets ns/web-1 strategic {"metadata":{"uid":"rs1","ownerReferences":[{"$patch":"delete","uid":"c1"}]}}`},
		},
		{
			name:     "no owner left and the item has the orphan finalizer → its choice is honoured: Orphan",
			live:     []*api.RawObject{withFinalizers(liveReplicaSet(), FinalizerOrphanDependents)},
			observed: []*api.RawObject{obj("apps/v1", "ReplicaSet", "ns", "web-1", "rs1", "20", refD1)},
			uid:      "rs1",
			want:     []string{"get replicasets ns/web-1", "get deployments ns/web", "delete replicasets ns/web-1 uid=rs1 rv=20 policy=Orphan"},
		},
		{
			name:     "an item being deleted (not in the foreground) is left to finish",
			live:     []*api.RawObject{withFinalizers(liveReplicaSet(), "example.com/hold")},
			observed: []*api.RawObject{withFinalizers(liveReplicaSet(), "example.com/hold")},
			uid:      "rs1",
		},
		{
			name:     "a cluster-scoped item naming a namespaced owner kind → never collected, no owner lookup, no retry",
			live:     []*api.RawObject{obj("rbac.authorization.k8s.io/v1", "ClusterRole", "", "cr", "cr1", "3", ownerRef("v1", "ConfigMap", "cm", "c1", false))},
			observed: []*api.RawObject{obj("rbac.authorization.k8s.io/v1", "ClusterRole", "", "cr", "cr1", "3", ownerRef("v1", "ConfigMap", "cm", "c1", false))},
			uid:      "cr1",
			want:     []string{"get clusterroles cr"},
		},
		{
			name:     "a virtual owner of a namespaced kind named by a cluster-scoped item → never looked up, never found absent",
			live:     []*api.RawObject{obj("rbac.authorization.k8s.io/v1", "ClusterRole", "", "cr", "cr1", "3", ownerRef("v1", "ConfigMap", "cm", "c1", false))},
			observed: []*api.RawObject{obj("rbac.authorization.k8s.io/v1", "ClusterRole", "", "cr", "cr1", "3", ownerRef("v1", "ConfigMap", "cm", "c1", false))},
			uid:      "c1",
		},
		{
			name:     "kcm: a virtual node whose object has an owner it cannot have → still requeued until an informer shows it",
			live:     []*api.RawObject{obj("v1", "Node", "", "n", "n1", "2", ownerRef("v1", "ConfigMap", "cm", "c1", false))},
			observed: []*api.RawObject{obj("v1", "Pod", "ns", "p", "p1", "30", ownerRef("v1", "Node", "n", "n1", false))},
			uid:      "n1",
			want:     []string{"get nodes n"},
			result:   ctrl.Result{Requeue: true},
		},
		{
			name:     "a namespaced item with a cluster-scoped owner → the owner is looked up without namespace",
			live:     []*api.RawObject{obj("v1", "Node", "", "n", "n1", "2"), obj("v1", "Pod", "ns", "p", "p1", "30", ownerRef("v1", "Node", "n", "n1", false))},
			observed: []*api.RawObject{obj("v1", "Pod", "ns", "p", "p1", "30", ownerRef("v1", "Node", "n", "n1", false))},
			uid:      "p1",
			want:     []string{"get pods ns/p", "get nodes n"},
		},
		{
			name:     "an owner of an unknown kind → error (retried until discovery knows it), nothing deleted",
			live:     []*api.RawObject{obj("v1", "Pod", "ns", "p", "p1", "30", ownerRef("new.example.com/v1", "Gadget", "g", "g1", false))},
			observed: []*api.RawObject{obj("v1", "Pod", "ns", "p", "p1", "30", ownerRef("new.example.com/v1", "Gadget", "g", "g1", false))},
			uid:      "p1",
			want:     []string{"get pods ns/p"},
			err:      ErrUnknownKind,
		},
		{
			name:     "a virtual node whose object exists → requeued with backoff until an informer shows it",
			live:     []*api.RawObject{liveDeployment()},
			observed: []*api.RawObject{liveReplicaSet()},
			uid:      "d1",
			want:     []string{"get deployments ns/web"},
			result:   ctrl.Result{Requeue: true},
		},
		{
			name: "a node not in the graph → nothing",
			uid:  "zz",
		},
	} {
		t.Run(tc.name, func(t *testing.T) {
			f := newFixture(t, tc.live...)
			f.observe(tc.observed...)
			res, err := syncItem(t, f, tc.uid)
			if !errors.Is(err, tc.err) || (tc.err == nil && err != nil) {
				t.Fatalf("error %v, want %v", err, tc.err)
			}
			if res != tc.result {
				t.Errorf("result %+v, want %+v", res, tc.result)
			}
			wantActions(t, f, tc.want...)
		})
	}
}

// TestVirtualDeleteLeavesGraph: a virtual owner the apiserver does not
// have leaves the graph, is remembered as absent, and wakes its
// dependent, whose check then asks the apiserver about the owner no more.
func TestVirtualDeleteLeavesGraph(t *testing.T) {
	f := newFixture(t, liveReplicaSet())
	f.observe(liveReplicaSet())
	if _, err := syncItem(t, f, "d1"); err != nil {
		t.Fatal(err)
	}
	if _, ok := f.c.graph.Item("d1"); ok {
		t.Fatal("the virtual owner is still in the graph")
	}
	if !slices.Equal(f.deleteQ.added, []string{"rs1"}) {
		t.Fatalf("queued %v, want the dependent rs1", f.deleteQ.added)
	}
	if _, err := syncItem(t, f, "rs1"); err != nil {
		t.Fatal(err)
	}
	wantActions(t, f, "get deployments ns/web", "get replicasets ns/web-1",
		"delete replicasets ns/web-1 uid=rs1 rv=20 policy=Background")
}

// TestAbsentOwnerCache: once the apiserver said an owner is absent, the
// second dependent's check does not ask again (Kubernetes'
// absentOwnerCache).
func TestAbsentOwnerCache(t *testing.T) {
	pod2 := obj("v1", "Pod", "ns", "web-1-b", "p2", "31", refRS1)
	f := newFixture(t, livePod(), pod2)
	f.observe(livePod(), pod2)
	for _, uid := range []string{"p1", "p2"} {
		if _, err := syncItem(t, f, uid); err != nil {
			t.Fatal(err)
		}
	}
	wantActions(t, f, "get pods ns/web-1-a", "get replicasets ns/web-1", "delete pods ns/web-1-a uid=p1 rv=30 policy=Background",
		"get pods ns/web-1-b", "delete pods ns/web-1-b uid=p2 rv=31 policy=Background")
}

// TestDeleteConflictRetriedWhenOwnersUnchanged: a delete refused because
// the object changed since it was read is retried at the new
// resourceVersion if its ownerReferences did not change — and not if
// they did: an object adopted meanwhile must not be deleted (Kubernetes'
// deleteObject).
func TestDeleteConflictRetriedWhenOwnersUnchanged(t *testing.T) {
	for _, tc := range []struct {
		name    string
		changed *api.RawObject
		want    []string
		err     bool
	}{
		{"status changed", obj("apps/v1", "ReplicaSet", "ns", "web-1", "rs1", "21", refD1), []string{
			"get replicasets ns/web-1", "get deployments ns/web", "delete replicasets ns/web-1 uid=rs1 rv=20 policy=Background",
			"get replicasets ns/web-1", "delete replicasets ns/web-1 uid=rs1 rv=21 policy=Background"}, false},
		{"adopted meanwhile", obj("apps/v1", "ReplicaSet", "ns", "web-1", "rs1", "21", refD1, ownerRef("v1", "ConfigMap", "cm", "c1", false)), []string{
			"get replicasets ns/web-1", "get deployments ns/web", "delete replicasets ns/web-1 uid=rs1 rv=20 policy=Background",
			"get replicasets ns/web-1"}, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			f := newFixture(t, liveReplicaSet())
			f.observe(liveReplicaSet())
			f.api.Intercept(resttest.On("delete", ""), func(a resttest.Action) error {
				if p := a.DeleteOptions().Preconditions; p != nil && p.ResourceVersion != nil && *p.ResourceVersion == "20" {
					put(f.api, tc.changed)
				}
				return nil
			})
			_, err := syncItem(t, f, "rs1")
			if (err != nil) != tc.err {
				t.Fatalf("error %v, want one: %v", err, tc.err)
			}
			wantActions(t, f, tc.want...)
		})
	}
}

// TestForegroundOwner: an owner deleting its dependents in the
// foreground sends its blocking dependents to be deleted (not the ones
// that do not block it, nor those already waiting for their own), and
// once none blocks it, its foregroundDeletion finalizer goes — by a JSON
// merge patch of the finalizer list at the resourceVersion read.
func TestForegroundOwner(t *testing.T) {
	rs := withFinalizers(liveReplicaSet(), FinalizerDeleteDependents, "example.com/keep")
	nonBlocking := obj("v1", "Pod", "ns", "loose", "p3", "33", ownerRef("apps/v1", "ReplicaSet", "web-1", "rs1", false))
	waiting := withFinalizers(obj("v1", "Pod", "ns", "waiting", "p4", "34", refRS1), FinalizerDeleteDependents)
	f := newFixture(t, rs, livePod())
	f.observe(rs, livePod(), nonBlocking, waiting)
	if _, err := syncItem(t, f, "rs1"); err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(f.deleteQ.added, []string{"p1"}) {
		t.Errorf("queued %v, want only the blocking, not waiting dependent p1", f.deleteQ.added)
	}
	wantActions(t, f, "get replicasets ns/web-1")

	f.c.Apply(Change{Type: Deleted, APIVersion: "v1", Kind: "Pod", Object: &livePod().ObjectMeta})
	f.c.Apply(Change{Type: Deleted, APIVersion: "v1", Kind: "Pod", Object: &waiting.ObjectMeta})
	if _, err := syncItem(t, f, "rs1"); err != nil {
		t.Fatal(err)
	}
	wantActions(t, f, "get replicasets ns/web-1", "get replicasets ns/web-1", "get replicasets ns/web-1",
		`patch replicasets ns/web-1 merge {"metadata":{"resourceVersion":"20","finalizers":["example.com/keep"]}}`)
}

// TestCycleUnblocks: an item whose owner waits for its dependents and one
// of whose own dependents waits too (a cycle: A owns B owns A) first
// unblocks its references, so its owner need not wait for it, then goes
// in the foreground (Kubernetes' cycle guard in attemptToDeleteItem).
func TestCycleUnblocks(t *testing.T) {
	a := withFinalizers(obj("v1", "ConfigMap", "ns", "a", "a1", "1", ownerRef("v1", "ConfigMap", "b", "b1", true)), FinalizerDeleteDependents)
	b := obj("v1", "ConfigMap", "ns", "b", "b1", "2", ownerRef("v1", "ConfigMap", "a", "a1", true))
	f := newFixture(t, a, b)
	f.observe(a, b)
	unblockThenDelete(t, f)
}

// unblockThenDelete syncs b1 of the cycle a ⇄ b twice. The first attempt
// unblocks b's reference, then deletes b on condition of the
// resourceVersion read before that patch: the apiserver refuses it (409),
// and the ownerReferences changed since, so the delete is not retried at
// once (Kubernetes' attemptToDeleteItem and deleteObject do the same). The
// retry finds the references unblocked and deletes b in the foreground.
func unblockThenDelete(t *testing.T, f *fixture) {
	t.Helper()
	if _, err := syncItem(t, f, "b1"); !rest.IsConflict(err) {
		t.Fatalf("error %v, want the Conflict of the delete at the resourceVersion before the patch", err)
	}
	resttest.Expect(t, f.api.Take(), "get configmaps ns/b", "get configmaps ns/a",
		`patch configmaps ns/b strategic {"metadata":{"uid":"b1","ownerReferences":[{"apiVersion":"v1","kind":"ConfigMap","name":"a","uid":"a1","controller":true,"blockOwnerDeletion":false}]}}`,
		"delete configmaps ns/b uid=b1 rv=2 policy=Foreground", "get configmaps ns/b")
	if _, err := syncItem(t, f, "b1"); err != nil {
		t.Fatal(err)
	}
	wantActions(t, f, "get configmaps ns/b", "get configmaps ns/a",
		`patch configmaps ns/b strategic {"metadata":{"uid":"b1","ownerReferences":[{"apiVersion":"v1","kind":"ConfigMap","name":"a","uid":"a1","controller":true,"blockOwnerDeletion":false}]}}`,
		"delete configmaps ns/b uid=b1 rv=3 policy=Foreground")
}

// TestCycleUnblocksBeforeTheGraphSeesTheOwnerWait: the same cycle when the
// graph still holds the owner as it was before its foreground deletion
// (its informer lags the live read): the owner read live is waiting and is
// also the item's dependent, so the references are unblocked all the same;
// otherwise both would wait for each other forever.
func TestCycleUnblocksBeforeTheGraphSeesTheOwnerWait(t *testing.T) {
	a := withFinalizers(obj("v1", "ConfigMap", "ns", "a", "a1", "1", ownerRef("v1", "ConfigMap", "b", "b1", true)), FinalizerDeleteDependents)
	aBefore := obj("v1", "ConfigMap", "ns", "a", "a1", "1", ownerRef("v1", "ConfigMap", "b", "b1", true))
	b := obj("v1", "ConfigMap", "ns", "b", "b1", "2", ownerRef("v1", "ConfigMap", "a", "a1", true))
	f := newFixture(t, a, b)
	f.observe(aBefore, b)
	unblockThenDelete(t, f)
}

// TestCycleAlreadyUnblocked: the cycle again, on a later attempt, when the
// item's references were unblocked by the first one (whose foreground
// delete then lost a race on the resourceVersion): nothing blocks any
// more, so nothing is patched, and above all the references stay. A patch
// of "ownerReferences": null would remove them all, leaving the item an
// orphan that is never deleted (the upstream e2e spec "[sig-api-machinery]
// Garbage collector should not be blocked by dependency circle" failed so).
func TestCycleAlreadyUnblocked(t *testing.T) {
	a := withFinalizers(obj("v1", "ConfigMap", "ns", "a", "a1", "1", ownerRef("v1", "ConfigMap", "b", "b1", true)), FinalizerDeleteDependents)
	b := obj("v1", "ConfigMap", "ns", "b", "b1", "3", ownerRef("v1", "ConfigMap", "a", "a1", false))
	f := newFixture(t, a, b)
	f.observe(a, b)
	if _, err := syncItem(t, f, "b1"); err != nil {
		t.Fatal(err)
	}
	wantActions(t, f, "get configmaps ns/b", "get configmaps ns/a", "delete configmaps ns/b uid=b1 rv=3 policy=Foreground")
}

// TestAttemptToOrphan: an owner deleted with the orphan finalizer has its
// reference removed from each dependent — patches, never updates — then
// loses the finalizer; a dependent already gone is no failure, another
// failure keeps the finalizer and retries.
func TestAttemptToOrphan(t *testing.T) {
	d := withFinalizers(liveDeployment(), FinalizerOrphanDependents)
	rs2 := obj("apps/v1", "ReplicaSet", "ns", "web-2", "rs2", "25", refD1)
	f := newFixture(t, d, liveReplicaSet())
	f.observe(d, liveReplicaSet(), rs2)
	f.api.Fail(resttest.On("patch", "replicasets").Named("ns/web-2"), resttest.Failure(404, "NotFound", ""))
	if _, err := f.c.AttemptToOrphan(context.Background(), "d1"); err != nil {
		t.Fatal(err)
	}
	got := resttest.Lines(f.api.Actions())
	slices.Sort(got[:2]) // the dependents are patched in parallel
	want := []string{
		`patch replicasets ns/web-1 strategic {"metadata":{"uid":"rs1","ownerReferences":[{"$patch":"delete","uid":"d1"}]}}`,
		`patch replicasets ns/web-2 strategic {"metadata":{"uid":"rs2","ownerReferences":[{"$patch":"delete","uid":"d1"}]}}`,
		"get deployments ns/web",
		`patch deployments ns/web merge {"metadata":{"resourceVersion":"10","finalizers":null}}`,
	}
	if !slices.Equal(got, want) {
		t.Errorf("API calls:\n got %q\nwant %q", got, want)
	}
	for _, a := range got {
		if !strings.HasPrefix(a, "patch ") && !strings.HasPrefix(a, "get ") {
			t.Errorf("orphaning wrote with %q; only patches are allowed", a)
		}
	}

	f2 := newFixture(t, d, liveReplicaSet())
	f2.observe(d, liveReplicaSet())
	f2.api.Fail(resttest.On("patch", "replicasets"), resttest.Failure(500, "InternalError", ""))
	if _, err := f2.c.AttemptToOrphan(context.Background(), "d1"); err == nil {
		t.Fatal("a failed orphaning did not fail the item")
	}
	for _, a := range resttest.Lines(f2.api.Actions()) {
		if strings.HasPrefix(a, "patch deployments") {
			t.Fatal("the orphan finalizer was removed though a dependent still names the owner")
		}
	}
}

// TestRemoveFinalizerRetriesConflicts: a conflict while removing a
// finalizer is retried on a fresh read, with client-go's DefaultBackoff,
// four tries in all; then the item fails and is retried later.
func TestRemoveFinalizerRetriesConflicts(t *testing.T) {
	d := withFinalizers(liveDeployment(), FinalizerOrphanDependents)
	f := newFixture(t, d)
	f.observe(d)
	f.api.Fail(resttest.On("patch", "deployments"), resttest.Failure(409, "Conflict", "the object has been modified"))
	waits, err := stepTimers(f.clk, func() error {
		_, err := f.c.AttemptToOrphan(context.Background(), "d1")
		return err
	})
	if conflicts := len(resttest.Select(f.api.Actions(), "patch deployments")); !errors.Is(err, ErrTooManyConflicts) || conflicts != 4 {
		t.Fatalf("error %v after %d conflicts, want ErrTooManyConflicts after 4", err, conflicts)
	}
	// The backoff between the four tries waits on the clock Config gave.
	if waits != 3 {
		t.Fatalf("%d waits on the configured clock between 4 tries, want 3", waits)
	}
}

// stepTimers runs fn, stepping clk past every timer it waits on, until fn
// returns; it reports how many waits it stepped.
func stepTimers(clk *clock.Fake, fn func() error) (int, error) {
	waits := 0
	done := make(chan error, 1)
	go func() { done <- fn() }()
	for {
		ctx, cancel := context.WithCancel(context.Background())
		armed := make(chan error, 1)
		go func() { armed <- clk.BlockUntilWaiters(ctx, 1) }()
		select {
		case err := <-done:
			cancel()
			<-armed
			return waits, err
		case err := <-armed:
			cancel()
			if err == nil {
				waits++
				clk.Step(time.Minute)
			}
		}
	}
}

// TestOwnerRefInvalidNamespaceEvent: the graph's report becomes the
// Warning event Kubernetes records on the dependent.
func TestOwnerRefInvalidNamespaceEvent(t *testing.T) {
	f := newFixture(t)
	f.observe(obj("v1", "ConfigMap", "a", "cm", "c1", "1"))
	f.observe(obj("v1", "Pod", "b", "p", "p9", "2", ownerRef("v1", "ConfigMap", "cm", "c1", false)))
	want := []resttest.Event{{
		Ref:  api.ObjectReference{Kind: "Pod", APIVersion: "v1", Namespace: "b", Name: "p", UID: "p9"},
		Type: "Warning", Reason: "OwnerRefInvalidNamespace",
		Message: `ownerRef [v1/ConfigMap, namespace: b, name: cm, uid: c1] does not exist in namespace "b"`,
	}}
	if got := f.events.List(); !slices.Equal(got, want) {
		t.Errorf("events %+v\nwant %+v", got, want)
	}
}
