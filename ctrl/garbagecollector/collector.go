package garbagecollector

import (
	"math/rand/v2"

	"github.com/rs/zerolog"

	"github.com/kcmlab/kcm/clock"
	"github.com/kcmlab/kcm/ctrl"
	"github.com/kcmlab/kcm/kube/api"
	"github.com/kcmlab/kcm/processor"
)

// Queue is the part of a work queue the collector adds to.
type Queue interface {
	Add(key string)
	AddRateLimited(key string)
}

// Config holds what a Collector needs besides its client.
type Config struct {
	// Clock paces the retries of finalizer removal; nil means real.
	Clock clock.Clock
	// Logger gets the collector's decisions at debug level and its
	// failures.
	Logger zerolog.Logger
	// Recorder records OwnerRefInvalidNamespace; nil records nothing.
	Recorder ctrl.EventRecorder
	// OrphanParallelism bounds how many dependents of one owner are
	// patched at once when orphaning; 0 means all at once, one goroutine
	// each, as Kubernetes does (the client's rate limiter paces them).
	OrphanParallelism int
}

// Collector is the garbage collector's state and its two sync functions
// (Kubernetes' GarbageCollector without its goroutines): the graph, the
// cache of absent owners, the kind-to-resource mapping, and the two
// queues the graph's effects go to. It has no goroutines of its own: the
// informers' handlers feed the graph through Handler, and two ctrl.Loops
// run AttemptToDelete and AttemptToOrphan (see GarbageCollector).
type Collector struct {
	graph    *Graph
	absent   *absentOwners
	mapper   *mapper
	api      ObjectAPI
	recorder ctrl.EventRecorder
	clock    clock.Clock
	log      zerolog.Logger
	jitter   func() float64
	// orphanParallelism is Config.OrphanParallelism.
	orphanParallelism int

	deleteQ, orphanQ Queue
}

// NewCollector returns a collector acting through objects, whose graph's
// effects go to the two queues.
func NewCollector(objects ObjectAPI, deleteQ, orphanQ Queue, cfg Config) *Collector {
	if cfg.Clock == nil {
		cfg.Clock = clock.Real{}
	}
	if cfg.Recorder == nil {
		cfg.Recorder = ctrl.NopRecorder{}
	}
	return &Collector{
		graph: NewGraph(), absent: newAbsentOwners(absentCacheSize), mapper: &mapper{},
		api: objects, recorder: cfg.Recorder, clock: cfg.Clock, log: cfg.Logger, jitter: rand.Float64,
		orphanParallelism: cfg.OrphanParallelism, deleteQ: deleteQ, orphanQ: orphanQ,
	}
}

// Graph returns the collector's dependency graph (read it; Apply is the
// collector's).
func (c *Collector) Graph() *Graph { return c.graph }

// Apply feeds one change to the graph and carries out its effects:
// absent owners are remembered, events recorded, nodes queued.
func (c *Collector) Apply(ch Change) {
	c.do(c.graph.Apply(ch))
}

func (c *Collector) do(e Effects) {
	for _, r := range e.Absent {
		c.absent.add(r)
	}
	for _, inv := range e.Invalid {
		d := inv.Dependent
		c.log.Info().Stringer("item", d).Stringer("owner", inv.Owner).Msg("item references an owner but does not match namespaces")
		c.recorder.Eventf(api.ObjectReference{Kind: d.Kind, APIVersion: d.APIVersion, Namespace: d.Namespace, Name: d.Name, UID: d.UID},
			api.EventTypeWarning, "OwnerRefInvalidNamespace", "ownerRef %s does not exist in namespace %q", inv.Owner, d.Namespace)
	}
	for _, uid := range e.AttemptToDelete {
		c.deleteQ.Add(uid)
	}
	for _, uid := range e.AttemptToDeleteLater {
		c.deleteQ.AddRateLimited(uid)
	}
	for _, uid := range e.AttemptToOrphan {
		c.orphanQ.Add(uid)
	}
}

// Handler returns the informer handler of one resource: each
// notification becomes a Change of the resource's apiVersion and kind
// (objects from lists and watches do not carry them). A tombstone's
// object is the last state the cache knew, which is all the graph needs.
func (c *Collector) Handler(apiVersion, kind string) processor.Handler[*api.RawObject] {
	return processor.HandlerFuncs[*api.RawObject]{
		AddFunc: func(o *api.RawObject, _ bool) {
			c.Apply(Change{Type: Added, APIVersion: apiVersion, Kind: kind, Object: &o.ObjectMeta})
		},
		UpdateFunc: func(old, cur *api.RawObject) {
			c.Apply(Change{Type: Updated, APIVersion: apiVersion, Kind: kind, Object: &cur.ObjectMeta, Old: &old.ObjectMeta})
		},
		DeleteFunc: func(o *api.RawObject, _ bool) {
			c.Apply(Change{Type: Deleted, APIVersion: apiVersion, Kind: kind, Object: &o.ObjectMeta})
		},
	}
}

// virtualDelete tells the graph that the apiserver has no object under
// id (Kubernetes' enqueueVirtualDeleteEvent, applied at once rather than
// queued: the graph's lock orders it after every change applied before).
func (c *Collector) virtualDelete(id objectRef) {
	c.Apply(Change{Type: Deleted, Virtual: true, APIVersion: id.APIVersion, Kind: id.Kind,
		Object: &api.ObjectMeta{Namespace: id.Namespace, Name: id.Name, UID: id.UID}})
}
