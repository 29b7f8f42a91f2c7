package namespace

import (
	"encoding/json"
	"errors"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/kcmlab/kcm/ctrl"
	"github.com/kcmlab/kcm/internal/testing/resttest"
	"github.com/kcmlab/kcm/kube/api"
	"github.com/kcmlab/kcm/kube/rest"
)

// The actions of a sync (resttest's lines); every delete is background.
const (
	getNS       = "get namespaces ns"
	putStatus   = "update namespaces/status ns"
	putFinal    = "update namespaces/finalize ns"
	listPods    = "list pods ns/"
	deletePods  = "deletecollection pods ns/ policy=Background"
	listCMs     = "list configmaps ns/"
	deleteCMs   = "deletecollection configmaps ns/ policy=Background"
	listWidgets = "list widgets ns/"
	deleteBlind = "deletecollection blinds ns/ policy=Background"
)

// deleteOne is the delete of one object of res.
func deleteOne(res, name string) string {
	return "delete " + res + " ns/" + name + " policy=Background"
}

// allFalse is the conditions of a namespace whose content is all gone.
var allFalse = map[string]string{
	ConditionDiscoveryFailure:           "False ResourcesDiscovered: All resources successfully discovered",
	ConditionGroupVersionParsingFailure: "False ParsedGroupVersions: All legacy kube types successfully parsed",
	ConditionContentFailure:             "False ContentDeleted: All content successfully deleted, may be waiting on finalization",
	ConditionContentRemaining:           "False ContentRemoved: All content successfully removed",
	ConditionFinalizersRemaining:        "False ContentHasNoFinalizers: All content-preserving finalizers finished",
}

// expectConditions checks every condition the test names.
func expectConditions(t *testing.T, f *fixture, want map[string]string) {
	t.Helper()
	for typ, w := range want {
		if got := f.condition(typ); got != w {
			t.Errorf("%s:\n got %s\nwant %s", typ, got, w)
		}
	}
}

// TestSyncDeletesContentThenFinalizes follows Kubernetes'
// TestFinalizeNamespaceFunc and testSyncNamespaceThatIsTerminating: every
// namespaced type that supports delete is emptied (deletecollection where
// discovery lists it, else list and delete each; a type that cannot be
// listed is deleted blind), pods first; types without delete and
// cluster-scoped types are left alone; the conditions are written; then
// the "kubernetes" finalizer goes through /finalize.
func TestSyncDeletesContentThenFinalizes(t *testing.T) {
	f := newFixture(t)
	f.add(rest.ConfigMaps, &fakeObject{name: "a"}, &fakeObject{name: "b"})
	f.add(widgets.Resource, &fakeObject{name: "w1"}, &fakeObject{name: "w2"})
	f.add(blind.Resource, &fakeObject{name: "x"})
	res, err, actions := f.run()
	if err != nil || res != (ctrl.Result{}) {
		t.Fatalf("result %+v err %v", res, err)
	}
	if !resttest.Expect(t, actions, getNS,
		listPods, deletePods, listPods,
		deleteCMs, listCMs,
		deleteBlind,
		listWidgets, deleteOne("widgets", "w1"), deleteOne("widgets", "w2"), listWidgets,
		putStatus, putFinal) {
		t.FailNow()
	}
	if left := f.remaining(); len(left) > 0 {
		t.Errorf("%q still there", left)
	}
	expectConditions(t, f, allFalse)
	if fins := f.state().Spec.Finalizers; len(fins) != 0 {
		t.Errorf("spec.finalizers %q after finalize", fins)
	}
	if _, ok := resttest.Get[*api.Namespace](f.api, rest.Namespaces, "", "ns"); ok {
		t.Error("the namespace is still there after its finalize")
	}
	var fin map[string]any
	if err := json.Unmarshal(f.finalized.Body, &fin); err != nil || fin["metadata"].(map[string]any)["uid"] != "uid-1" {
		t.Errorf("finalize body %s (%v): want the namespace's metadata with its UID", f.finalized.Body, err)
	}
	var order []string
	for _, c := range f.state().Status.Conditions {
		order = append(order, c.Type)
	}
	kubernetesOrder := []string{"NamespaceDeletionDiscoveryFailure", "NamespaceDeletionGroupVersionParsingFailure",
		"NamespaceDeletionContentFailure", "NamespaceContentRemaining", "NamespaceFinalizersRemaining"}
	if !slices.Equal(order, kubernetesOrder) {
		t.Errorf("conditions in order %q, want Kubernetes' %q", order, kubernetesOrder)
	}
	for _, c := range f.state().Status.Conditions {
		if !c.LastTransitionTime.Equal(t0) {
			t.Errorf("%s lastTransitionTime %v, want the clock's %v", c.Type, c.LastTransitionTime, t0)
		}
	}
}

// TestSyncNothingToDo: a namespace that is not being deleted, one gone
// from the cache or from the apiserver, and one already finalized are
// left alone (Kubernetes' Delete returns early in each case).
func TestSyncNothingToDo(t *testing.T) {
	for _, tc := range []struct {
		name  string
		setup func(f *fixture)
		want  []string
	}{
		{"not being deleted", func(f *fixture) { f.ns.DeletionTimestamp = nil; f.ns.Status.Phase = api.NamespaceActive }, []string{getNS}},
		{"gone from the cache", func(f *fixture) { f.ns = nil }, nil},
		{"gone from the apiserver", func(f *fixture) { f.cached = f.ns; f.ns = nil }, []string{getNS}},
		{"already finalized", func(f *fixture) { f.ns.Spec.Finalizers = nil }, []string{getNS}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			f := newFixture(t)
			f.add(rest.ConfigMaps, &fakeObject{name: "a"})
			tc.setup(f)
			res, err, actions := f.run()
			if !resttest.Expect(t, actions, tc.want...) || err != nil || res != (ctrl.Result{}) {
				t.Fatalf("result %+v err %v actions %q, want %q", res, err, resttest.Lines(actions), tc.want)
			}
		})
	}
}

// TestSyncMarksTerminating: a deleted namespace whose phase is not
// Terminating yet gets it through the status subresource first
// (Kubernetes' updateNamespaceStatusFunc).
func TestSyncMarksTerminating(t *testing.T) {
	f := newFixture(t)
	f.ns.Status.Phase = api.NamespaceActive
	_, err, actions := f.run()
	if err != nil {
		t.Fatal(err)
	}
	if len(actions) < 2 || actions[1].String() != putStatus {
		t.Fatalf("actions %q: want the phase written right after the GET", resttest.Lines(actions))
	}
	if ph := f.state().Status.Phase; ph != api.NamespaceTerminating {
		t.Errorf("phase %q", ph)
	}
}

// TestSyncDiscoveryFailure follows Kubernetes'
// TestUpdateConditionsOnDiscoveryFailure: a partial discovery failure sets
// NamespaceDeletionDiscoveryFailure with each failed group version, the
// types that were found are still emptied, and the namespace is not
// finalized (the error makes the loop retry).
func TestSyncDiscoveryFailure(t *testing.T) {
	f := newFixture(t)
	f.add(rest.ConfigMaps, &fakeObject{name: "a"})
	f.discoverErr = &rest.GroupDiscoveryError{Groups: map[string]error{
		"metrics.k8s.io/v1beta1": rest.StatusErrorFrom("GET", "/apis/metrics.k8s.io/v1beta1",
			failure(503, "ServiceUnavailable", "the server is currently unable to handle the request")),
		"broken.example/v1": errors.New("connection refused"),
	}}
	_, err, actions := f.run()
	if !errors.Is(err, rest.ErrGroupDiscovery) {
		t.Fatalf("err %v, want the discovery failure", err)
	}
	if has(actions, putFinal) || !has(actions, deleteCMs) {
		t.Fatalf("actions %q: want the discovered types emptied and no finalize", resttest.Lines(actions))
	}
	expectConditions(t, f, map[string]string{
		ConditionDiscoveryFailure: "True DiscoveryFailed: Discovery failed for some groups, 2 failing: " +
			"unable to retrieve the complete list of server APIs: broken.example/v1: connection refused, " +
			"metrics.k8s.io/v1beta1: the server is currently unable to handle the request",
		ConditionContentFailure: allFalse[ConditionContentFailure],
	})

	// A whole discovery failure: its message as is.
	f = newFixture(t)
	f.resources, f.discoverErr = nil, rest.StatusErrorFrom("GET", "/api/v1", failure(500, "InternalError", "etcd is down"))
	if _, err, actions = f.run(); err == nil || has(actions, putFinal) {
		t.Fatalf("err %v actions %q", err, resttest.Lines(actions))
	}
	expectConditions(t, f, map[string]string{ConditionDiscoveryFailure: "True DiscoveryFailed: etcd is down"})
}

// TestSyncGroupVersionParsingFailure: a group version with two slashes
// stops the whole pass (Kubernetes' discovery.GroupVersionResources
// returns nothing then) and is reported.
func TestSyncGroupVersionParsingFailure(t *testing.T) {
	f := newFixture(t)
	f.add(rest.ConfigMaps, &fakeObject{name: "a"})
	bad := rest.APIResource{Resource: rest.Resource{Group: "a", Version: "b/c", Resource: "things", Namespaced: true}, Verbs: verbs("delete list")}
	f.resources = append(f.resources, bad)
	_, err, actions := f.run()
	if !errors.Is(err, ErrGroupVersion) {
		t.Fatalf("err %v", err)
	}
	if !resttest.Expect(t, actions, getNS, putStatus) {
		t.Fatal("want nothing deleted")
	}
	expectConditions(t, f, map[string]string{
		ConditionGroupVersionParsingFailure: "True GroupVersionParsingFailed: unexpected GroupVersion string: a/b/c",
		ConditionContentRemaining:           allFalse[ConditionContentRemaining],
	})
}

// TestSyncForbiddenDelete: a type whose deletion is refused sets
// NamespaceDeletionContentFailure with the apiserver's message, the other
// types are still emptied, and the namespace stays (error, retried with
// backoff).
func TestSyncForbiddenDelete(t *testing.T) {
	f := newFixture(t)
	f.add(rest.ConfigMaps, &fakeObject{name: "a"})
	f.add(widgets.Resource, &fakeObject{name: "w1"})
	grantCMs := f.api.Fail(resttest.On("deletecollection", "configmaps"), forbidden("deletecollection", "configmaps"))
	grantWidgets := f.api.Fail(resttest.On("delete", "widgets").Named("ns/w1"), forbidden("delete", "widgets"))
	res, err, actions := f.run()
	if !rest.IsForbidden(err) || res != (ctrl.Result{}) {
		t.Fatalf("result %+v err %v", res, err)
	}
	if has(actions, putFinal) {
		t.Fatalf("finalized with content left: %q", resttest.Lines(actions))
	}
	expectConditions(t, f, map[string]string{
		ConditionContentFailure: "True ContentDeletionFailed: Failed to delete all resource types, 2 remaining: " +
			`configmaps is forbidden: User "system:serviceaccount:kube-system:namespace-controller" cannot deletecollection resource "configmaps" in API group "" in the namespace "ns", ` +
			`widgets is forbidden: User "system:serviceaccount:kube-system:namespace-controller" cannot delete resource "widgets" in API group "" in the namespace "ns"`,
		ConditionContentRemaining: allFalse[ConditionContentRemaining],
	})

	// Permission granted: the next pass clears the condition and finalizes.
	grantCMs()
	grantWidgets()
	if _, err, actions = f.run(); err != nil || !has(actions, putFinal) {
		t.Fatalf("after the grant: err %v actions %q", err, resttest.Lines(actions))
	}
	expectConditions(t, f, allFalse)
}

// TestSyncContentRemaining follows Kubernetes'
// TestDeleteEachItem/finalizer and grace-period cases: objects held by
// finalizers leave the namespace for FinalizerEstimate seconds, pods in
// their grace period for what is left of it; the sync asks to come back
// after half the estimate plus a second, and the namespace is finalized
// only once nothing is left.
func TestSyncContentRemaining(t *testing.T) {
	t.Run("finalizers", func(t *testing.T) {
		f := newFixture(t)
		f.add(widgets.Resource, &fakeObject{name: "w1", finalizers: []string{"example.com/hold"}},
			&fakeObject{name: "w2", finalizers: []string{"example.com/hold", "example.com/other"}})
		f.add(rest.ConfigMaps, &fakeObject{name: "c", finalizers: []string{"example.com/hold"}})
		res, err, actions := f.run()
		if err != nil || res.RequeueAfter != RequeueDelay(FinalizerEstimate) || res.RequeueAfter != 8*time.Second {
			t.Fatalf("result %+v err %v: want a requeue after 8s", res, err)
		}
		if has(actions, putFinal) {
			t.Fatalf("finalized with content left: %q", resttest.Lines(actions))
		}
		expectConditions(t, f, map[string]string{
			ConditionContentRemaining: "True SomeResourcesRemain: Some resources are remaining: " +
				"configmaps. has 1 resource instances, widgets.example.com has 2 resource instances",
			ConditionFinalizersRemaining: "True SomeFinalizersRemain: Some content in the namespace has finalizers remaining: " +
				"example.com/hold in 3 resource instances, example.com/other in 1 resource instances",
			ConditionContentFailure: allFalse[ConditionContentFailure],
		})
		// The finalizers' owners finish: the next pass finalizes.
		f.finish()
		if res, err, actions = f.run(); err != nil || res != (ctrl.Result{}) || !has(actions, putFinal) {
			t.Fatalf("result %+v err %v actions %q", res, err, resttest.Lines(actions))
		}
		expectConditions(t, f, allFalse)
		if c := f.state().Status.Conditions[3]; !c.LastTransitionTime.Equal(t0) {
			t.Errorf("ContentRemaining flipped but kept its time: %v", c.LastTransitionTime)
		}
	})
	t.Run("pods in their grace period", func(t *testing.T) {
		f := newFixture(t)
		// Deleted 10 s ago; the longest grace period of a pod still
		// running is 30 s. A finished pod's longer one does not count.
		f.add(rest.Pods, &fakeObject{name: "p1", grace: grace(30), phase: api.PodRunning},
			&fakeObject{name: "p2", grace: grace(300), phase: api.PodSucceeded}, &fakeObject{name: "p3", phase: api.PodPending})
		f.add(rest.ConfigMaps, &fakeObject{name: "c"})
		res, err, actions := f.run()
		if err != nil || res.RequeueAfter != 16*time.Second {
			t.Fatalf("result %+v err %v: want a requeue after 30/2+1 s", res, err)
		}
		if !resttest.Expect(t, actions, getNS, listPods, deletePods, listPods, putStatus) {
			t.Fatal("want pods first, the rest waiting")
		}
		// As Kubernetes v1.37 writes them while pods remain: no content
		// totals, so ContentRemaining reads False.
		expectConditions(t, f, allFalse)
		if len(resttest.List[*api.RawObject](f.api, rest.ConfigMaps, "ns")) != 1 {
			t.Error("a ConfigMap was deleted while pods remained")
		}
	})
	t.Run("grace period over", func(t *testing.T) {
		f := newFixture(t)
		f.clock.Step(30 * time.Second) // 40 s since the deletion
		f.add(rest.Pods, &fakeObject{name: "p1", grace: grace(30), phase: api.PodRunning})
		_, err, actions := f.run()
		if !errors.Is(err, ErrContentRemains) || has(actions, putFinal) {
			t.Fatalf("err %v actions %q: a pod past its grace period with no finalizer is unexpected", err, resttest.Lines(actions))
		}
		expectConditions(t, f, map[string]string{ConditionContentFailure: "True ContentDeletionFailed: Failed to delete all resource types, 1 remaining: " +
			"unexpected items still remain in namespace: ns for gvr: /v1, Resource=pods"})
		if !strings.Contains(err.Error(), "failed to delete pods for namespace: ns, err: unexpected items") {
			t.Errorf("err %v", err)
		}
	})
	t.Run("unexplained", func(t *testing.T) {
		f := newFixture(t)
		f.add(rest.ConfigMaps, &fakeObject{name: "c", sticky: true})
		_, err, actions := f.run()
		if !errors.Is(err, ErrContentRemains) || has(actions, putFinal) {
			t.Fatalf("err %v actions %q", err, resttest.Lines(actions))
		}
		expectConditions(t, f, map[string]string{
			ConditionContentFailure: "True ContentDeletionFailed: Failed to delete all resource types, 1 remaining: " +
				"unexpected items still remain in namespace: ns for gvr: /v1, Resource=configmaps",
			ConditionContentRemaining: "True SomeResourcesRemain: Some resources are remaining: configmaps. has 1 resource instances",
		})
	})
}

// TestSyncNotSupported: a 405 or 404 answer to deletecollection falls
// back to deleting one by one; to list, the type is skipped.
func TestSyncNotSupported(t *testing.T) {
	f := newFixture(t)
	f.resources = []rest.APIResource{configMaps, widgets}
	f.add(rest.ConfigMaps, &fakeObject{name: "a"})
	f.add(widgets.Resource, &fakeObject{name: "w1"})
	f.api.Fail(resttest.On("deletecollection", "configmaps"), failure(405, "MethodNotAllowed", "not allowed"))
	f.api.Fail(resttest.On("list", "widgets"), failure(404, "NotFound", "the server could not find the requested resource"))
	_, err, actions := f.run()
	if err != nil {
		t.Fatal(err)
	}
	resttest.Expect(t, actions, getNS, deleteCMs, listCMs, deleteOne("configmaps", "a"), listCMs,
		listWidgets, listWidgets, putStatus, putFinal)
}

// TestSyncFinalizeKeepsOtherFinalizers: only "kubernetes" is removed;
// other spec.finalizers stay, sorted and without duplicates, for their
// owners.
func TestSyncFinalizeKeepsOtherFinalizers(t *testing.T) {
	f := newFixture(t)
	f.ns.Spec.Finalizers = []string{"z.example/x", api.FinalizerKubernetes, "a.example/y", "z.example/x"}
	if _, err, _ := f.run(); err != nil {
		t.Fatal(err)
	}
	if want, got := []string{"a.example/y", "z.example/x"}, f.state().Spec.Finalizers; !slices.Equal(got, want) {
		t.Fatalf("spec.finalizers %q, want %q", got, want)
	}
}

// TestSyncConflicts: a write that conflicts is retried on a fresh read;
// a namespace re-created under the same name (new UID) stops the sync; a
// namespace that disappears before its finalize is fine.
func TestSyncConflicts(t *testing.T) {
	t.Run("finalize conflict", func(t *testing.T) {
		f := newFixture(t)
		f.api.Fail(resttest.On("update", "namespaces/finalize").Times(1), failure(409, "Conflict", "modified"))
		_, err, actions := f.run()
		if err != nil || len(actions) < 3 || !resttest.Expect(t, actions[len(actions)-3:], putFinal, getNS, putFinal) {
			t.Fatalf("err %v actions %q", err, resttest.Lines(actions))
		}
		if len(f.state().Spec.Finalizers) != 0 {
			t.Error("not finalized after the retry")
		}
	})
	t.Run("re-created", func(t *testing.T) {
		f := newFixture(t)
		f.api.Fail(resttest.On("update", "namespaces/finalize").Times(1), failure(409, "Conflict", "modified"))
		// The GET after the conflict sees another namespace.
		f.api.Intercept(resttest.On("get", "namespaces").Named("ns").Nth(2), func(resttest.Action) error {
			again := *f.ns
			again.UID, again.ResourceVersion = "uid-2", ""
			resttest.Add(f.api, rest.Namespaces, &again)
			return nil
		})
		_, err, _ := f.run()
		if !errors.Is(err, ErrUIDChanged) {
			t.Fatalf("err %v, want ErrUIDChanged", err)
		}
		if len(f.state().Spec.Finalizers) == 0 {
			t.Error("the re-created namespace was finalized")
		}
	})
	t.Run("gone before finalize", func(t *testing.T) {
		f := newFixture(t)
		f.api.Fail(resttest.On("update", "namespaces/finalize"), failure(404, "NotFound", "gone"))
		if res, err, _ := f.run(); err != nil || res != (ctrl.Result{}) {
			t.Fatalf("result %+v err %v", res, err)
		}
	})
}

// TestSyncStatusWriteFailure: a failed condition write is logged, not an
// error; the namespace is still finalized.
func TestSyncStatusWriteFailure(t *testing.T) {
	f := newFixture(t)
	f.api.Fail(resttest.On("update", "namespaces/status"), failure(500, "InternalError", "etcd timeout"))
	_, err, actions := f.run()
	if err != nil || !has(actions, putFinal) {
		t.Fatalf("err %v actions %q", err, resttest.Lines(actions))
	}
}

// TestRequeueDelay: half the estimate, rounded down, plus one second
// (Kubernetes' worker: estimate/2 + 1).
func TestRequeueDelay(t *testing.T) {
	for est, want := range map[int64]time.Duration{1: time.Second, 2: 2 * time.Second, 15: 8 * time.Second, 30: 16 * time.Second, 31: 16 * time.Second} {
		if got := RequeueDelay(est); got != want {
			t.Errorf("RequeueDelay(%d) = %v, want %v", est, got, want)
		}
	}
}
