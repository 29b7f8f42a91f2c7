package monitorset

import (
	"errors"
	"fmt"
	"maps"
	"slices"
	"testing"

	"github.com/kcmlab/kcm/kube/rest"
)

// TestKeepFailedGroups: when discovery cannot read a group version, the
// resources of that group keep accepts stay (all of them with a nil keep,
// as the quota controller asks; only those whose monitor synced, as the
// collector asks); the resources of groups that answered follow
// discovery; an error that names no group keeps nothing.
func TestKeepFailedGroups(t *testing.T) {
	metrics := rest.Resource{Group: "metrics.k8s.io", Version: "v1beta1", Resource: "pods", Kind: "PodMetrics", Namespaced: true}
	nodeMetrics := rest.Resource{Group: "metrics.k8s.io", Version: "v1beta1", Resource: "nodes", Kind: "NodeMetrics"}
	old := map[rest.Resource]bool{rest.Pods: true, rest.Deployments: true, metrics: true, nodeMetrics: true}
	groupErr := &rest.GroupDiscoveryError{Groups: map[string]error{"metrics.k8s.io/v1beta1": errors.New("503")}}
	for _, tc := range []struct {
		name string
		err  error
		keep func(rest.Resource) bool
		want []rest.Resource
	}{
		{"synced only", groupErr, func(r rest.Resource) bool { return r == metrics }, []rest.Resource{rest.Pods, metrics}},
		{"all of the group", groupErr, nil, []rest.Resource{rest.Pods, metrics, nodeMetrics}},
		{"wrapped", fmt.Errorf("discovery: %w", groupErr), nil, []rest.Resource{rest.Pods, metrics, nodeMetrics}},
		{"no group named", errors.New("connection refused"), nil, []rest.Resource{rest.Pods}},
		{"no error", nil, nil, []rest.Resource{rest.Pods}},
	} {
		next := map[rest.Resource]bool{rest.Pods: true}
		KeepFailedGroups(next, old, tc.err, tc.keep)
		want := map[rest.Resource]bool{}
		for _, r := range tc.want {
			want[r] = true
		}
		if !maps.Equal(next, want) {
			t.Errorf("%s: kept %v, want %v", tc.name, next, tc.want)
		}
	}
}

// TestDiff: what a resync adds and removes, sorted by name.
func TestDiff(t *testing.T) {
	old := map[rest.Resource]bool{rest.Pods: true, rest.Deployments: true, rest.ConfigMaps: true}
	next := map[rest.Resource]bool{rest.Pods: true, rest.Secrets: true, rest.Services: true}
	added, removed := Diff(old, next)
	if !slices.Equal(added, []string{"secrets.v1", "services.v1"}) || !slices.Equal(removed, []string{"configmaps.v1", "deployments.v1.apps"}) {
		t.Errorf("added %v, removed %v", added, removed)
	}
	if added, removed := Diff(old, old); added != nil || removed != nil {
		t.Errorf("no change: added %v, removed %v", added, removed)
	}
}
