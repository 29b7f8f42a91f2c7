package difftest

import (
	"context"
	"errors"
	"fmt"
	"sort"
	"strings"
	"sync"

	"github.com/kcmlab/kcm/kube/api"
	"github.com/kcmlab/kcm/kube/api/decode"
	"github.com/kcmlab/kcm/kube/rest"
)

// Observer watches the Deployments, ReplicaSets and pods of one namespace
// and keeps (a) their latest state, which scenario drivers wait on, and
// (b) the timeline. It uses plain watches from package rest, not kcm's
// informers: the harness must not share code with what it judges.
type Observer struct {
	cancel context.CancelFunc
	wg     sync.WaitGroup

	mu          sync.Mutex
	changed     chan struct{} // closed and replaced on every change; guarded by mu
	deployments map[string]*api.Deployment
	replicaSets map[string]*api.ReplicaSet
	pods        map[string]*api.Pod
	timeline    *timelineState
	err         error // the first watch failure; guarded by mu
}

// View is the observer's state at one moment. Its maps and objects are
// the observer's: read them only inside the function given to WaitFor.
type View struct {
	Deployments map[string]*api.Deployment
	ReplicaSets map[string]*api.ReplicaSet
	Pods        map[string]*api.Pod
}

// ErrWatchEnded is wrapped by WaitFor's error when a watch failed.
var ErrWatchEnded = errors.New("difftest: a watch of the observer ended")

// watchTimeoutSeconds asks the server to keep each watch open longer than
// any scenario runs.
const watchTimeoutSeconds = 900

// Observe starts watching namespace ns. Stop ends the watches.
func Observe(ctx context.Context, client *rest.Client, ns string) (*Observer, error) {
	o := &Observer{
		changed:     make(chan struct{}),
		deployments: map[string]*api.Deployment{},
		replicaSets: map[string]*api.ReplicaSet{},
		pods:        map[string]*api.Pod{},
		timeline:    newTimelineState(),
	}
	wctx, cancel := context.WithCancel(ctx)
	o.cancel = cancel
	deps := rest.NewResources(client, rest.Deployments, decode.Typed[api.Deployment]()).InNamespace(ns)
	rss := rest.NewResources(client, rest.ReplicaSets, decode.Typed[api.ReplicaSet]()).InNamespace(ns)
	pods := rest.NewResources(client, rest.Pods, decode.Typed[api.Pod]()).InNamespace(ns)
	starts := []func() error{
		func() error {
			return watchInto(wctx, o, deps, func(t rest.EventType, d *api.Deployment) {
				setOrDelete(o.deployments, d.Name, d, t == rest.Deleted)
				if t == rest.Deleted {
					o.timeline.applyDeleted("Deployment", d.Name, d.ResourceVersion)
				}
			})
		},
		func() error {
			return watchInto(wctx, o, rss, func(t rest.EventType, rs *api.ReplicaSet) {
				setOrDelete(o.replicaSets, rs.Name, rs, t == rest.Deleted)
				o.timeline.applyReplicaSet(rs, t == rest.Deleted)
				if t == rest.Deleted {
					o.timeline.applyDeleted("ReplicaSet", rs.Name, rs.ResourceVersion)
				}
			})
		},
		func() error {
			return watchInto(wctx, o, pods, func(t rest.EventType, p *api.Pod) {
				setOrDelete(o.pods, p.Name, p, t == rest.Deleted)
				o.timeline.applyPod(p, t == rest.Deleted)
				if t == rest.Deleted {
					o.timeline.applyDeleted("Pod", p.Name, p.ResourceVersion)
				}
			})
		},
	}
	for _, start := range starts {
		if err := start(); err != nil {
			o.Stop()
			return nil, err
		}
	}
	return o, nil
}

func setOrDelete[T any](m map[string]T, name string, v T, deleted bool) {
	if deleted {
		delete(m, name)
	} else {
		m[name] = v
	}
}

// watchInto is listWatch for an Observer: listed items are applied as
// ADDED events like any other.
func watchInto[T api.Object](ctx context.Context, o *Observer, res *rest.Resources[T], apply func(rest.EventType, T)) error {
	return listWatch(ctx, recorder{mu: &o.mu, wg: &o.wg, err: &o.err, signal: o.signalLocked}, res,
		func(typ rest.EventType, obj T, _ bool) { apply(typ, obj) })
}

// signalLocked wakes every WaitFor.
func (o *Observer) signalLocked() {
	close(o.changed)
	o.changed = make(chan struct{})
}

// SetPhase names the timeline steps recorded from now on. Call it when
// the observer has seen everything before (after a WaitFor), so that the
// phase boundary is exact.
func (o *Observer) SetPhase(p string) {
	o.mu.Lock()
	defer o.mu.Unlock()
	o.timeline.setPhase(p)
}

// Record appends a state the scenario observed itself to the timeline's
// States stream (a repeat of the last one is dropped).
func (o *Observer) Record(state string) {
	o.mu.Lock()
	defer o.mu.Unlock()
	o.timeline.addState(state)
}

// Timeline returns a copy of the timeline so far.
func (o *Observer) Timeline() Timeline {
	o.mu.Lock()
	defer o.mu.Unlock()
	return o.timeline.snapshot()
}

// WaitFor blocks until cond holds on the observer's state, a watch fails,
// or ctx ends. cond runs under the observer's lock and must not block.
// The error of a context that ended describes the last state seen.
func (o *Observer) WaitFor(ctx context.Context, what string, cond func(View) bool) error {
	for {
		o.mu.Lock()
		v := View{Deployments: o.deployments, ReplicaSets: o.replicaSets, Pods: o.pods}
		if o.err != nil {
			err := o.err
			o.mu.Unlock()
			return fmt.Errorf("waiting for %s: %w", what, err)
		}
		if cond(v) {
			o.mu.Unlock()
			return nil
		}
		ch := o.changed
		state := describe(v)
		o.mu.Unlock()
		select {
		case <-ctx.Done():
			return fmt.Errorf("waiting for %s: %w; last state seen:\n%s", what, ctx.Err(), state)
		case <-ch:
		}
	}
}

// Do runs fn on the current state under the observer's lock (to pick a
// pod to act on, say). fn must not block.
func (o *Observer) Do(fn func(View)) {
	o.mu.Lock()
	defer o.mu.Unlock()
	fn(View{Deployments: o.deployments, ReplicaSets: o.replicaSets, Pods: o.pods})
}

// Stop ends the watches and waits for their goroutines.
func (o *Observer) Stop() {
	o.cancel()
	o.wg.Wait()
}

// describe renders a view for error messages.
func describe(v View) string {
	var lines []string
	for _, d := range v.Deployments {
		lines = append(lines, fmt.Sprintf("Deployment %s gen %d: spec %d, status observedGen %d replicas %d updated %d ready %d available %d",
			d.Name, d.Generation, replicasOrOne(d.Spec.Replicas), d.Status.ObservedGeneration, d.Status.Replicas,
			d.Status.UpdatedReplicas, d.Status.ReadyReplicas, d.Status.AvailableReplicas))
	}
	for _, rs := range v.ReplicaSets {
		lines = append(lines, fmt.Sprintf("ReplicaSet %s (%s) gen %d: spec %d, status observedGen %d replicas %d ready %d available %d",
			rs.Name, templateImage(rs.Spec.Template), rs.Generation, replicasOrOne(rs.Spec.Replicas),
			rs.Status.ObservedGeneration, rs.Status.Replicas, rs.Status.ReadyReplicas, rs.Status.AvailableReplicas))
	}
	for _, p := range v.Pods {
		lines = append(lines, fmt.Sprintf("Pod %s (%s) ready=%t", p.Name, podImage(p), api.IsPodReady(p)))
	}
	sort.Strings(lines)
	return "  " + strings.Join(lines, "\n  ")
}
