//go:build !nocluster

package difftest

import (
	"context"
	"slices"
	"testing"
	"time"
)

// workloadAllowances are the deliberate differences between kcm's
// workload controllers and kube-controller-manager's, each with its
// reason. None yet.
var workloadAllowances []Allowance

// TestWorkloadsMatchKCM runs the scale, rolling-update, Recreate,
// stalled-rollout and rejected-template scenarios under kcm (kcmControllers) and under kube-controller-manager
// (deployment, replicaset and serviceaccount controllers), each on a
// fresh cluster, and requires the same objects at the end, the same
// sequence of ReplicaSet scaling decisions, and the strategies'
// invariants at every step of both rollouts.
func TestWorkloadsMatchKCM(t *testing.T) {
	var names []string
	for _, d := range kcmControllers() {
		names = append(names, d.Name)
		names = append(names, d.Aliases...)
	}
	for _, want := range []string{kcmReplicaSet, kcmDeployment} {
		if !slices.Contains(names, want) {
			t.Fatalf("kcmControllers() lacks %s (has %v): add its descriptor before running the workload comparison", want, names)
		}
	}
	ctx, cancel := context.WithTimeout(context.Background(), 4*time.Minute)
	defer cancel()
	scenarios := []Scenario{ScaleScenario(), RollingUpdateScenario(), RecreateScenario(), StalledRolloutScenario(), RejectedTemplateScenario()}
	kcm := &InProcess{Descriptors: kcmControllers}
	ref := &KubeControllerManager{Controllers: []string{kcmDeployment, kcmReplicaSet, kcmServiceAccount}}
	ra := record(ctx, t, kcm, scenarios...)
	rb := record(ctx, t, ref, scenarios...)
	compare(t, kcm, ref, ra, rb, workloadAllowances, scenarios...)
}
