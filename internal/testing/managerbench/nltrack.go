package managerbench

import (
	"context"
	"fmt"
	"time"

	"github.com/kcmlab/kcm/kube/api"
	"github.com/kcmlab/kcm/kube/rest"
)

// nlTracker follows, from watches of nodes and pods, what the node
// lifecycle benchmark waits on: which nodes carry the NoExecute
// unreachable (or not-ready) taint and since when, and which pods are
// Ready. The silent nodes are the ones whose heartbeat the harness stops;
// a taint on any other node is a wrong one (a healthy node tainted).
type nlTracker struct {
	watchState
	silent  map[string]bool
	tainted map[string]time.Time // node → when its NoExecute unreachable/not-ready taint was first seen
	// pods: key → node and Ready; notReadyAt: when a pod of a silent node
	// was first seen Ready=False (or gone) after the pause.
	podNode    map[string]string
	podReady   map[string]bool
	notReadyAt map[string]time.Time
}

func newNLTracker() *nlTracker {
	return &nlTracker{silent: map[string]bool{}, tainted: map[string]time.Time{}, podNode: map[string]string{},
		podReady: map[string]bool{}, notReadyAt: map[string]time.Time{}}
}

// isOutageTaint reports whether taint is one the node lifecycle
// controller sets on a node whose Ready condition is Unknown or False
// (node.kubernetes.io/unreachable or not-ready, effect NoExecute).
func isOutageTaint(tn api.Taint) bool {
	return tn.Effect == api.TaintEffectNoExecute &&
		(tn.Key == api.TaintNodeUnreachable || tn.Key == api.TaintNodeNotReady)
}

// observeNode records when a node first carries an outage taint, and
// forgets it when the taint goes.
func (t *nlTracker) observeNode(typ rest.EventType, n *api.Node, at time.Time) {
	t.mu.Lock()
	defer t.mu.Unlock()
	has := false
	if typ != rest.Deleted {
		for _, tn := range n.Spec.Taints {
			has = has || isOutageTaint(tn)
		}
	}
	_, had := t.tainted[n.Name]
	switch {
	case has && !had:
		t.tainted[n.Name] = at
	case !has && had:
		delete(t.tainted, n.Name)
	default:
		return
	}
	t.notify()
}

// observePod records a pod's node and readiness; after the pause, the
// first time a pod of a silent node is seen not Ready (or deleted).
func (t *nlTracker) observePod(typ rest.EventType, p *api.Pod, at time.Time) {
	t.mu.Lock()
	defer t.mu.Unlock()
	key := p.Namespace + "/" + p.Name
	ready := typ != rest.Deleted && api.IsPodReady(p)
	if typ == rest.Deleted {
		delete(t.podReady, key)
	} else {
		t.podNode[key] = p.Spec.NodeName
		t.podReady[key] = ready
	}
	if !ready && t.silent[t.podNode[key]] { // silent is empty until the pause
		if _, seen := t.notReadyAt[key]; !seen {
			t.notReadyAt[key] = at
		}
	}
	t.notify()
}

// pause fixes the silent nodes; from now on their pods' loss of
// readiness is recorded.
func (t *nlTracker) pause(nodes []string) {
	t.mu.Lock()
	defer t.mu.Unlock()
	for _, n := range nodes {
		t.silent[n] = true
	}
	t.notify()
}

// NLView is the tracker's state for a condition of Wait (read under its
// lock).
type NLView struct{ t *nlTracker }

// ReadyPods is how many pods are Ready.
func (v NLView) ReadyPods() int {
	n := 0
	for _, r := range v.t.podReady {
		if r {
			n++
		}
	}
	return n
}

// SilentTainted is how many silent nodes carry an outage taint.
func (v NLView) SilentTainted() int {
	n := 0
	for node := range v.t.silent {
		if _, ok := v.t.tainted[node]; ok {
			n++
		}
	}
	return n
}

// WronglyTainted is how many nodes that are not silent carry an outage
// taint.
func (v NLView) WronglyTainted() int {
	n := 0
	for node := range v.t.tainted {
		if !v.t.silent[node] {
			n++
		}
	}
	return n
}

// SilentPods is how many known pods are on silent nodes, and how many of
// them lost readiness since the pause.
func (v NLView) SilentPods() (total, notReady int) {
	for key, node := range v.t.podNode {
		if v.t.silent[node] {
			total++
			if _, ok := v.t.notReadyAt[key]; ok {
				notReady++
			}
		}
	}
	return total, notReady
}

// Done reports whether every silent node is tainted and every pod on one
// lost its readiness.
func (v NLView) Done() bool {
	total, notReady := v.SilentPods()
	return len(v.t.silent) > 0 && v.SilentTainted() == len(v.t.silent) && notReady == total
}

// Wait returns once cond holds, checking it after every event; it fails
// when the tracker's watches failed or ctx ends.
func (t *nlTracker) Wait(ctx context.Context, what string, cond func(NLView) bool) error {
	return t.waitFor(ctx, what, func() bool { return cond(NLView{t}) })
}

// NLTimes are the moments of the outage: the first and last silent node
// tainted, the first and last of their pods seen not Ready (zero: none).
type NLTimes struct {
	FirstTaint, LastTaint, FirstNotReady, LastNotReady time.Time
}

// Times reads the outage's moments.
func (t *nlTracker) Times() NLTimes {
	t.mu.Lock()
	defer t.mu.Unlock()
	var out NLTimes
	for node := range t.silent {
		if at, ok := t.tainted[node]; ok {
			out.FirstTaint, out.LastTaint = earliest(out.FirstTaint, at), latest(out.LastTaint, at)
		}
	}
	for _, at := range t.notReadyAt {
		out.FirstNotReady, out.LastNotReady = earliest(out.FirstNotReady, at), latest(out.LastNotReady, at)
	}
	return out
}

// Progress describes the outage's state for an error message.
func (t *nlTracker) Progress() string {
	t.mu.Lock()
	defer t.mu.Unlock()
	v := NLView{t}
	total, notReady := v.SilentPods()
	return fmt.Sprintf("%d of %d silent nodes tainted, %d of %d of their pods not Ready, %d other nodes tainted",
		v.SilentTainted(), len(t.silent), notReady, total, v.WronglyTainted())
}

func earliest(a, b time.Time) time.Time {
	if a.IsZero() || b.Before(a) {
		return b
	}
	return a
}

func latest(a, b time.Time) time.Time {
	if b.After(a) {
		return b
	}
	return a
}
