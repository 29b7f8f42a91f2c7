package difftest

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"slices"
	"sort"
	"strconv"
	"strings"
	"sync"

	"github.com/kcmlab/kcm/kube/api"
	"github.com/kcmlab/kcm/kube/api/decode"
	"github.com/kcmlab/kcm/kube/rest"
)

// SetWatch watches the StatefulSets, pods, PersistentVolumeClaims and
// ControllerRevisions of one namespace. It keeps their latest state, which
// the StatefulSet scenarios wait on, and a log of every step a StatefulSet
// controller takes that shows on those objects: a pod, claim or revision
// created or deleted, a pod relabelled, a claim's or pod's owners changed,
// a revision renumbered; and a pod turning Ready (kwok's doing), which is
// what OrderedReady waits for, so that a controller that does not wait
// shows. Other status writes (kwok's, the controller's own status) are
// not steps.
//
// Each resource has its own watch, which delivers its events in the order
// kube-apiserver committed them; across the watches the steps are put in
// order by resourceVersion (the etcd revision of the write: the harness
// runs against its own etcd). A step of a deletion is logged when the
// object is first seen marked for deletion (deletionTimestamp) or, if it
// never was, when it is gone.
type SetWatch struct {
	cancel context.CancelFunc
	wg     sync.WaitGroup

	mu        sync.Mutex
	changed   chan struct{} // closed and replaced on every change; guarded by mu
	sets      map[string]*api.StatefulSet
	pods      map[string]*api.Pod
	claims    map[string]*api.PersistentVolumeClaim
	revisions map[string]*api.ControllerRevision
	events    map[string]setEvent // Events about StatefulSets, by name
	steps     []SetStep           // guarded by mu
	deleting  map[string]bool     // "Kind/name/uid" whose deletion is logged; guarded by mu
	err       error               // the first watch failure; guarded by mu
}

// SetStep is one step of the log: the resourceVersion of the write and a
// line such as "create pod web-0 rev web-6d9c7b8f5".
type SetStep struct {
	RV   uint64
	Line string
}

// SetView is the watch's state at one moment; read it only inside the
// function given to WaitFor or Do.
type SetView struct {
	Sets      map[string]*api.StatefulSet
	Pods      map[string]*api.Pod
	Claims    map[string]*api.PersistentVolumeClaim
	Revisions map[string]*api.ControllerRevision
	// EventCount is the sum of the counts of the Events about
	// StatefulSets.
	EventCount int
}

// WatchStatefulSets starts watching namespace ns. Stop ends the watches.
func WatchStatefulSets(ctx context.Context, client *rest.Client, ns string) (*SetWatch, error) {
	w := &SetWatch{changed: make(chan struct{}), sets: map[string]*api.StatefulSet{}, pods: map[string]*api.Pod{},
		claims: map[string]*api.PersistentVolumeClaim{}, revisions: map[string]*api.ControllerRevision{},
		deleting: map[string]bool{}, events: map[string]setEvent{}}
	wctx, cancel := context.WithCancel(ctx)
	w.cancel = cancel
	sets := rest.NewResources(client, rest.StatefulSets, decode.Typed[api.StatefulSet]()).InNamespace(ns)
	pods := rest.NewResources(client, rest.Pods, decode.Typed[api.Pod]()).InNamespace(ns)
	claims := rest.NewResources(client, rest.PersistentVolumeClaims, decode.Typed[api.PersistentVolumeClaim]()).InNamespace(ns)
	revs := rest.NewResources(client, rest.ControllerRevisions, decode.Typed[api.ControllerRevision]()).InNamespace(ns)
	events := rest.NewResources(client, rest.Events, decode.Raw()).InNamespace(ns)
	err := errors.Join(
		setWatchInto(wctx, w, sets, func(t rest.EventType, s *api.StatefulSet, _ bool) {
			setOrDelete(w.sets, s.Name, s, t == rest.Deleted)
		}),
		setWatchInto(wctx, w, pods, func(t rest.EventType, p *api.Pod, listed bool) {
			w.logPod(t, w.pods[p.Name], p, listed)
			setOrDelete(w.pods, p.Name, p, t == rest.Deleted)
		}),
		setWatchInto(wctx, w, claims, func(t rest.EventType, c *api.PersistentVolumeClaim, listed bool) {
			w.logClaim(t, w.claims[c.Name], c, listed)
			setOrDelete(w.claims, c.Name, c, t == rest.Deleted)
		}),
		setWatchInto(wctx, w, revs, func(t rest.EventType, r *api.ControllerRevision, listed bool) {
			w.logRevision(t, w.revisions[r.Name], r, listed)
			setOrDelete(w.revisions, r.Name, r, t == rest.Deleted)
		}),
		setWatchInto(wctx, w, events, func(t rest.EventType, e *api.RawObject, _ bool) {
			if ev, ok := statefulSetEvent(e); ok {
				setOrDelete(w.events, e.Name, ev, t == rest.Deleted)
			}
		}),
	)
	if err != nil {
		w.Stop()
		return nil, err
	}
	return w, nil
}

// setWatchInto is watchInto for a SetWatch: list (each item applied with
// listed true, so that it is not logged as a step), then watch from the
// list's resourceVersion in a goroutine.
func setWatchInto[T api.Object](ctx context.Context, w *SetWatch, res *rest.Resources[T], apply func(rest.EventType, T, bool)) error {
	list, err := res.List(ctx, rest.ListOptions{})
	if err != nil {
		return fmt.Errorf("difftest: list %s: %w", res.Resource(), err)
	}
	w.mu.Lock()
	for _, item := range list.Items {
		apply(rest.Added, item, true)
	}
	w.signalLocked()
	w.mu.Unlock()
	wt, err := res.Watch(ctx, rest.WatchOptions{ListOptions: rest.ListOptions{
		ResourceVersion: list.ResourceVersion, TimeoutSeconds: watchTimeoutSeconds}})
	if err != nil {
		return fmt.Errorf("difftest: watch %s: %w", res.Resource(), err)
	}
	w.wg.Add(1)
	go func() {
		defer w.wg.Done()
		defer wt.Close()
		for {
			ev, err := wt.Next()
			if err == nil && ev.Type == rest.Error {
				err = ev.Err
			}
			w.mu.Lock()
			switch {
			case err != nil:
				if ctx.Err() == nil && w.err == nil {
					w.err = fmt.Errorf("%w: %s: %w", ErrWatchEnded, res.Resource(), err)
				}
			case ev.Type == rest.Added || ev.Type == rest.Modified || ev.Type == rest.Deleted:
				apply(ev.Type, ev.Object, false)
			}
			w.signalLocked()
			w.mu.Unlock()
			if err != nil {
				return
			}
		}
	}()
	return nil
}

func (w *SetWatch) signalLocked() {
	close(w.changed)
	w.changed = make(chan struct{})
}

// addLocked appends a step written at resourceVersion rv.
func (w *SetWatch) addLocked(rv, line string) {
	n, _ := strconv.ParseUint(rv, 10, 64)
	w.steps = append(w.steps, SetStep{RV: n, Line: line})
}

// deletion logs the deletion of an object once: when it is first seen
// with a deletionTimestamp, or gone.
func (w *SetWatch) deletion(t rest.EventType, kind string, m *api.ObjectMeta, listed bool) bool {
	key := kind + "/" + m.Name + "/" + m.UID
	if w.deleting[key] || (t != rest.Deleted && m.DeletionTimestamp == nil) {
		return false
	}
	w.deleting[key] = true
	if !listed {
		w.addLocked(m.ResourceVersion, "delete "+kind+" "+m.Name)
	}
	return true
}

func (w *SetWatch) logPod(t rest.EventType, old, p *api.Pod, listed bool) {
	if w.deletion(t, "pod", &p.ObjectMeta, listed) || t == rest.Deleted || listed {
		return
	}
	rev := p.Labels[revisionHashLabel]
	if old == nil || old.UID != p.UID {
		w.addLocked(p.ResourceVersion, "create pod "+p.Name+" rev "+rev)
		if api.IsPodReady(p) {
			w.addLocked(p.ResourceVersion, "ready pod "+p.Name)
		}
		return
	}
	if !api.IsPodReady(old) && api.IsPodReady(p) {
		w.addLocked(p.ResourceVersion, "ready pod "+p.Name)
	}
	if !maps.Equal(old.Labels, p.Labels) {
		w.addLocked(p.ResourceVersion, "relabel pod "+p.Name+": "+renderLabels(p.Labels))
	}
	if owners(old.OwnerReferences) != owners(p.OwnerReferences) {
		w.addLocked(p.ResourceVersion, "reown pod "+p.Name+": "+owners(p.OwnerReferences))
	}
}

func (w *SetWatch) logClaim(t rest.EventType, old, c *api.PersistentVolumeClaim, listed bool) {
	if w.deletion(t, "claim", &c.ObjectMeta, listed) || t == rest.Deleted || listed {
		return
	}
	if old == nil || old.UID != c.UID {
		w.addLocked(c.ResourceVersion, "create claim "+c.Name+" owners "+owners(c.OwnerReferences))
		return
	}
	if owners(old.OwnerReferences) != owners(c.OwnerReferences) {
		w.addLocked(c.ResourceVersion, "reown claim "+c.Name+": "+owners(c.OwnerReferences))
	}
	if !maps.Equal(old.Labels, c.Labels) {
		w.addLocked(c.ResourceVersion, "relabel claim "+c.Name+": "+renderLabels(c.Labels))
	}
}

func (w *SetWatch) logRevision(t rest.EventType, old, r *api.ControllerRevision, listed bool) {
	if w.deletion(t, "revision", &r.ObjectMeta, listed) || t == rest.Deleted || listed {
		return
	}
	if old == nil || old.UID != r.UID {
		w.addLocked(r.ResourceVersion, fmt.Sprintf("create revision %s (%d)", r.Name, r.Revision))
		return
	}
	if old.Revision != r.Revision {
		w.addLocked(r.ResourceVersion, fmt.Sprintf("renumber revision %s (%d)", r.Name, r.Revision))
	}
	if owners(old.OwnerReferences) != owners(r.OwnerReferences) || !maps.Equal(old.Labels, r.Labels) {
		w.addLocked(r.ResourceVersion, "reown or relabel revision "+r.Name+": "+owners(r.OwnerReferences)+" "+renderLabels(r.Labels))
	}
}

// owners renders ownerReferences as "[Kind/name controller ...]".
func owners(refs []api.OwnerReference) string {
	parts := make([]string, len(refs))
	for i, r := range refs {
		parts[i] = r.Kind + "/" + r.Name
		if r.IsController() {
			parts[i] += " controller"
		}
	}
	return "[" + strings.Join(parts, ", ") + "]"
}

func renderLabels(l map[string]string) string {
	keys := slices.Sorted(maps.Keys(l))
	parts := make([]string, len(keys))
	for i, k := range keys {
		parts[i] = k + "=" + l[k]
	}
	return strings.Join(parts, ",")
}

// setEvent is an Event about a StatefulSet: its rendering (without the
// count) and its count.
type setEvent struct {
	line  string
	count int
}

// statefulSetEvent renders e if its involvedObject is a StatefulSet:
// "web Normal SuccessfulCreate: <message>".
func statefulSetEvent(e *api.RawObject) (setEvent, bool) {
	m, err := e.Map()
	if err != nil {
		return setEvent{}, false
	}
	obj, _ := m["involvedObject"].(map[string]any)
	if obj["kind"] != "StatefulSet" {
		return setEvent{}, false
	}
	n, _ := m["count"].(float64)
	if n == 0 {
		n = 1
	}
	return setEvent{line: fmt.Sprintf("%v %v %v: %v", obj["name"], m["type"], m["reason"], m["message"]), count: int(n)}, true
}

// Events returns the Events about StatefulSets seen so far, "LINE (count
// N)", sorted, and the sum of their counts.
func (w *SetWatch) Events() ([]string, int) {
	w.mu.Lock()
	defer w.mu.Unlock()
	lines := make([]string, 0, len(w.events))
	total := 0
	for _, e := range w.events {
		lines = append(lines, fmt.Sprintf("%s (count %d)", e.line, e.count))
		total += e.count
	}
	sort.Strings(lines)
	return lines, total
}

// Steps returns the steps logged so far, in resourceVersion order, and
// forgets them: the next call returns only what came after.
func (w *SetWatch) Steps() []SetStep {
	w.mu.Lock()
	defer w.mu.Unlock()
	out := w.steps
	w.steps = nil
	sort.SliceStable(out, func(i, j int) bool { return out[i].RV < out[j].RV })
	return out
}

// WaitFor blocks until cond holds, a watch fails, or ctx ends (the error
// then describes the last state seen). cond runs under the lock.
func (w *SetWatch) WaitFor(ctx context.Context, what string, cond func(SetView) bool) error {
	for {
		w.mu.Lock()
		if w.err != nil {
			err := w.err
			w.mu.Unlock()
			return fmt.Errorf("waiting for %s: %w", what, err)
		}
		v := w.viewLocked()
		if cond(v) {
			w.mu.Unlock()
			return nil
		}
		ch := w.changed
		state := describeSets(v)
		w.mu.Unlock()
		select {
		case <-ctx.Done():
			return fmt.Errorf("waiting for %s: %w; last state seen:\n%s", what, ctx.Err(), state)
		case <-ch:
		}
	}
}

// Do runs fn on the current state under the lock.
func (w *SetWatch) Do(fn func(SetView)) {
	w.mu.Lock()
	defer w.mu.Unlock()
	fn(w.viewLocked())
}

func (w *SetWatch) viewLocked() SetView {
	n := 0
	for _, e := range w.events {
		n += e.count
	}
	return SetView{Sets: w.sets, Pods: w.pods, Claims: w.claims, Revisions: w.revisions, EventCount: n}
}

// Stop ends the watches and waits for their goroutines.
func (w *SetWatch) Stop() {
	w.cancel()
	w.wg.Wait()
}

// describeSets renders a view for error messages.
func describeSets(v SetView) string {
	var lines []string
	for _, s := range v.Sets {
		st := s.Status
		lines = append(lines, fmt.Sprintf("StatefulSet %s gen %d: spec %d, status observedGen %d replicas %d ready %d available %d current %d updated %d revisions %s→%s",
			s.Name, s.Generation, replicasOrOne(s.Spec.Replicas), st.ObservedGeneration, st.Replicas, st.ReadyReplicas,
			st.AvailableReplicas, st.CurrentReplicas, st.UpdatedReplicas, st.CurrentRevision, st.UpdateRevision))
	}
	for _, p := range v.Pods {
		lines = append(lines, fmt.Sprintf("Pod %s rev %s ready=%t phase %s terminating=%t node %q", p.Name,
			p.Labels[revisionHashLabel], api.IsPodReady(p), p.Status.Phase, p.DeletionTimestamp != nil, p.Spec.NodeName))
	}
	for _, c := range v.Claims {
		lines = append(lines, fmt.Sprintf("Claim %s %s terminating=%t owners %s", c.Name, c.Status.Phase,
			c.DeletionTimestamp != nil, owners(c.OwnerReferences)))
	}
	for _, r := range v.Revisions {
		lines = append(lines, fmt.Sprintf("ControllerRevision %s (%d)", r.Name, r.Revision))
	}
	sort.Strings(lines)
	lines = append(lines, fmt.Sprintf("Events about StatefulSets: %d", v.EventCount))
	return "  " + strings.Join(lines, "\n  ")
}
