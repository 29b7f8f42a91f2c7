package tainteviction

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/rs/zerolog"

	"github.com/kcmlab/kcm/clock"
	"github.com/kcmlab/kcm/ctrl"
	"github.com/kcmlab/kcm/informer"
	"github.com/kcmlab/kcm/kube/api"
	"github.com/kcmlab/kcm/kube/api/decode"
	"github.com/kcmlab/kcm/kube/labels"
	"github.com/kcmlab/kcm/kube/rest"
	"github.com/kcmlab/kcm/processor"
)

// Name is the controller's canonical name, kube-controller-manager's
// (names.TaintEvictionController); it is also the source component of its
// events.
const Name = "taint-eviction-controller"

// ClientName is the controller whose client and RBAC role the taint
// eviction controller uses: kube-controller-manager builds it with
// NewClient("node-controller") ("taint-manager uses existing cluster role
// from node-controller"), so its requests carry the node controller's
// User-Agent and rights (system:controller:node-controller).
const ClientName = "node-controller"

// Workers is how many workers the controller runs: upstream's
// UpdateWorkerSize, hard-coded (kube-controller-manager has no
// --concurrent-*-syncs flag for it).
const Workers = 8

// Retries and RetryInterval are upstream's deletion retries: a due
// eviction tries "add the DisruptionTarget condition, then delete" up to
// five times, 10 ms apart, then gives up until the next node or pod
// update schedules it again.
const (
	Retries       = 5
	RetryInterval = 10 * time.Millisecond
)

// Descriptor registers the controller: on by default (upstream's
// SeparateTaintEvictionController gate is GA and locked on since 1.34), no
// alias, no flags.
func Descriptor() *ctrl.ControllerDescriptor {
	return &ctrl.ControllerDescriptor{Name: Name, Constructor: New}
}

// Config holds what a Controller needs besides its listers, client and
// queue.
type Config struct {
	// Clock dates the scheduled evictions and paces the retries; nil
	// means real.
	Clock clock.Clock
	// Logger gets the controller's debug lines and failed evictions.
	Logger zerolog.Logger
	// Recorder records the TaintManagerEviction events; nil records none.
	Recorder ctrl.EventRecorder
	// Metrics counts deletions; nil counts none.
	Metrics *Metrics
}

// Controller holds the taint eviction state: the NoExecute taints of
// every tainted node, as last seen, and the scheduled evictions. Its Sync
// handles three kinds of key (see the package doc): node updates, pod
// updates and due evictions.
type Controller struct {
	pods      informer.PodLister
	nodes     informer.Lister[*api.Node]
	podClient *rest.Resources[*api.Pod]
	q         keyQueue
	evictions *timedEvictions
	recorder  ctrl.EventRecorder
	clock     clock.Clock
	log       zerolog.Logger
	metrics   *Metrics

	// mu serializes the decisions: a node update (taints recorded, then
	// its pods decided) and a pod update (taints read, then decided) never
	// interleave, so a pod is never decided on taints older than those
	// its node's update used (upstream gets the same by handing a node's
	// and its pods' updates to one worker). No API call is made under it.
	mu sync.Mutex
	// tainted maps a node's name to its NoExecute taints; a node without
	// any is absent (upstream's taintedNodes).
	tainted map[string][]api.Taint
}

// NewController returns the controller on the given listers, client and
// queue (tests build it directly; New wires it to the informers and the
// loop's queue).
func NewController(pods informer.PodLister, nodes informer.Lister[*api.Node], client *rest.Client, q keyQueue, cfg Config) *Controller {
	if cfg.Clock == nil {
		cfg.Clock = clock.Real{}
	}
	if cfg.Recorder == nil {
		cfg.Recorder = ctrl.NopRecorder{}
	}
	return &Controller{
		pods: pods, nodes: nodes,
		podClient: rest.NewResources(client, rest.Pods, decode.Typed[api.Pod]()),
		q:         q, evictions: newTimedEvictions(q),
		recorder: cfg.Recorder, clock: cfg.Clock, log: cfg.Logger, metrics: cfg.Metrics,
		tainted: map[string][]api.Taint{},
	}
}

// New is the ControllerConstructor: it watches pods and nodes through the
// shared factory with the handlers that feed the loop, and builds the
// controller with the node controller's client and its own event
// broadcaster.
func New(_ context.Context, cc ctrl.ControllerContext, name string) (ctrl.Controller, error) {
	client := cc.ClientFor(ClientName)
	events := cc.NewBroadcaster(client)
	w := cc.Wire(name, ctrl.LoopOptions{Events: events})
	h := handlers{q: w.Queue()}
	pods := ctrl.Watch(w, rest.Pods, processor.HandlerFuncs[*api.Pod]{
		AddFunc: h.podAdded, UpdateFunc: h.podUpdated, DeleteFunc: h.podDeleted,
	})
	nodes := ctrl.Watch(w, rest.Nodes, processor.HandlerFuncs[*api.Node]{
		AddFunc: h.nodeAdded, UpdateFunc: h.nodeUpdated, DeleteFunc: h.nodeDeleted,
	})
	var m *Metrics
	if reg := cc.Metrics.Registerer(); reg != nil {
		var err error
		if m, err = NewMetrics(reg); err != nil {
			w.Queue().ShutDown()
			return nil, fmt.Errorf("%s: %w", name, err)
		}
	}
	c := NewController(informer.PodLister{Lister: pods}, nodes, client, w.Queue(), Config{
		Clock: cc.Clock, Logger: cc.LoggerFor(name), Recorder: events.NewRecorder(name), Metrics: m,
	})
	built, err := w.Build(c.Sync)
	if err != nil {
		return nil, err
	}
	return &Runner{Loop: built.(*ctrl.Loop)}, nil
}

// Runner is what New returns: the controller's loop, run with Workers
// workers whatever the manager asks (the manager's count is
// DefaultWorkers for a controller without a concurrency flag).
type Runner struct{ *ctrl.Loop }

// Run runs the loop with Workers workers until ctx ends.
func (r *Runner) Run(ctx context.Context, _ int) error { return r.Loop.Run(ctx, Workers) }

// The prefixes of the controller's keys.
const (
	nodePrefix  = "node/"
	podPrefix   = "pod/"
	evictPrefix = "evict/"
)

func nodeKey(name string) string { return nodePrefix + name }
func podKey(key string) string   { return podPrefix + key }
func evictKey(pod string) string { return evictPrefix + pod }

// Sync handles one key: "node/<name>" re-reads a node's NoExecute taints
// and decides every pod on it; "pod/<ns>/<name>" decides one pod;
// "evict/<ns>/<name>" runs a due eviction.
func (c *Controller) Sync(ctx context.Context, key string) (ctrl.Result, error) {
	switch {
	case strings.HasPrefix(key, nodePrefix):
		return ctrl.Result{}, c.syncNode(strings.TrimPrefix(key, nodePrefix))
	case strings.HasPrefix(key, podPrefix):
		return ctrl.Result{}, c.syncPod(strings.TrimPrefix(key, podPrefix))
	case strings.HasPrefix(key, evictPrefix):
		return c.syncEviction(ctx, strings.TrimPrefix(key, evictPrefix))
	}
	return ctrl.Result{}, ctrl.TerminalError(fmt.Errorf("%s: unknown key %q", Name, key))
}

// syncNode is upstream's handleNodeUpdate: record the node's NoExecute
// taints (forget them when the node is gone), then, when it has none,
// cancel the evictions of its pods, else decide each of its pods.
func (c *Controller) syncNode(name string) error {
	node, err := c.nodes.Get(name)
	c.mu.Lock()
	defer c.mu.Unlock()
	if rest.IsNotFound(err) {
		// Upstream forgets the taints and leaves the evictions scheduled
		// for the pods of a deleted node as they are.
		delete(c.tainted, name)
		return nil
	}
	if err != nil {
		return fmt.Errorf("getting node %s: %w", name, err)
	}
	taints := noExecuteTaints(node.Spec.Taints)
	if len(taints) == 0 {
		delete(c.tainted, name)
	} else {
		c.tainted[name] = taints
	}
	pods := c.podsOn(name)
	if len(taints) == 0 {
		for _, p := range pods {
			c.cancel(p.Key())
		}
		return nil
	}
	now := c.clock.Now()
	for _, p := range pods {
		c.decide(p.Key(), p.Spec.Tolerations, taints, now)
	}
	return nil
}

// podsOn returns the cached pods bound to node (upstream's
// getPodsAssignedToNode, an index on spec.nodeName; kcm's shared pod
// informer has none, so the cache is scanned), ordered by key.
func (c *Controller) podsOn(node string) []*api.Pod {
	var out []*api.Pod
	for _, p := range c.pods.List(labels.Everything()) {
		if p.Spec.NodeName == node {
			out = append(out, p)
		}
	}
	slices.SortFunc(out, func(a, b *api.Pod) int { return strings.Compare(a.Key(), b.Key()) })
	return out
}

// syncPod is upstream's handlePodUpdate: a pod that is gone has its
// eviction cancelled; a pod bound to a node with NoExecute taints is
// decided; any other is left alone (a node whose taints went has
// cancelled its pods' evictions already).
func (c *Controller) syncPod(key string) error {
	ns, name, _ := strings.Cut(key, "/")
	pod, err := c.pods.Pods(ns).Get(name)
	if rest.IsNotFound(err) {
		c.mu.Lock()
		defer c.mu.Unlock()
		c.cancel(key)
		return nil
	}
	if err != nil {
		return fmt.Errorf("getting pod %s: %w", key, err)
	}
	if pod.Spec.NodeName == "" {
		return nil
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	taints, ok := c.tainted[pod.Spec.NodeName]
	if !ok {
		return nil
	}
	c.decide(key, pod.Spec.Tolerations, taints, c.clock.Now())
	return nil
}

// decide acts on Decide's verdict for the pod (upstream's
// processPodOnNode). An eviction already scheduled is kept when the
// verdict is EvictAt (timedEvictions.add skips it): upstream replaces one
// only if it was created at the same instant or later, which its real
// clock never shows, and keeps its time otherwise, however the
// tolerations changed. Called under mu.
func (c *Controller) decide(pod string, tolerations []api.Toleration, taints []api.Taint, now time.Time) {
	d := Decide(taints, tolerations, now)
	switch d.Verdict {
	case NoTaint, Tolerated:
		c.log.Debug().Str("pod", pod).Stringer("verdict", d.Verdict).Msg("cancelling any scheduled deletion")
		c.cancel(pod)
	case EvictNow:
		c.log.Debug().Str("pod", pod).Msg("not all NoExecute taints are tolerated; deleting now")
		c.cancel(pod)
		c.evictions.add(pod, now, now)
	case EvictAt:
		c.evictions.add(pod, now, d.At)
	}
}

// cancel cancels the pod's eviction and records "Cancelling deletion"
// when a timed one was cancelled (upstream's cancelWorkWithEvent).
func (c *Controller) cancel(pod string) {
	if c.evictions.cancel(pod) {
		ns, name, _ := strings.Cut(pod, "/")
		c.recorder.Eventf(podRef(ns, name), api.EventTypeNormal, EventReason, "Cancelling deletion of Pod %s", pod)
	}
}
