package api_test

import (
	"testing"

	"github.com/kcmlab/kcm/kube/api"
)

// TestPodQuotaFieldsJSON: the pod fields resource quota reads — affinity
// terms, overhead, pod-level resources, the containers' allocated and
// actual resources, the PodResizePending condition — decode and encode back
// with no field wrong; only the unmodelled node affinity is dropped
// (core/v1 Pod).
func TestPodQuotaFieldsJSON(t *testing.T) {
	const pod = `{"kind":"Pod","apiVersion":"v1","metadata":{"name":"p","namespace":"a","uid":"u1"},
	"spec":{"containers":[{"name":"c","image":"i","resources":{"requests":{"cpu":"100m"}}}],
	"affinity":{"nodeAffinity":{"requiredDuringSchedulingIgnoredDuringExecution":{"nodeSelectorTerms":[{"matchExpressions":[{"key":"k","operator":"Exists"}]}]}},
	"podAffinity":{"requiredDuringSchedulingIgnoredDuringExecution":[{"labelSelector":{"matchLabels":{"app":"db"}},"namespaces":["b"],"topologyKey":"zone"}]},
	"podAntiAffinity":{"preferredDuringSchedulingIgnoredDuringExecution":[{"weight":10,"podAffinityTerm":{"namespaceSelector":{},"topologyKey":"host","matchLabelKeys":["x"]}}]}},
	"overhead":{"cpu":"10m","memory":"12Mi"},"resources":{"requests":{"cpu":"1"},"limits":{"memory":"1Gi"}}},
	"status":{"phase":"Running","conditions":[{"type":"PodResizePending","status":"True","reason":"Infeasible","lastProbeTime":null,"lastTransitionTime":null}],
	"containerStatuses":[{"name":"c","ready":true,"restartCount":0,"image":"i","imageID":"","allocatedResources":{"cpu":"200m"},
	"resources":{"requests":{"cpu":"150m"},"limits":{"cpu":"1"}},"state":{},"lastState":{}}]}}`
	for _, c := range apiCodecs {
		p, out := apiRoundTrip[api.Pod](t, c, pod)
		sp, cs := p.Spec, p.Status.ContainerStatuses[0]
		if !sp.UsesCrossNamespacePodAffinity() || sp.Overhead["memory"] != "12Mi" || sp.Resources.Limits["memory"] != "1Gi" ||
			sp.Affinity.PodAntiAffinity.PreferredDuringSchedulingIgnoredDuringExecution[0].Weight != 10 ||
			cs.AllocatedResources["cpu"] != "200m" || cs.Resources.Requests["cpu"] != "150m" ||
			p.Status.Conditions[0].Type != api.PodResizePending || p.Status.Conditions[0].Reason != api.PodReasonInfeasible {
			t.Errorf("%s: %+v", c.name, p)
		}
		wrong, dropped := apiDiffPaths(t, pod, out)
		apiMustEqualPaths(t, c.name+": wrong", wrong, nil)
		apiMustEqualPaths(t, c.name+": dropped", dropped, []string{".spec.affinity.nodeAffinity"})
	}
}

// TestUsesCrossNamespacePodAffinity: a term naming namespaces or a
// namespace selector, in any of the four lists, makes a pod
// cross-namespace; terms of its own namespace only do not (Kubernetes'
// usesCrossNamespacePodAffinity).
func TestUsesCrossNamespacePodAffinity(t *testing.T) {
	term := func(ns []string, sel *api.LabelSelector) api.PodAffinityTerm {
		return api.PodAffinityTerm{Namespaces: ns, NamespaceSelector: sel, TopologyKey: "zone"}
	}
	local, byName, bySel := term(nil, nil), term([]string{"b"}, nil), term(nil, &api.LabelSelector{})
	w := func(t api.PodAffinityTerm) []api.WeightedPodAffinityTerm {
		return []api.WeightedPodAffinityTerm{{Weight: 1, PodAffinityTerm: t}}
	}
	for _, c := range []struct {
		name string
		aff  *api.Affinity
		want bool
	}{
		{"none", nil, false},
		{"empty", &api.Affinity{}, false},
		{"local terms", &api.Affinity{PodAffinity: &api.PodAffinity{RequiredDuringSchedulingIgnoredDuringExecution: []api.PodAffinityTerm{local},
			PreferredDuringSchedulingIgnoredDuringExecution: w(local)}}, false},
		{"affinity required namespaces", &api.Affinity{PodAffinity: &api.PodAffinity{RequiredDuringSchedulingIgnoredDuringExecution: []api.PodAffinityTerm{local, byName}}}, true},
		{"affinity preferred selector", &api.Affinity{PodAffinity: &api.PodAffinity{PreferredDuringSchedulingIgnoredDuringExecution: w(bySel)}}, true},
		{"anti required selector", &api.Affinity{PodAntiAffinity: &api.PodAntiAffinity{RequiredDuringSchedulingIgnoredDuringExecution: []api.PodAffinityTerm{bySel}}}, true},
		{"anti preferred namespaces", &api.Affinity{PodAntiAffinity: &api.PodAntiAffinity{PreferredDuringSchedulingIgnoredDuringExecution: w(byName)}}, true},
	} {
		s := api.PodSpec{Affinity: c.aff}
		if got := s.UsesCrossNamespacePodAffinity(); got != c.want {
			t.Errorf("%s: %v, want %v", c.name, got, c.want)
		}
	}
}
