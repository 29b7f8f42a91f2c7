package quota_test

import (
	"encoding/json"
	"slices"
	"strings"
	"testing"

	"github.com/kcmlab/kcm/clock"
	"github.com/kcmlab/kcm/ctrl/resourcequota/quota"
	"github.com/kcmlab/kcm/kube/api"
	"github.com/kcmlab/kcm/kube/api/resource"
)

// The tests of this file hold kcm's evaluators to kube-controller-manager's
// answers (vectors_test.go).

// render is l as "name=quantity,..." with the entries sorted as strings,
// as the vectors are.
func render(l resource.List) string {
	parts := make([]string, 0, len(l))
	for k, v := range l.Strings() {
		parts = append(parts, k+"="+v)
	}
	slices.Sort(parts)
	return strings.Join(parts, ",")
}

func decodeJSON[T any](t *testing.T, js string) *T {
	t.Helper()
	v := new(T)
	if err := json.Unmarshal([]byte(js), v); err != nil {
		t.Fatalf("%s: %v", js, err)
	}
	return v
}

// letter is y, n or e for a scope function's answer.
func letter(ok bool, err error) byte {
	switch {
	case err != nil:
		return 'e'
	case ok:
		return 'y'
	}
	return 'n'
}

// TestPodEvaluatorMatchesKubernetes: each pod's usage (counted or not,
// requests and limits with init containers, sidecars, overhead, pod-level
// and status resources, hugepages, extended resources, canonical strings)
// and each scope requirement's answer (every scope, every operator, and
// the invalid requirements) are kube-controller-manager's.
func TestPodEvaluatorMatchesKubernetes(t *testing.T) {
	ev := quota.NewPodEvaluator(nil, clock.NewFake(t0))
	for _, v := range podVectors {
		pod := decodeJSON[api.Pod](t, v.json)
		u, err := ev.Usage(pod)
		if err != nil {
			t.Errorf("%s: %v", pod.Name, err)
			continue
		}
		if got := render(u); got != v.usage {
			t.Errorf("%s usage:\n got %s\nwant %s", pod.Name, got, v.usage)
		}
		var m []byte
		for _, sel := range scopeSelectors {
			m = append(m, letter(quota.PodMatchesScope(sel, pod)))
		}
		if string(m) != v.matches {
			t.Errorf("%s scopes = %s, want %s", pod.Name, m, v.matches)
		}
	}
}

// TestServiceEvaluatorMatchesKubernetes: ClusterIP, NodePort,
// LoadBalancer (with and without node port allocation) and ExternalName
// Services count as kube-controller-manager counts them.
func TestServiceEvaluatorMatchesKubernetes(t *testing.T) {
	ev := quota.NewServiceEvaluator(nil)
	for _, v := range serviceVectors {
		svc := decodeJSON[api.Service](t, v.json)
		u, err := ev.Usage(svc)
		if err != nil {
			t.Fatal(err)
		}
		if got := render(u); got != v.usage {
			t.Errorf("%s usage:\n got %s\nwant %s", svc.Name, got, v.usage)
		}
	}
}

// TestPVCEvaluatorMatchesKubernetes: claims' counts, storage (rounded up,
// the allocation when larger), per storage class (the beta annotation
// first) and the VolumeAttributesClass scope are kube-controller-manager's.
func TestPVCEvaluatorMatchesKubernetes(t *testing.T) {
	ev := quota.NewPVCEvaluator(nil)
	for _, v := range pvcVectors {
		pvc := decodeJSON[api.PersistentVolumeClaim](t, v.json)
		u, err := ev.Usage(pvc)
		if err != nil {
			t.Errorf("%s: %v", pvc.Name, err)
			continue
		}
		if got := render(u); got != v.usage {
			t.Errorf("%s usage:\n got %s\nwant %s", pvc.Name, got, v.usage)
		}
		var m []byte
		for _, sel := range pvcSelectors {
			m = append(m, letter(quota.PVCMatchesScope(sel, pvc)))
		}
		if string(m) != v.matches {
			t.Errorf("%s scopes = %s, want %s", pvc.Name, m, v.matches)
		}
	}
}

// TestMatchingResourcesMatchKubernetes: which hard names each evaluator
// computes.
func TestMatchingResourcesMatchKubernetes(t *testing.T) {
	evs := map[string]quota.Evaluator{
		"pods":                   quota.NewPodEvaluator(nil, clock.NewFake(t0)),
		"services":               quota.NewServiceEvaluator(nil),
		"persistentvolumeclaims": quota.NewPVCEvaluator(nil),
	}
	for _, v := range matchingVectors {
		got := evs[v.resource].MatchingResources(matchingNames)
		slices.Sort(got)
		if s := strings.Join(got, ","); s != v.names {
			t.Errorf("%s:\n got %s\nwant %s", v.resource, s, v.names)
		}
	}
}

// TestCalculateUsageMatchesKubernetes: a namespace holding every pod of
// the vectors, under quotas with each scope, scope combinations and scope
// selectors (an invalid one included: upstream ends the scan and reports
// zeros without an error), gives kube-controller-manager's usage.
func TestCalculateUsageMatchesKubernetes(t *testing.T) {
	var pods []*api.Pod
	for _, v := range podVectors {
		pods = append(pods, decodeJSON[api.Pod](t, v.json))
	}
	r := &quota.Registry{}
	r.Add(quota.NewPodEvaluator(func(ns string) ([]*api.Pod, error) {
		if ns != "ns" {
			t.Errorf("listed namespace %q", ns)
		}
		return pods, nil
	}, clock.NewFake(t0)))
	hard := resource.List{}
	for _, n := range quotaHard {
		hard[n] = resource.MustParse("100")
	}
	for _, v := range quotaVectors {
		var scopes []string
		if v.scopes != "" {
			scopes = strings.Split(v.scopes, ",")
		}
		var sel *api.ScopeSelector
		if v.selector != "" {
			sel = &api.ScopeSelector{}
			for _, i := range strings.Split(v.selector, ",") {
				n := 0
				for _, c := range i {
					n = n*10 + int(c-'0')
				}
				sel.MatchExpressions = append(sel.MatchExpressions, scopeSelectors[n])
			}
		}
		got, err := quota.CalculateUsage("ns", scopes, hard, r, sel)
		if err != nil {
			t.Errorf("scopes %q selector %q: %v", v.scopes, v.selector, err)
			continue
		}
		if v.stable {
			if s := render(got); s != v.usage {
				t.Errorf("scopes %q selector %q:\n got %s\nwant %s", v.scopes, v.selector, s, v.usage)
			}
			continue
		}
		want, err := resource.ParseList(rl(v.usage))
		if err != nil {
			t.Fatal(err)
		}
		if !quota.Equals(got, want) {
			t.Errorf("scopes %q selector %q:\n got %s\nwant %s", v.scopes, v.selector, render(got), v.usage)
		}
	}
}
