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
