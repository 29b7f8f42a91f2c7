package difftest

import (
	"context"
	"fmt"
	"strings"

	"github.com/kcmlab/kcm/kube/rest"
)

// gcReplicas is the size of the Deployment the deletion scenarios delete.
const gcReplicas = 2

// DeletionScenario creates a Deployment of 2, drives it until complete
// (so the ReplicaSet and pods exist, made by the controllers under test),
// then deletes it with the propagation policy and waits for the end state
// the garbage collector must reach:
//
//   - Background and Foreground: the Deployment, its ReplicaSet and its
//     pods all gone;
//   - Orphan: the Deployment gone; its ReplicaSet kept, without
//     ownerReferences, with its pods, still owned by the ReplicaSet.
//
// The objects left and the order of the deletions (by kind, in the
// "delete" phase) are compared between the managers.
func DeletionScenario(policy string) Scenario {
	return Scenario{
		Name:             "gc-" + strings.ToLower(policy),
		Record:           workloadResources,
		CompareDeletions: true,
		Run: func(ctx context.Context, env *Env) error {
			deps := deployments(env)
			d, err := deps.Create(ctx, newDeployment(gcReplicas, rollingStrategy("25%", "25%")))
			if err != nil {
				return err
			}
			if err := DriveUntilComplete(ctx, env, deploymentName, d.Generation, AllAtOnce); err != nil {
				return err
			}
			env.Observer.SetPhase("delete")
			if err := deps.Delete(ctx, deploymentName, rest.DeleteOptions{PropagationPolicy: policy}); err != nil {
				return fmt.Errorf("delete the Deployment with propagationPolicy %s: %w", policy, err)
			}
			if policy == rest.PropagationOrphan {
				return env.Observer.WaitFor(ctx, "the Deployment gone, its ReplicaSet and pods orphaned", orphaned)
			}
			return env.Observer.WaitFor(ctx, "the Deployment, its ReplicaSet and its pods gone", func(v View) bool {
				return len(v.Deployments)+len(v.ReplicaSets)+len(v.Pods) == 0
			})
		},
	}
}

// orphaned: no Deployment; one ReplicaSet without ownerReferences, with
// its pods, each controlled by it.
func orphaned(v View) bool {
	if len(v.Deployments) != 0 || len(v.ReplicaSets) != 1 || len(v.Pods) != gcReplicas {
		return false
	}
	for _, rs := range v.ReplicaSets {
		if len(rs.OwnerReferences) != 0 {
			return false
		}
		for _, p := range v.Pods {
			if ref := p.ControllerRef(); ref == nil || ref.UID != rs.UID {
				return false
			}
		}
	}
	return true
}
