package quota_test

import (
	"errors"
	"fmt"
	"sync"
	"testing"

	"github.com/kcmlab/kcm/clock"
	"github.com/kcmlab/kcm/ctrl/resourcequota/quota"
	"github.com/kcmlab/kcm/kube/api"
)

// fixture is a namespace "ns" with pods, Services, claims and object
// counts, and the default registry over it.
type fixture struct {
	pods   []*api.Pod
	svcs   []*api.Service
	pvcs   []*api.PersistentVolumeClaim
	counts map[quota.GroupResource]int
	fail   map[string]error // lister errors by resource
}

func (f *fixture) registry() *quota.Registry {
	return quota.NewRegistry(
		func(string) ([]*api.Pod, error) { return f.pods, f.fail["pods"] },
		func(string) ([]*api.Service, error) { return f.svcs, f.fail["services"] },
		func(string) ([]*api.PersistentVolumeClaim, error) { return f.pvcs, f.fail["persistentvolumeclaims"] },
		func(gr quota.GroupResource) quota.CountFunc {
			return func(string) (int, error) { return f.counts[gr], f.fail[gr.Resource] }
		},
		clock.NewFake(t0))
}

// TestNewRegistry: the evaluators kube-controller-manager installs by
// default (evaluator/core NewEvaluators, DRA's ResourceClaim aside), listed
// in group/resource order.
func TestNewRegistry(t *testing.T) {
	r := (&fixture{}).registry()
	var got []string
	for _, e := range r.List() {
		got = append(got, e.GroupResource().String())
	}
	want := []string{"configmaps", "persistentvolumeclaims", "pods", "replicationcontrollers", "resourcequotas", "secrets", "services"}
	if fmt.Sprint(got) != fmt.Sprint(want) {
		t.Errorf("List() = %v, want %v", got, want)
	}
	if r.Get(quota.GroupResource{Resource: "pods"}) == nil || r.Get(quota.GroupResource{Group: "apps", Resource: "deployments"}) != nil {
		t.Error("Get")
	}
	r.Add(quota.NewObjectCountEvaluator(quota.GroupResource{Group: "apps", Resource: "deployments"}, "", nil))
	if e := r.Get(quota.GroupResource{Group: "apps", Resource: "deployments"}); e == nil || len(r.List()) != 8 {
		t.Error("Add did not register count/deployments.apps")
	}
}

// TestRegistryConcurrent: evaluators added while others list and get (the
// controller adds discovered resources while its workers sync); -race
// checks the locking.
func TestRegistryConcurrent(t *testing.T) {
	r := (&fixture{}).registry()
	var wg sync.WaitGroup
	for i := range 4 {
		wg.Go(func() {
			for j := range 50 {
				gr := quota.GroupResource{Group: fmt.Sprint("g", i), Resource: fmt.Sprint("r", j)}
				r.Add(quota.NewObjectCountEvaluator(gr, "", nil))
				_ = r.Get(gr)
				_ = r.List()
			}
		})
	}
	wg.Wait()
	if n := len(r.List()); n != 7+200 {
		t.Errorf("%d evaluators, want 207", n)
	}
}

// TestObjectCounts: configmaps, secrets, resourcequotas and
// replicationcontrollers count under both names; a discovered resource
// under count/<resource>.<group>; a scoped quota counts none of them
// (MatchesNoScopeFunc); a count that fails is an error.
func TestObjectCounts(t *testing.T) {
	deploys := quota.GroupResource{Group: "apps", Resource: "deployments"}
	f := &fixture{counts: map[quota.GroupResource]int{{Resource: "configmaps"}: 3, {Resource: "secrets"}: 2, deploys: 4}}
	r := f.registry()
	r.Add(quota.NewObjectCountEvaluator(deploys, "", func(string) (int, error) { return f.counts[deploys], nil }))
	hard := list(t, "configmaps=10,count/configmaps=10,secrets=10,count/secrets=10,resourcequotas=1,count/replicationcontrollers=5,count/deployments.apps=9,count/widgets.example.com=1")
	got, err := quota.CalculateUsage("ns", nil, hard, r, nil)
	if err != nil {
		t.Fatal(err)
	}
	// count/widgets.example.com has no evaluator: it is left out.
	equalLists(t, "counts", got, rl("configmaps=3,count/configmaps=3,secrets=2,count/secrets=2,resourcequotas=0,count/replicationcontrollers=0,count/deployments.apps=4"))

	got, err = quota.CalculateUsage("ns", []string{"NotBestEffort"}, hard, r, nil)
	if err != nil {
		t.Fatal(err)
	}
	equalLists(t, "scoped counts", got, rl("configmaps=0,count/configmaps=0,secrets=0,count/secrets=0,resourcequotas=0,count/replicationcontrollers=0,count/deployments.apps=0"))

	sel := &api.ScopeSelector{MatchExpressions: []api.ScopedResourceSelectorRequirement{{ScopeName: "PriorityClass", Operator: "Exists"}}}
	got, _ = quota.CalculateUsage("ns", nil, list(t, "secrets=1"), r, sel)
	equalLists(t, "selector counts", got, rl("secrets=0"))
	got, _ = quota.CalculateUsage("ns", nil, list(t, "secrets=1"), r, &api.ScopeSelector{})
	equalLists(t, "empty selector counts", got, rl("secrets=2"))

	u, _ := r.Get(deploys).Usage(&api.RawObject{})
	equalLists(t, "one object", u, rl("count/deployments.apps=1"))
	u, _ = r.Get(quota.GroupResource{Resource: "secrets"}).Usage(nil)
	equalLists(t, "one secret", u, rl("count/secrets=1,secrets=1"))
}

// TestCalculateUsageErrors: an evaluator whose lister fails drops its
// names from the usage and its error is returned beside the usage the
// others computed (quota.CalculateUsage's aggregate).
func TestCalculateUsageErrors(t *testing.T) {
	boom := errors.New("cache not synced")
	f := &fixture{
		pods:   []*api.Pod{mkPod("a", []api.Container{ctr("c", "cpu=1", "")})},
		svcs:   []*api.Service{{ObjectMeta: api.ObjectMeta{Name: "s", Namespace: "ns"}}},
		counts: map[quota.GroupResource]int{{Resource: "secrets"}: 1},
		fail:   map[string]error{"services": boom, "configmaps": boom},
	}
	got, err := quota.CalculateUsage("ns", nil, list(t, "pods=5,requests.cpu=2,services=3,count/services=3,configmaps=1,secrets=1"), f.registry(), nil)
	if !errors.Is(err, boom) {
		t.Errorf("error = %v, want one wrapping %v", err, boom)
	}
	equalLists(t, "partial usage", got, rl("pods=1,requests.cpu=1,secrets=1"))
}

// TestScopedQuotaUsage: a scoped quota counts the pods its scopes select
// and no Service (Services match no scope).
func TestScopedQuotaUsage(t *testing.T) {
	f := &fixture{
		pods: []*api.Pod{
			mkPod("best-effort", []api.Container{ctr("c", "", "")}),
			mkPod("burstable", []api.Container{ctr("c", "cpu=500m", "")}),
			mkPod("job", []api.Container{ctr("c", "cpu=250m", "")}, func(p *api.Pod) { p.Spec.ActiveDeadlineSeconds = ptr(int64(60)) }),
			mkPod("done", []api.Container{ctr("c", "cpu=8", "")}, phase(api.PodSucceeded)),
		},
		svcs: []*api.Service{{ObjectMeta: api.ObjectMeta{Name: "s", Namespace: "ns"}}},
	}
	hard := list(t, "pods=10,count/pods=10,requests.cpu=4,services=2")
	for _, c := range []struct {
		scopes []string
		want   string
	}{
		{nil, "pods=3,count/pods=4,requests.cpu=750m,services=1"},
		{[]string{"BestEffort"}, "pods=1,count/pods=1,requests.cpu=0,services=0"},
		{[]string{"NotBestEffort"}, "pods=2,count/pods=3,requests.cpu=750m,services=0"},
		{[]string{"Terminating"}, "pods=1,count/pods=1,requests.cpu=250m,services=0"},
		{[]string{"NotTerminating", "NotBestEffort"}, "pods=1,count/pods=2,requests.cpu=500m,services=0"},
	} {
		got, err := quota.CalculateUsage("ns", c.scopes, hard, f.registry(), nil)
		if err != nil {
			t.Fatal(err)
		}
		equalLists(t, fmt.Sprint(c.scopes), got, rl(c.want))
	}
}

// TestUsageWrongType: an evaluator given another kind of object says so.
func TestUsageWrongType(t *testing.T) {
	for _, e := range []quota.Evaluator{quota.NewPodEvaluator(nil, clock.NewFake(t0)), quota.NewServiceEvaluator(nil), quota.NewPVCEvaluator(nil)} {
		if _, err := e.Usage(&api.ConfigMap{}); err == nil {
			t.Errorf("%s: no error for a ConfigMap", e.GroupResource())
		}
	}
}
