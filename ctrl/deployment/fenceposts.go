package deployment

import (
	"fmt"
	"math"
	"strconv"

	"github.com/kcmlab/kcm/kube/api"
)

// A rolling update keeps the number of pods between two fenceposts around
// spec.replicas: at most replicas+maxSurge pods exist, and at least
// replicas-maxUnavailable are available. Both bounds are counts or
// percentages of spec.replicas.

// ResolveFenceposts turns maxSurge and maxUnavailable into counts for
// desired replicas (Kubernetes' deploymentutil.ResolveFenceposts): a
// percentage of surge rounds up, one of unavailability rounds down, so
// that a small Deployment can still move; a nil bound is 0; and when both
// come to 0 unavailability is 1, or the rollout could never start.
func ResolveFenceposts(maxSurge, maxUnavailable *api.IntOrString, desired int32) (surge, unavailable int32, err error) {
	s, err := scaled(maxSurge, desired, true)
	if err != nil {
		return 0, 0, fmt.Errorf("maxSurge: %w", err)
	}
	u, err := scaled(maxUnavailable, desired, false)
	if err != nil {
		return 0, 0, fmt.Errorf("maxUnavailable: %w", err)
	}
	if s == 0 && u == 0 {
		u = 1
	}
	return int32(s), int32(u), nil
}

func scaled(v *api.IntOrString, total int32, roundUp bool) (int, error) {
	if v == nil {
		return 0, nil
	}
	return v.ScaledValue(int(total), roundUp)
}

// replicasOf reads an optional replica count; the apiserver defaults a
// missing one to 1.
func replicasOf(p *int32) int32 {
	if p == nil {
		return 1
	}
	return *p
}

// desired is the Deployment's spec.replicas.
func desired(d *api.Deployment) int32 { return replicasOf(d.Spec.Replicas) }

// specReplicas is a ReplicaSet's spec.replicas; nil (never seen from the
// apiserver, which defaults it) counts as 0 for a nil ReplicaSet.
func specReplicas(rs *api.ReplicaSet) int32 {
	if rs == nil {
		return 0
	}
	return replicasOf(rs.Spec.Replicas)
}

// isRollingUpdate reports whether d uses the RollingUpdate strategy.
func isRollingUpdate(d *api.Deployment) bool {
	return d.Spec.Strategy.Type == api.RollingUpdateDeploymentStrategyType
}

func rollingParams(d *api.Deployment) (maxSurge, maxUnavailable *api.IntOrString) {
	if ru := d.Spec.Strategy.RollingUpdate; ru != nil {
		return ru.MaxSurge, ru.MaxUnavailable
	}
	return nil, nil
}

// MaxSurge is how many pods above spec.replicas a rolling update may run
// (0 for Recreate). A bound that does not parse counts as 0, as in
// Kubernetes (the apiserver's validation rejects such bounds anyway).
func MaxSurge(d *api.Deployment) int32 {
	if !isRollingUpdate(d) {
		return 0
	}
	s, u := rollingParams(d)
	surge, _, _ := ResolveFenceposts(s, u, desired(d))
	return surge
}

// MaxUnavailable is how many of spec.replicas may be unavailable during a
// rolling update, never more than spec.replicas (0 for Recreate and for a
// Deployment scaled to 0).
func MaxUnavailable(d *api.Deployment) int32 {
	if !isRollingUpdate(d) || desired(d) == 0 {
		return 0
	}
	s, u := rollingParams(d)
	_, unavailable, _ := ResolveFenceposts(s, u, desired(d))
	return min(unavailable, desired(d))
}

// NewRSNewReplicas is the size the new ReplicaSet may grow to now
// (Kubernetes' NewRSNewReplicas): for RollingUpdate, as far as the surge
// fencepost allows — total pods at most replicas+maxSurge — and never
// beyond spec.replicas; for Recreate, spec.replicas at once.
func NewRSNewReplicas(d *api.Deployment, allRSs []*api.ReplicaSet, newRS *api.ReplicaSet) (int32, error) {
	switch d.Spec.Strategy.Type {
	case api.RollingUpdateDeploymentStrategyType:
		s, _ := rollingParams(d)
		surge, err := scaled(s, desired(d), true)
		if err != nil {
			return 0, fmt.Errorf("maxSurge: %w", err)
		}
		current := totalSpecReplicas(allRSs)
		maxTotal := desired(d) + int32(surge)
		if current >= maxTotal {
			return specReplicas(newRS), nil // at the surge fencepost: wait
		}
		up := min(maxTotal-current, desired(d)-specReplicas(newRS))
		return specReplicas(newRS) + up, nil
	case api.RecreateDeploymentStrategyType:
		return desired(d), nil
	default:
		return 0, fmt.Errorf("%w: %q", ErrUnknownStrategy, d.Spec.Strategy.Type)
	}
}

// IsSaturated reports whether rs runs the whole Deployment: sized to
// spec.replicas, annotated with it, and every replica available.
func IsSaturated(d *api.Deployment, rs *api.ReplicaSet) bool {
	if rs == nil {
		return false
	}
	want, err := strconv.Atoi(rs.Annotations[DesiredReplicasAnnotation])
	if err != nil {
		return false
	}
	return specReplicas(rs) == desired(d) && int32(want) == desired(d) && rs.Status.AvailableReplicas == desired(d)
}

// hasProgressDeadline reports whether d's progress is tracked: a deadline
// is set and is not MaxInt32 (the "never" value).
func hasProgressDeadline(d *api.Deployment) bool {
	return d.Spec.ProgressDeadlineSeconds != nil && *d.Spec.ProgressDeadlineSeconds != math.MaxInt32
}

// hasRevisionHistoryLimit reports whether old ReplicaSets are cleaned up.
func hasRevisionHistoryLimit(d *api.Deployment) bool {
	return d.Spec.RevisionHistoryLimit != nil && *d.Spec.RevisionHistoryLimit != math.MaxInt32
}
