package statefulset

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/rs/zerolog"

	"github.com/kcmlab/kcm/ctrl"
	"github.com/kcmlab/kcm/ctrl/history"
	"github.com/kcmlab/kcm/informer"
	"github.com/kcmlab/kcm/kube/api"
	"github.com/kcmlab/kcm/kube/rest"
)

// podControl makes the API calls on a StatefulSet's pods and claims
// (upstream's StatefulPodControl); *statefulPodControl implements it. The
// pod given to Update and Delete is a copy the control may modify; the
// pod given to Create is newVersionedStatefulSetPod's, unmodified. Its
// methods may be called concurrently (Parallel sets).
type podControl interface {
	CreateStatefulPod(ctx context.Context, set *api.StatefulSet, pod *api.Pod) error
	UpdateStatefulPod(ctx context.Context, set *api.StatefulSet, pod *api.Pod) error
	DeleteStatefulPod(ctx context.Context, set *api.StatefulSet, pod *api.Pod) error
	ClaimsMatchRetentionPolicy(ctx context.Context, set *api.StatefulSet, pod *api.Pod) (bool, error)
	UpdatePodClaimForRetentionPolicy(ctx context.Context, set *api.StatefulSet, pod *api.Pod) error
	PodClaimIsStale(set *api.StatefulSet, pod *api.Pod) (bool, error)
	CreateMissingPersistentVolumeClaims(ctx context.Context, set *api.StatefulSet, pod *api.Pod) error
}

// setMetrics are the StatefulSet gauges of the MaxUnavailableStatefulSet
// feature (statefulset_max_unavailable, statefulset_unavailable_replicas),
// labelled namespace, name and pod management policy. Implemented with
// Prometheus by the controller; nil is allowed (nothing recorded).
type setMetrics interface {
	SetMaxUnavailable(namespace, name, policy string, v int)
	SetUnavailableReplicas(namespace, name, policy string, v int)
	Forget(namespace, name string)
}

// noMetrics records nothing.
type noMetrics struct{}

func (noMetrics) SetMaxUnavailable(string, string, string, int)      {}
func (noMetrics) SetUnavailableReplicas(string, string, string, int) {}
func (noMetrics) Forget(string, string)                              {}

// controlConfig is what setControl works with.
type controlConfig struct {
	Pods      podControl
	Revisions *revisionControl
	// SetClient writes status (UpdateStatus).
	SetClient *rest.Resources[*api.StatefulSet]
	// Sets, when set, is the StatefulSet cache a status write re-reads the
	// set from after a failed try (upstream's status updater); nil: the
	// set is read from the apiserver instead.
	Sets *informer.StatefulSetLister
	// Consistency, when set, records each status write (the stale-cache
	// rule: the status updater's WroteAt).
	Consistency *ctrl.Consistency
	Recorder    ctrl.EventRecorder
	Metrics     setMetrics // may be nil
	Log         zerolog.Logger
}

// setControl is the statefulset controller's control loop for one set
// (upstream's defaultStatefulSetControl): revisions, pods, status,
// history. Safe for concurrent use on different sets.
type setControl struct {
	pods        podControl
	revisions   *revisionControl
	sets        *rest.Resources[*api.StatefulSet]
	setCache    *informer.StatefulSetLister
	consistency *ctrl.Consistency
	recorder    ctrl.EventRecorder
	metrics     setMetrics
	log         zerolog.Logger
	equality    *revisionEqualityCache
	waitFor     func(context.Context, time.Duration) error // status conflict backoff; tests replace it
}

func newSetControl(cfg controlConfig) *setControl {
	c := &setControl{pods: cfg.Pods, revisions: cfg.Revisions, sets: cfg.SetClient, setCache: cfg.Sets,
		consistency: cfg.Consistency, recorder: cfg.Recorder, metrics: cfg.Metrics, log: cfg.Log,
		equality: newRevisionEqualityCache(maxRevisionEqualityCacheEntries), waitFor: sleepFor}
	if c.metrics == nil {
		c.metrics = noMetrics{}
	}
	if c.recorder == nil {
		c.recorder = ctrl.NopRecorder{}
	}
	return c
}

// UpdateStatefulSet brings set's pods towards its spec and records its
// status (upstream's UpdateStatefulSet): it lists and sorts set's
// revisions, finds or creates the current and update revisions, creates,
// updates and deletes pods (updateStatefulSet), writes the status when it
// changed, and trims the revision history, also after a failure. It
// returns the status written (nil on failure). set and pods are the
// cache's and are not modified.
func (c *setControl) UpdateStatefulSet(ctx context.Context, set *api.StatefulSet, pods []*api.Pod, now time.Time) (*api.StatefulSetStatus, error) {
	revisions, err := c.ListRevisions(set)
	if err != nil {
		return nil, err
	}
	history.SortControllerRevisions(revisions)
	current, update, status, err := c.performUpdate(ctx, set, pods, revisions, now)
	if err != nil {
		return nil, errors.Join(err, c.truncateHistory(ctx, set, pods, revisions, current, update))
	}
	return status, c.truncateHistory(ctx, set, pods, revisions, current, update)
}

// performUpdate finds the revisions, runs updateStatefulSet and writes
// the status it computed, even when the pods' work failed.
func (c *setControl) performUpdate(ctx context.Context, set *api.StatefulSet, pods []*api.Pod,
	revisions []*api.ControllerRevision, now time.Time) (current, update *api.ControllerRevision, _ *api.StatefulSetStatus, _ error) {
	current, update, collisionCount, err := c.getStatefulSetRevisions(ctx, set, revisions)
	if err != nil {
		return current, update, nil, err
	}
	status, err := c.updateStatefulSet(ctx, set, current, update, collisionCount, pods, now)
	if err != nil && status == nil {
		return current, update, nil, err
	}
	statusErr := c.updateStatefulSetStatus(ctx, set, status)
	if statusErr == nil {
		c.log.Debug().Str("statefulSet", set.Key()).Int32("replicas", status.Replicas).Int32("readyReplicas", status.ReadyReplicas).
			Int32("currentReplicas", status.CurrentReplicas).Int32("updatedReplicas", status.UpdatedReplicas).Msg("updated status")
	}
	switch {
	case err != nil && statusErr != nil:
		c.log.Error().Err(statusErr).Str("statefulSet", set.Key()).Msg("could not update status")
		return current, update, status, err
	case err != nil:
		return current, update, status, err
	case statusErr != nil:
		return current, update, status, statusErr
	}
	c.log.Debug().Str("statefulSet", set.Key()).Str("currentRevision", status.CurrentRevision).
		Str("updateRevision", status.UpdateRevision).Msg("statefulset revisions")
	return current, update, status, nil
}

// ListRevisions returns set's revisions from the cache: those matching its
// selector that it controls or that have no controller.
func (c *setControl) ListRevisions(set *api.StatefulSet) ([]*api.ControllerRevision, error) {
	return c.revisions.list(set)
}

// AdoptOrphanRevisions makes set the controller of each of revisions,
// which have none, replacing each entry with the adopted revision; the
// first failure ends it.
func (c *setControl) AdoptOrphanRevisions(ctx context.Context, set *api.StatefulSet, revisions []*api.ControllerRevision) error {
	for i := range revisions {
		adopted, err := c.revisions.adopt(ctx, set, revisions[i])
		if err != nil {
			return err
		}
		revisions[i] = adopted
	}
	return nil
}

// desiredReplicaCount is spec.replicas, 1 (the API's default) when unset.
func desiredReplicaCount(set *api.StatefulSet) int {
	if set.Spec.Replicas == nil {
		return 1
	}
	return int(*set.Spec.Replicas)
}

// writableCopy is a copy of a cached pod that a pod control may modify.
func writableCopy(pod *api.Pod) (*api.Pod, error) {
	cp, err := api.DeepCopy(pod)
	if err != nil {
		return nil, fmt.Errorf("copying pod %s: %w", pod.Key(), err)
	}
	return cp, nil
}
