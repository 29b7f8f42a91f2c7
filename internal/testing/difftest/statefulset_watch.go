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

	mu         sync.Mutex
	changed    chan struct{} // closed and replaced on every change; guarded by mu
	sets       map[string]*api.StatefulSet
	pods       map[string]*api.Pod
	claims     map[string]*api.PersistentVolumeClaim
	revisions  map[string]*api.ControllerRevision
	events     map[string]setEvent // Events about StatefulSets, by name
	steps      []SetStep           // guarded by mu
	deleting   map[string]bool     // "Kind/name/uid" whose deletion is logged; guarded by mu
	podDeletes map[string]int      // by pod name: deletion steps logged; guarded by mu
	strays     []string            // pods deleted by name by kwok (stray); guarded by mu
	replacing  map[string]strayPod // by name: a stray's replacement not yet seen; guarded by mu
	dropReady  map[string]bool     // by name: whether the replacement's Ready step is dropped; guarded by mu
	err        error               // the first watch failure; guarded by mu
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
		deleting: map[string]bool{}, podDeletes: map[string]int{}, events: map[string]setEvent{},
		replacing: map[string]strayPod{}, dropReady: map[string]bool{}}
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

// setWatchInto is listWatch for a SetWatch: a listed item is applied
// with listed true, so that it is not logged as a step.
func setWatchInto[T api.Object](ctx context.Context, w *SetWatch, res *rest.Resources[T], apply func(rest.EventType, T, bool)) error {
	return listWatch(ctx, recorder{mu: &w.mu, wg: &w.wg, err: &w.err, signal: w.signalLocked}, res, apply)
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
		if kind == "pod" {
			w.podDeletes[m.Name]++
		}
	}
	return true
}

func (w *SetWatch) logPod(t rest.EventType, old, p *api.Pod, listed bool) {
	if !listed && (t == rest.Deleted || forced(p)) && w.stray(old, p) {
		return
	}
	if w.deletion(t, "pod", &p.ObjectMeta, listed) || t == rest.Deleted || listed {
		return
	}
	rev := p.Labels[revisionHashLabel]
	if old == nil || old.UID != p.UID {
		if st, ok := w.replacing[p.Name]; ok && st.rev == rev {
			// The controller's answer to a stray deletion: not a step.
			delete(w.replacing, p.Name)
			w.dropReady[p.Name] = st.ready
			return
		}
		w.addLocked(p.ResourceVersion, "create pod "+p.Name+" rev "+rev)
		if api.IsPodReady(p) {
			w.readyLocked(p)
		}
		return
	}
	if !api.IsPodReady(old) && api.IsPodReady(p) {
		w.readyLocked(p)
	}
	if !maps.Equal(old.Labels, p.Labels) {
		w.addLocked(p.ResourceVersion, "relabel pod "+p.Name+": "+renderLabels(p.Labels))
	}
	if owners(old.OwnerReferences) != owners(p.OwnerReferences) {
		w.addLocked(p.ResourceVersion, "reown pod "+p.Name+": "+owners(p.OwnerReferences))
	}
}

// readyLocked logs a pod turning Ready, unless it is the replacement of a
// stray deletion whose pod had been logged Ready already.
func (w *SetWatch) readyLocked(p *api.Pod) {
	if drop, ok := w.dropReady[p.Name]; ok {
		delete(w.dropReady, p.Name)
		if drop {
			return
		}
	}
	w.addLocked(p.ResourceVersion, "ready pod "+p.Name)
}

// stray handles a pod whose deletion is first seen as a forced one: gone
// without ever being seen marked for deletion, or first seen marked with
// grace 0 (kube-apiserver writes the deletionTimestamp of a grace-0
// deletion of a scheduled pod, then removes the pod). kwok deletes a pod
// marked for deletion with grace 0, by name, without a uid precondition
// (deleteResource in sigs.k8s.io/kwok/pkg/kwok/controllers/pod_controller.go),
// and it does so twice for one pod (the audit log shows a 200 and, most
// often, a 404); when the controller has replaced the pod in between — a
// StatefulSet's replacement has the same name — the second deletion
// removes the replacement. A kubelet deletes with the pod's uid as
// precondition and cannot do that. The controllers' and the scenarios' own
// deletions of the scenarios' pods, all scheduled by then, are graceful
// (the pod's 30 s), so they are always seen marked first with a grace
// period above 0. A stray deletion is not a step;
// nor is the controller's re-creation of the pod (the next creation of that
// name at the same revision) nor, if the lost pod had been logged Ready,
// its replacement turning Ready: the run is logged as if the pod had not
// been lost. Strays lists them, and Events takes the re-creation's Event
// out of the counts.
func (w *SetWatch) stray(old, p *api.Pod) bool {
	if w.deleting["pod/"+p.Name+"/"+p.UID] {
		return false
	}
	last := p
	if old != nil && old.UID == p.UID {
		last = old
	}
	w.deleting["pod/"+p.Name+"/"+p.UID] = true
	w.strays = append(w.strays, p.Name)
	w.replacing[p.Name] = strayPod{rev: last.Labels[revisionHashLabel], ready: api.IsPodReady(last)}
	return true
}

// forced reports whether p is marked for deletion with grace 0.
func forced(p *api.Pod) bool {
	return p.DeletionTimestamp != nil && p.DeletionGracePeriodSeconds != nil && *p.DeletionGracePeriodSeconds == 0
}

// strayPod is what a stray deletion took: the pod's revision and whether
// it had been logged Ready.
type strayPod struct {
	rev   string
	ready bool
}

// Strays returns the names of the pods deleted by kwok's stray deletions
// so far (see stray).
func (w *SetWatch) Strays() []string {
	w.mu.Lock()
	defer w.mu.Unlock()
	return slices.Clone(w.strays)
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
// N)", sorted, and the sum of their counts, less the re-creations of
// stray deletions (see stray) and the deletions of pods already
// terminating.
//
// The StatefulSet controller reads its pods from its informer and deletes
// by name: when a sync runs before the informer has delivered a condemned
// pod's deletionTimestamp (a Parallel scale-down deletes several pods at
// once, each answered by another sync), it deletes the terminating pod
// again; kube-apiserver answers 200 and the controller records a second
// "Delete Pod" Event, which the recorder counts into the first.
// kube-controller-manager v1.37.2 did so in one of three runs of the same
// scenario. Such a deletion changes no object, so a "Delete Pod P" Event
// counts at most the deletions of P the step log holds; a deletion the
// controller made without its Event still shows.
func (w *SetWatch) Events() ([]string, int) {
	w.mu.Lock()
	defer w.mu.Unlock()
	counts := map[string]int{} // by event name
	for name, e := range w.events {
		counts[name] = e.count
		if pod, ok := deletedPod(e.line); ok {
			counts[name] = min(counts[name], w.podDeletes[pod])
		}
	}
	// A stray's re-creation has its Event like any creation: take one off
	// the largest count of that pod's creation Events.
	for _, pod := range w.strays {
		best := ""
		for name, e := range w.events {
			if strings.Contains(e.line, "SuccessfulCreate: Create Pod "+pod+" in StatefulSet ") &&
				(best == "" || counts[name] > counts[best] || counts[name] == counts[best] && name < best) {
				best = name
			}
		}
		if best != "" {
			counts[best]--
		}
	}
	lines := make([]string, 0, len(w.events))
	total := 0
	for name, e := range w.events {
		if counts[name] > 0 {
			lines = append(lines, fmt.Sprintf("%s (count %d)", e.line, counts[name]))
			total += counts[name]
		}
	}
	sort.Strings(lines)
	return lines, total
}

// deletedPod returns the pod of a "SuccessfulDelete: Delete Pod P in
// StatefulSet S successful" Event line.
func deletedPod(line string) (string, bool) {
	_, rest, ok := strings.Cut(line, " SuccessfulDelete: Delete Pod ")
	if !ok {
		return "", false
	}
	pod, _, ok := strings.Cut(rest, " in StatefulSet ")
	return pod, ok
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
