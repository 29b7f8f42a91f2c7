package difftest

import (
	"context"
	"fmt"
	"slices"
	"sort"
	"strings"
	"sync"

	"github.com/kcmlab/kcm/kube/api"
	"github.com/kcmlab/kcm/kube/api/decode"
	"github.com/kcmlab/kcm/kube/rest"
)

// NodeView is what the node lifecycle comparison sees of a cluster at one
// moment, normalised: no timestamps, UIDs or resourceVersions, only the
// outcomes the three compared controllers (node lifecycle, taint eviction,
// pod garbage collector) decide.
type NodeView struct {
	// Nodes maps a node's name to its NodeState; a deleted node is absent.
	Nodes map[string]NodeState
	// Pods maps a pod's name to its PodState, kept after the pod is
	// deleted (with Deleted set): its last state is the DELETED event's.
	Pods map[string]PodState
	// Events are the Events seen, one line per distinct
	// "Kind/name reason type: message" (counts and times dropped).
	Events map[string]bool
}

// NodeState is a node's normalised state: its taints and conditions.
type NodeState struct {
	// Taints are "key:effect", sorted.
	Taints []string
	// Conditions are "Type=Status reason \"message\"", sorted by type.
	Conditions []string
	// Ready is the status of the Ready condition.
	Ready string
}

// String renders the state on one line.
func (s NodeState) String() string {
	return "taints [" + strings.Join(s.Taints, " ") + "] conditions [" + strings.Join(s.Conditions, "; ") + "]"
}

// HasTaint reports whether the node carries the taint key:effect.
func (s NodeState) HasTaint(key, effect string) bool {
	return slices.Contains(s.Taints, key+":"+effect)
}

// PodState is a pod's normalised state.
type PodState struct {
	Phase string
	// Ready is the status of the Ready condition.
	Ready string
	// Disruption is the reason of a DisruptionTarget condition; empty
	// without one.
	Disruption string
	// Deleting is set once the pod has a deletionTimestamp.
	Deleting bool
	// Deleted is set once the pod is gone.
	Deleted bool
}

// String renders the state on one line.
func (s PodState) String() string {
	out := fmt.Sprintf("phase=%s ready=%s", s.Phase, s.Ready)
	if s.Disruption != "" {
		out += " disruption=" + s.Disruption
	}
	if s.Deleting {
		out += " deleting"
	}
	if s.Deleted {
		out += " deleted"
	}
	return out
}

func nodeState(n *api.Node) NodeState {
	var s NodeState
	for _, t := range n.Spec.Taints {
		s.Taints = append(s.Taints, t.Key+":"+t.Effect)
	}
	sort.Strings(s.Taints)
	for _, c := range n.Status.Conditions {
		s.Conditions = append(s.Conditions, fmt.Sprintf("%s=%s %s %q", c.Type, c.Status, c.Reason, c.Message))
		if c.Type == "Ready" {
			s.Ready = string(c.Status)
		}
	}
	sort.Strings(s.Conditions)
	return s
}

func podState(p *api.Pod) PodState {
	s := PodState{Phase: string(p.Status.Phase), Deleting: p.DeletionTimestamp != nil}
	if c := api.GetPodCondition(&p.Status, api.PodReady); c != nil {
		s.Ready = string(c.Status)
	}
	if c := api.GetPodCondition(&p.Status, api.DisruptionTarget); c != nil && c.Status == api.ConditionTrue {
		s.Disruption = c.Reason
	}
	return s
}

// NodeWatch keeps a NodeView of a cluster current from watches of the
// nodes, the pods of one namespace and the Events of the given
// namespaces, and the history of every node's and pod's distinct states
// in the order they were seen. Each resource's watch delivers its events
// in commit order, so once a state is seen every earlier write to that
// resource is seen too.
type NodeWatch struct {
	mu      sync.Mutex
	view    NodeView            // guarded by mu
	history map[string][]string // guarded by mu; "Node a" / "Pod p" → states
	changed chan struct{}       // guarded by mu; closed and replaced on change
	err     error               // guarded by mu; the first watch failure
	wg      sync.WaitGroup
}

// WatchNodes starts the watches and returns once each has listed. They
// run until ctx ends; Wait waits for them.
func WatchNodes(ctx context.Context, client *rest.Client, podNamespace string, eventNamespaces ...string) (*NodeWatch, error) {
	w := &NodeWatch{view: NodeView{Nodes: map[string]NodeState{}, Pods: map[string]PodState{}, Events: map[string]bool{}},
		history: map[string][]string{}, changed: make(chan struct{})}
	nodes := rest.NewResources(client, rest.Nodes, decode.Typed[api.Node]())
	pods := rest.NewResources(client, rest.Pods, decode.Typed[api.Pod]()).InNamespace(podNamespace)
	if err := startWatch(ctx, w, nodes, func(typ rest.EventType, n *api.Node) {
		if typ == rest.Deleted {
			delete(w.view.Nodes, n.Name)
			w.note("Node "+n.Name, "deleted")
			return
		}
		s := nodeState(n)
		w.view.Nodes[n.Name] = s
		w.note("Node "+n.Name, s.String())
	}); err != nil {
		return nil, err
	}
	if err := startWatch(ctx, w, pods, func(typ rest.EventType, p *api.Pod) {
		s := podState(p)
		s.Deleted = typ == rest.Deleted
		w.view.Pods[p.Name] = s
		w.note("Pod "+p.Name, s.String())
	}); err != nil {
		return nil, err
	}
	for _, ns := range eventNamespaces {
		events := rest.NewResources(client, rest.Events, decode.Typed[api.CoreEvent]()).InNamespace(ns)
		if err := startWatch(ctx, w, events, func(typ rest.EventType, e *api.CoreEvent) {
			if typ == rest.Deleted {
				return
			}
			o := e.InvolvedObject
			w.view.Events[fmt.Sprintf("%s/%s %s %s: %s", o.Kind, o.Name, e.Reason, e.Type, e.Message)] = true
		}); err != nil {
			return nil, err
		}
	}
	return w, nil
}

// note appends state to the object's history unless it is its last.
// The caller holds w.mu.
func (w *NodeWatch) note(key, state string) {
	h := w.history[key]
	if len(h) == 0 || h[len(h)-1] != state {
		w.history[key] = append(h, state)
	}
}

// startWatch is listWatch for a NodeWatch: listed items are applied as
// ADDED events like any other.
func startWatch[T api.Object](ctx context.Context, w *NodeWatch, r *rest.Resources[T], apply func(rest.EventType, T)) error {
	return listWatch(ctx, recorder{mu: &w.mu, wg: &w.wg, err: &w.err, signal: w.signal}, r,
		func(typ rest.EventType, obj T, _ bool) { apply(typ, obj) })
}

// signal wakes the waiters. The caller holds w.mu.
func (w *NodeWatch) signal() {
	close(w.changed)
	w.changed = make(chan struct{})
}

// WaitFor returns once cond holds for the current view (called under the
// watch's lock: it must not block), or fails when ctx ends or a watch
// failed (ErrWatchEnded), naming what it waited for.
func (w *NodeWatch) WaitFor(ctx context.Context, what string, cond func(NodeView) bool) error {
	for {
		w.mu.Lock()
		ok, err, ch := cond(w.view), w.err, w.changed
		w.mu.Unlock()
		if ok {
			return nil
		}
		if err != nil {
			return fmt.Errorf("%w: waiting for %s: %w", ErrWatchEnded, what, err)
		}
		select {
		case <-ctx.Done():
			return fmt.Errorf("difftest: waiting for %s: %w", what, ctx.Err())
		case <-ch:
		}
	}
}

// Snapshot returns a copy of the current view.
func (w *NodeWatch) Snapshot() NodeView {
	w.mu.Lock()
	defer w.mu.Unlock()
	v := NodeView{Nodes: map[string]NodeState{}, Pods: map[string]PodState{}, Events: map[string]bool{}}
	for k, s := range w.view.Nodes {
		v.Nodes[k] = s
	}
	for k, s := range w.view.Pods {
		v.Pods[k] = s
	}
	for k := range w.view.Events {
		v.Events[k] = true
	}
	return v
}

// History returns a copy of the distinct states each node and pod went
// through, in order.
func (w *NodeWatch) History() map[string][]string {
	w.mu.Lock()
	defer w.mu.Unlock()
	out := map[string][]string{}
	for k, h := range w.history {
		out[k] = slices.Clone(h)
	}
	return out
}

// Wait waits for the watches to end (after ctx ends).
func (w *NodeWatch) Wait() { w.wg.Wait() }
