package managerbench

import (
	"context"
	"time"

	"github.com/kcmlab/kcm/kube/api"
	"github.com/kcmlab/kcm/kube/rest"
)

// LabelServiceName is the label that ties an EndpointSlice to its Service
// (discovery.k8s.io/v1 kubernetes.io/service-name).
const LabelServiceName = "kubernetes.io/service-name"

// labelApp is the pod label the endpoints benchmark selects a Service's
// pods by; its value is the Service's name.
const labelApp = "app"

// WriteCounts are the events seen for one Service (or all of them): its
// pods' events (the harness's and kwok's writes) and the writes to its
// Endpoints and EndpointSlices (the managers').
type WriteCounts struct {
	PodEvents, Endpoints, Slices int
}

// Sub is c − o, the counts of a window given the counts at its start.
func (c WriteCounts) Sub(o WriteCounts) WriteCounts {
	return WriteCounts{PodEvents: c.PodEvents - o.PodEvents, Endpoints: c.Endpoints - o.Endpoints, Slices: c.Slices - o.Slices}
}

// EndpointCounts is what a Service's Endpoints (or EndpointSlices) list
// now: ready addresses and the rest (not ready, or terminating).
type EndpointCounts struct {
	Ready, Other int
}

// esService is the tracked state of one Service.
type esService struct {
	writes    WriteCounts
	endpoints EndpointCounts            // of its Endpoints object
	slices    map[string]EndpointCounts // slice name → its endpoints
}

// esTracker follows, from watch events, what the endpoints benchmark
// measures: when each pod turned Ready, when Endpoints and EndpointSlices
// were written, how many events each Service's pods, Endpoints and slices
// had, and what each Service's Endpoints and slices hold now. It is fed by
// three watches (observe*) and read by the scenario (Wait, Totals,
// Service, ...); all its state is guarded by mu.
type esTracker struct {
	watchState
	inScope func(ns string) bool
	svcs    map[string]*esService // namespace/name → state
	ready   map[string]bool       // pod namespace/name → Ready now
	total   WriteCounts
	// lastReady is when a pod last turned Ready; lastEndpoints and
	// lastSlice when an Endpoints object or slice was last written.
	lastReady, lastEndpoints, lastSlice time.Time
}

func newESTracker(inScope func(ns string) bool) *esTracker {
	return &esTracker{inScope: inScope, svcs: map[string]*esService{}, ready: map[string]bool{}}
}

// svc returns the state of key, creating it. Callers hold mu.
func (t *esTracker) svc(key string) *esService {
	s := t.svcs[key]
	if s == nil {
		s = &esService{slices: map[string]EndpointCounts{}}
		t.svcs[key] = s
	}
	return s
}

// observePod records a pod event seen at at: one event of its Service's
// pods (the Service named by its app label) and, when it turned Ready,
// the time.
func (t *esTracker) observePod(typ rest.EventType, p *api.Pod, at time.Time) {
	if !t.inScope(p.Namespace) {
		return
	}
	t.mu.Lock()
	defer t.mu.Unlock()
	key := p.Namespace + "/" + p.Name
	s := t.svc(p.Namespace + "/" + p.Labels[labelApp])
	s.writes.PodEvents++
	t.total.PodEvents++
	if typ == rest.Deleted {
		delete(t.ready, key)
	} else {
		ready := api.IsPodReady(p)
		if ready && !t.ready[key] {
			t.lastReady = at
		}
		t.ready[key] = ready
	}
	t.notify()
}

// observeEndpoints records a write to an Endpoints object.
func (t *esTracker) observeEndpoints(typ rest.EventType, e *api.Endpoints, at time.Time) {
	if !t.inScope(e.Namespace) {
		return
	}
	t.mu.Lock()
	defer t.mu.Unlock()
	s := t.svc(e.Namespace + "/" + e.Name)
	s.writes.Endpoints++
	t.total.Endpoints++
	t.lastEndpoints = at
	s.endpoints = EndpointCounts{}
	if typ != rest.Deleted {
		s.endpoints = countEndpoints(e)
	}
	t.notify()
}

// observeSlice records a write to an EndpointSlice, counted for the
// Service its kubernetes.io/service-name label names.
func (t *esTracker) observeSlice(typ rest.EventType, es *api.EndpointSlice, at time.Time) {
	if !t.inScope(es.Namespace) {
		return
	}
	t.mu.Lock()
	defer t.mu.Unlock()
	s := t.svc(es.Namespace + "/" + es.Labels[LabelServiceName])
	s.writes.Slices++
	t.total.Slices++
	t.lastSlice = at
	if typ == rest.Deleted {
		delete(s.slices, es.Name)
	} else {
		s.slices[es.Name] = countSlice(es)
	}
	t.notify()
}

// countEndpoints counts an Endpoints object's ready and not-ready
// addresses over its subsets.
func countEndpoints(e *api.Endpoints) EndpointCounts {
	var c EndpointCounts
	for _, ss := range e.Subsets {
		c.Ready += len(ss.Addresses)
		c.Other += len(ss.NotReadyAddresses)
	}
	return c
}

// countSlice counts a slice's ready endpoints and the rest. A nil ready
// condition counts as ready, as consumers read it (discovery.k8s.io/v1
// EndpointConditions.Ready: "nil should be interpreted as true").
func countSlice(es *api.EndpointSlice) EndpointCounts {
	var c EndpointCounts
	for _, ep := range es.Endpoints {
		if ep.Conditions.Ready == nil || *ep.Conditions.Ready {
			c.Ready++
		} else {
			c.Other++
		}
	}
	return c
}

// ESView is a read-only view of a tracker's state under its lock, given
// to the conditions of Wait.
type ESView struct{ t *esTracker }

// Endpoints is what the Service key's Endpoints object holds now.
func (v ESView) Endpoints(key string) EndpointCounts {
	if s := v.t.svcs[key]; s != nil {
		return s.endpoints
	}
	return EndpointCounts{}
}

// Slices is what the Service key's EndpointSlices hold now, summed, and
// how many slices there are.
func (v ESView) Slices(key string) (EndpointCounts, int) {
	var c EndpointCounts
	s := v.t.svcs[key]
	if s == nil {
		return c, 0
	}
	for _, sc := range s.slices {
		c.Ready += sc.Ready
		c.Other += sc.Other
	}
	return c, len(s.slices)
}

// PodReady reports whether the pod namespace/name is Ready now.
func (v ESView) PodReady(key string) bool { return v.t.ready[key] }

// PodGone reports whether the pod namespace/name has been seen and since
// deleted (or never seen).
func (v ESView) PodGone(key string) bool {
	_, ok := v.t.ready[key]
	return !ok
}

// Wait returns once cond holds, checking it after every event; it fails
// when ctx ends or a watch has failed.
func (t *esTracker) Wait(ctx context.Context, what string, cond func(ESView) bool) error {
	return t.waitFor(ctx, what, func() bool { return cond(ESView{t}) })
}

// ESTimes are the tracker's last moments: a pod turned Ready, an
// Endpoints object was written, a slice was written (zero: never).
type ESTimes struct {
	LastReady, LastEndpoints, LastSlice time.Time
}

// Times returns the last moments seen so far.
func (t *esTracker) Times() ESTimes {
	t.mu.Lock()
	defer t.mu.Unlock()
	return ESTimes{LastReady: t.lastReady, LastEndpoints: t.lastEndpoints, LastSlice: t.lastSlice}
}

// Progress is esProgress on the tracker's state now.
func (t *esTracker) Progress(keys []string, want int, slices bool) string {
	t.mu.Lock()
	defer t.mu.Unlock()
	return esProgress(ESView{t}, keys, want, slices)
}

// Totals returns the events counted over every Service in scope.
func (t *esTracker) Totals() WriteCounts {
	t.mu.Lock()
	defer t.mu.Unlock()
	return t.total
}

// Service returns the events counted for the Service key.
func (t *esTracker) Service(key string) WriteCounts {
	t.mu.Lock()
	defer t.mu.Unlock()
	if s := t.svcs[key]; s != nil {
		return s.writes
	}
	return WriteCounts{}
}
