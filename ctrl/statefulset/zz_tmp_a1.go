package statefulset

import (
	"context"

	"github.com/kcmlab/kcm/kube/api"
)

// Stand-in of A2's podControl (control.go) until wt-sts-control is merged.
type podControl interface {
	CreateStatefulPod(ctx context.Context, set *api.StatefulSet, pod *api.Pod) error
	UpdateStatefulPod(ctx context.Context, set *api.StatefulSet, pod *api.Pod) error
	DeleteStatefulPod(ctx context.Context, set *api.StatefulSet, pod *api.Pod) error
	ClaimsMatchRetentionPolicy(ctx context.Context, set *api.StatefulSet, pod *api.Pod) (bool, error)
	UpdatePodClaimForRetentionPolicy(ctx context.Context, set *api.StatefulSet, pod *api.Pod) error
	PodClaimIsStale(set *api.StatefulSet, pod *api.Pod) (bool, error)
	CreateMissingPersistentVolumeClaims(ctx context.Context, set *api.StatefulSet, pod *api.Pod) error
}
