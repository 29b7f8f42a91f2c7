package statefulset

// Temporary stand-ins of the contract signatures of A1 (wt-sts-pods) and
// A2 (wt-sts-control), so that A3's files compile before their branches
// are merged. Deleted at the merge.

import (
	"context"
	"time"

	"github.com/rs/zerolog"

	"github.com/kcmlab/kcm/ctrl"
	"github.com/kcmlab/kcm/informer"
	"github.com/kcmlab/kcm/kube/api"
	"github.com/kcmlab/kcm/kube/rest"
)

type podControl interface {
	CreateStatefulPod(ctx context.Context, set *api.StatefulSet, pod *api.Pod) error
	UpdateStatefulPod(ctx context.Context, set *api.StatefulSet, pod *api.Pod) error
	DeleteStatefulPod(ctx context.Context, set *api.StatefulSet, pod *api.Pod) error
	ClaimsMatchRetentionPolicy(ctx context.Context, set *api.StatefulSet, pod *api.Pod) (bool, error)
	UpdatePodClaimForRetentionPolicy(ctx context.Context, set *api.StatefulSet, pod *api.Pod) error
	PodClaimIsStale(set *api.StatefulSet, pod *api.Pod) (bool, error)
	CreateMissingPersistentVolumeClaims(ctx context.Context, set *api.StatefulSet, pod *api.Pod) error
}

type statefulPodControl struct{}

func newPodControl(*rest.Client, informer.PodLister, informer.PersistentVolumeClaimLister, ctrl.EventRecorder, zerolog.Logger) *statefulPodControl {
	return &statefulPodControl{}
}

func (*statefulPodControl) CreateStatefulPod(context.Context, *api.StatefulSet, *api.Pod) error {
	return nil
}

func (*statefulPodControl) UpdateStatefulPod(context.Context, *api.StatefulSet, *api.Pod) error {
	return nil
}

func (*statefulPodControl) DeleteStatefulPod(context.Context, *api.StatefulSet, *api.Pod) error {
	return nil
}

func (*statefulPodControl) ClaimsMatchRetentionPolicy(context.Context, *api.StatefulSet, *api.Pod) (bool, error) {
	return true, nil
}

func (*statefulPodControl) UpdatePodClaimForRetentionPolicy(context.Context, *api.StatefulSet, *api.Pod) error {
	return nil
}
func (*statefulPodControl) PodClaimIsStale(*api.StatefulSet, *api.Pod) (bool, error) { return false, nil }
func (*statefulPodControl) CreateMissingPersistentVolumeClaims(context.Context, *api.StatefulSet, *api.Pod) error {
	return nil
}

func isMemberOf(set *api.StatefulSet, pod *api.Pod) bool {
	parent, _, ok := stringsCutLast(pod.Name)
	return ok && parent == set.Name
}

func stringsCutLast(name string) (string, string, bool) {
	for i := len(name) - 1; i >= 0; i-- {
		if name[i] == '-' {
			return name[:i], name[i+1:], true
		}
	}
	return "", "", false
}

type revisionControl struct{}

func newRevisionControl(*rest.Client, informer.ControllerRevisionLister, zerolog.Logger) *revisionControl {
	return &revisionControl{}
}

type setMetrics interface {
	SetMaxUnavailable(namespace, name, policy string, v int)
	SetUnavailableReplicas(namespace, name, policy string, v int)
	Forget(namespace, name string)
}

type setControl struct{}

type controlConfig struct {
	Pods      podControl
	Revisions *revisionControl
	SetClient *rest.Resources[*api.StatefulSet]
	Recorder  ctrl.EventRecorder
	Metrics   setMetrics
	Log       zerolog.Logger
}

func newSetControl(controlConfig) *setControl { return &setControl{} }

func (*setControl) UpdateStatefulSet(context.Context, *api.StatefulSet, []*api.Pod, time.Time) (*api.StatefulSetStatus, error) {
	return &api.StatefulSetStatus{}, nil
}

func (*setControl) ListRevisions(*api.StatefulSet) ([]*api.ControllerRevision, error) { return nil, nil }

func (*setControl) AdoptOrphanRevisions(context.Context, *api.StatefulSet, []*api.ControllerRevision) error {
	return nil
}
