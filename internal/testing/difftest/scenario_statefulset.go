package difftest

import (
	"context"
	"fmt"

	"github.com/kcmlab/kcm/kube/api"
)

// The StatefulSet scenarios (issue 30's differential test). Each names
// the Kubernetes rule it exercises (pkg/controller/statefulset,
// stateful_set_control.go, v1.37.2); the driver is statefulset_driver.go.

// StatefulSetScenarios are the scenarios TestStatefulSetMatchesKCM runs.
func StatefulSetScenarios() []Scenario {
	return []Scenario{OrderedScaleScenario(), ParallelScaleScenario(), PartitionScenario(), OnDeleteScenario(),
		ClaimRetentionScenario(), ClaimOwnerScenario()}
}

// noClaims: the scenario's set has no volumeClaimTemplates.
const noClaims = -1

// OrderedScaleScenario scales an OrderedReady set 0 → 3 → 5 → 1. The rule:
// with OrderedReady, pods are created one at a time in ascending ordinal
// order, each only once its predecessors are Running and Ready, and deleted
// one at a time in descending order, each only once its successors are
// gone (updateStatefulSet's monotonic processing, processCondemned). Every
// create and delete is compared in order.
func OrderedScaleScenario() Scenario {
	return statefulSetScenario("sts-ordered-scale", true, func(ctx context.Context, d *setDriver) error {
		if err := d.create(ctx, newStatefulSet(setName, 0, api.OrderedReadyPodManagement), setGoal{0, 0, noClaims}); err != nil {
			return err
		}
		for _, n := range []int32{3, 5, 1} {
			if err := d.patch(ctx, fmt.Sprintf("scale to %d", n), setName, fmt.Sprintf(`{"spec":{"replicas":%d}}`, n),
				setGoal{n, n, noClaims}); err != nil {
				return err
			}
		}
		return nil
	})
}

// ParallelScaleScenario scales a Parallel set 0 → 5 → 2. The rule: with
// Parallel, the controller creates every missing pod and deletes every
// condemned pod without waiting for any to be Ready or gone (allowsBurst);
// the order within a phase is not defined, so each phase's steps are
// compared as a set.
func ParallelScaleScenario() Scenario {
	return statefulSetScenario("sts-parallel-scale", false, func(ctx context.Context, d *setDriver) error {
		if err := d.create(ctx, newStatefulSet(setName, 0, api.ParallelPodManagement), setGoal{0, 0, noClaims}); err != nil {
			return err
		}
		for _, n := range []int32{5, 2} {
			if err := d.patch(ctx, fmt.Sprintf("scale to %d", n), setName, fmt.Sprintf(`{"spec":{"replicas":%d}}`, n),
				setGoal{n, n, noClaims}); err != nil {
				return err
			}
		}
		return nil
	})
}

// PartitionScenario rolls a set of 5 to ImageV2 with partition 3, then
// lowers the partition to 0. The rule: a RollingUpdate replaces pods from
// the highest ordinal down, one at a time (maxUnavailable 1), waiting for
// each replacement to be Ready; pods with an ordinal below the partition
// keep the current revision, and are recreated at it if deleted. With
// partition 3, pods 4 and 3 move; with 0, pods 2, 1 and 0; then the update
// revision becomes current. The steps say which ordinal got which
// controller-revision-hash, in order; the ControllerRevisions (names,
// numbers, data) are compared as objects.
func PartitionScenario() Scenario {
	return statefulSetScenario("sts-partition", true, func(ctx context.Context, d *setDriver) error {
		if err := d.create(ctx, newStatefulSet(setName, 5, api.OrderedReadyPodManagement), setGoal{5, 5, noClaims}); err != nil {
			return err
		}
		patch := fmt.Sprintf(`{"spec":{"updateStrategy":{"type":"RollingUpdate","rollingUpdate":{"partition":3}},`+
			`"template":{"spec":{"containers":[{"name":"web","image":%q}]}}}}`, ImageV2)
		if err := d.patch(ctx, "image v2, partition 3", setName, patch, setGoal{5, 2, noClaims}); err != nil {
			return err
		}
		return d.patch(ctx, "partition 0", setName, `{"spec":{"updateStrategy":{"rollingUpdate":{"partition":0}}}}`,
			setGoal{5, 5, noClaims})
	})
}

// OnDeleteScenario changes the template of a set of 3 with the OnDelete
// strategy, then deletes pod web-1. The rule: with OnDelete the controller
// makes the new revision the update revision but replaces no pod; a pod
// that is deleted is recreated from the update revision (in
// updateStatefulSet, the pod for an ordinal at or above the partition —
// every ordinal, for OnDelete — is made from updateSet).
func OnDeleteScenario() Scenario {
	return statefulSetScenario("sts-ondelete", true, func(ctx context.Context, d *setDriver) error {
		set := newStatefulSet(setName, 3, api.OrderedReadyPodManagement)
		set.Spec.UpdateStrategy = api.StatefulSetUpdateStrategy{Type: api.OnDeleteStatefulSetStrategyType}
		if err := d.create(ctx, set, setGoal{3, 3, noClaims}); err != nil {
			return err
		}
		if err := d.patch(ctx, "image v2", setName, imagePatch(ImageV2), setGoal{3, 0, noClaims}); err != nil {
			return err
		}
		if err := d.deletePod(ctx, "delete web-1", setName+"-1"); err != nil {
			return err
		}
		return d.settle(ctx, "delete web-1", setName, 0, setGoal{3, 1, noClaims})
	})
}

// ClaimRetentionScenario makes a set of 4 with two volumeClaimTemplates
// ("data" and "logs") and persistentVolumeClaimRetentionPolicy whenScaled
// Delete, whenDeleted Retain, and scales it to 2. The rules: claims
// <template>-<set>-<ordinal> are created before their pod, with the set's
// selector labels; with whenScaled Delete the controller makes each
// condemned pod the owner of its claims before deleting it
// (updateClaimOwnerRefForSetAndPod), and the garbage collector deletes the
// claims once the pod is gone; the claims of the remaining ordinal are
// kept, with the owners Kubernetes gives them. Both sides run their
// garbage collector. Two templates exercise the volume order that
// normalizeStatefulSetPod evens out (two pods are left to compare).
func ClaimRetentionScenario() Scenario {
	return statefulSetScenario("sts-claim-retention", true, func(ctx context.Context, d *setDriver) error {
		set := withClaims(newStatefulSet(setName, 4, api.OrderedReadyPodManagement), "data", "logs")
		set.Spec.PersistentVolumeClaimRetentionPolicy = &api.StatefulSetPersistentVolumeClaimRetentionPolicy{
			WhenDeleted: api.RetainPersistentVolumeClaimRetentionPolicyType,
			WhenScaled:  api.DeletePersistentVolumeClaimRetentionPolicyType,
		}
		if err := d.create(ctx, set, setGoal{4, 4, 8}); err != nil {
			return err
		}
		return d.patch(ctx, "scale to 2", setName, `{"spec":{"replicas":2}}`, setGoal{2, 2, 4})
	})
}

// ClaimOwnerScenario makes a set of 2 with a claim template and
// persistentVolumeClaimRetentionPolicy whenDeleted Delete, whenScaled
// Retain, scales it to 1, then deletes the set. The rules: with
// whenDeleted Delete the controller makes the set an owner of every claim
// (updateClaimOwnerRefForSetAndPod), so a claim of a scaled-away ordinal
// stays (whenScaled Retain) but goes with the set; deleting the set
// (background propagation) lets the garbage collector delete its pods and
// all its claims.
func ClaimOwnerScenario() Scenario {
	return statefulSetScenario("sts-claim-owner", true, func(ctx context.Context, d *setDriver) error {
		set := withClaims(newStatefulSet(setName, 2, api.OrderedReadyPodManagement), "data")
		set.Spec.PersistentVolumeClaimRetentionPolicy = &api.StatefulSetPersistentVolumeClaimRetentionPolicy{
			WhenDeleted: api.DeletePersistentVolumeClaimRetentionPolicyType,
			WhenScaled:  api.RetainPersistentVolumeClaimRetentionPolicyType,
		}
		if err := d.create(ctx, set, setGoal{2, 2, 2}); err != nil {
			return err
		}
		if err := d.patch(ctx, "scale to 1", setName, `{"spec":{"replicas":1}}`, setGoal{1, 1, 2}); err != nil {
			return err
		}
		return d.deleteSet(ctx, "delete the set", setName)
	})
}
