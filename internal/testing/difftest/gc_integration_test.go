//go:build !nocluster

package difftest

import (
	"context"
	"slices"
	"testing"
	"time"

	"github.com/kcmlab/kcm/ctrl"
	"github.com/kcmlab/kcm/ctrl/garbagecollector"
	"github.com/kcmlab/kcm/kube/rest"
)

// kcmGarbageCollector is kube-controller-manager v1.37's name of the
// garbage collector.
const kcmGarbageCollector = "garbage-collector-controller"

// gcAllowances are the deliberate differences between kcm's garbage
// collector and kube-controller-manager's in these scenarios. None.
var gcAllowances []Allowance

// TestGarbageCollectorMatchesKCM deletes a Deployment made by the
// Deployment and ReplicaSet controllers with each propagation policy,
// under kcm (serviceaccount, replicaset, deployment and garbage-collector
// controllers) and under kube-controller-manager (the same four), each on
// a fresh cluster, and requires the same objects at the end and the same
// order of deletions: Background — Deployment, ReplicaSet, pods;
// Foreground — pods, ReplicaSet, Deployment; Orphan — the Deployment
// only.
func TestGarbageCollectorMatchesKCM(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 6*time.Minute)
	defer cancel()
	scenarios := []Scenario{DeletionScenario(rest.PropagationBackground), DeletionScenario(rest.PropagationForeground),
		DeletionScenario(rest.PropagationOrphan)}
	kcm := &InProcess{Descriptors: func() []*ctrl.ControllerDescriptor {
		return append(kcmControllers(), garbagecollector.Descriptor())
	}}
	ref := &KubeControllerManager{Controllers: []string{kcmDeployment, kcmReplicaSet, kcmServiceAccount, kcmGarbageCollector}}
	ra := record(ctx, t, kcm, scenarios...)
	rb := record(ctx, t, ref, scenarios...)
	compare(t, kcm, ref, ra, rb, gcAllowances, scenarios...)
	want := map[string][]string{
		"gc-background": {"[delete] Deployment", "[delete] ReplicaSet", "[delete] Pod", "[delete] Pod"},
		"gc-foreground": {"[delete] Pod", "[delete] Pod", "[delete] ReplicaSet", "[delete] Deployment"},
		"gc-orphan":     {"[delete] Deployment"},
	}
	for name, w := range want {
		for side, r := range map[string]map[string]*Recording{"kcm": ra, "kube-controller-manager": rb} {
			if got := deletionKinds(r[name].Timeline); !slices.Equal(got, w) {
				t.Errorf("%s under %s: deletions %v, want %v", name, side, got, w)
			}
		}
	}
}
