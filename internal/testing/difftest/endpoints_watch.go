package difftest

import (
	"context"
	"fmt"
	"hash/fnv"
	"maps"
	"slices"
	"sort"
	"strings"
	"sync"

	"github.com/kcmlab/kcm/kube/api"
	"github.com/kcmlab/kcm/kube/api/decode"
	"github.com/kcmlab/kcm/kube/rest"
)

// EndpointsWatch watches the Endpoints and, when asked, the EndpointSlices
// of one namespace (all namespaces for ""), keeps their latest state for
// the scenario drivers to wait on, and keeps one line per write that
// reached the watch: what changed in the object's membership, keyed by
// pod name, since the previous version the watch saw. Pod IPs, node
// placement of the moment and generated slice names differ between runs;
// the lines name pods and number slices in order of first appearance, so
// two runs that write the same things in the same order have the same
// lines.
//
// Like Observer it uses plain watches, not kcm's informers.
type EndpointsWatch struct {
	cancel context.CancelFunc
	wg     sync.WaitGroup

	mu        sync.Mutex
	changed   chan struct{}                 // closed and replaced on every event; guarded by mu
	endpoints map[string]*api.Endpoints     // by namespace/name; guarded by mu
	slices    map[string]*api.EndpointSlice // by namespace/name; guarded by mu
	sliceIDs  map[string]string             // generated name → "<service> slice#N"; guarded by mu
	lines     map[string][]string           // pending write lines by kind; guarded by mu
	writes    map[string]int                // writes seen by kind; guarded by mu
	err       error                         // first watch failure; guarded by mu
}

// EndpointsView is the watch's state at one moment; read it only inside
// the function given to WaitFor.
type EndpointsView struct {
	Endpoints map[string]*api.Endpoints     // by namespace/name
	Slices    map[string]*api.EndpointSlice // by namespace/name
}

// WatchEndpoints starts watching ns ("" for all namespaces), EndpointSlices
// too when withSlices.
func WatchEndpoints(ctx context.Context, client *rest.Client, ns string, withSlices bool) (*EndpointsWatch, error) {
	w := &EndpointsWatch{changed: make(chan struct{}), endpoints: map[string]*api.Endpoints{},
		slices: map[string]*api.EndpointSlice{}, sliceIDs: map[string]string{}, lines: map[string][]string{},
		writes: map[string]int{}}
	wctx, cancel := context.WithCancel(ctx)
	w.cancel = cancel
	eps := rest.NewResources(client, rest.Endpoints, decode.Typed[api.Endpoints]())
	ess := rest.NewResources(client, rest.EndpointSlices, decode.Typed[api.EndpointSlice]())
	if ns != "" {
		eps, ess = eps.InNamespace(ns), ess.InNamespace(ns)
	}
	if err := watchEach(wctx, w, eps, w.applyEndpoints); err != nil {
		w.Stop()
		return nil, err
	}
	if withSlices {
		if err := watchEach(wctx, w, ess, w.applySlice); err != nil {
			w.Stop()
			return nil, err
		}
	}
	return w, nil
}

// watchEach is listWatch for an EndpointsWatch; its apply's last
// argument says whether the event is a write (a listed item is not).
func watchEach[T api.Object](ctx context.Context, w *EndpointsWatch, res *rest.Resources[T], apply func(rest.EventType, T, bool)) error {
	return listWatch(ctx, recorder{mu: &w.mu, wg: &w.wg, err: &w.err, signal: w.signalLocked}, res,
		func(typ rest.EventType, obj T, listed bool) { apply(typ, obj, !listed) })
}

// signalLocked wakes every WaitFor; the caller holds w.mu.
func (w *EndpointsWatch) signalLocked() {
	close(w.changed)
	w.changed = make(chan struct{})
}

func objKey(ns, name string) string { return ns + "/" + name }

// applyEndpoints records one Endpoints event; write says it is a write
// seen on the watch rather than an item of the first list.
func (w *EndpointsWatch) applyEndpoints(t rest.EventType, e *api.Endpoints, write bool) {
	key := objKey(e.Namespace, e.Name)
	before := endpointsMembers(w.endpoints[key])
	if t == rest.Deleted {
		delete(w.endpoints, key)
	} else {
		w.endpoints[key] = e
	}
	if write {
		after := endpointsMembers(w.endpoints[key])
		w.writes["Endpoints"]++
		w.lines["Endpoints"] = append(w.lines["Endpoints"], fmt.Sprintf("#%d %s Endpoints %s: %s", w.writes["Endpoints"], t, e.Name, memberDelta(before, after)))
	}
}

// applySlice records one EndpointSlice event.
func (w *EndpointsWatch) applySlice(t rest.EventType, s *api.EndpointSlice, write bool) {
	key := objKey(s.Namespace, s.Name)
	before := sliceMembers(w.slices[key])
	if t == rest.Deleted {
		delete(w.slices, key)
	} else {
		w.slices[key] = s
	}
	id, ok := w.sliceIDs[key]
	if !ok {
		svc := s.Labels[serviceNameLabel]
		n := 0
		for _, v := range w.sliceIDs {
			if strings.HasPrefix(v, svc+" slice#") {
				n++
			}
		}
		id = fmt.Sprintf("%s slice#%d", svc, n+1)
		w.sliceIDs[key] = id
	}
	if write {
		after := sliceMembers(w.slices[key])
		w.writes["EndpointSlice"]++
		w.lines["EndpointSlice"] = append(w.lines["EndpointSlice"], fmt.Sprintf("#%d %s EndpointSlice %s: %s", w.writes["EndpointSlice"], t, id, memberDelta(before, after)))
	}
}

// serviceNameLabel names a slice's Service (discovery.k8s.io/v1
// LabelServiceName).
const serviceNameLabel = "kubernetes.io/service-name"

// endpointsMembers maps each address (by its pod's name, or its IP when it
// has no targetRef) to its state: "ready" or "notready", with the ports of
// its subset and its hostname.
func endpointsMembers(e *api.Endpoints) map[string]string {
	m := map[string]string{}
	if e == nil {
		return m
	}
	for _, ss := range e.Subsets {
		ports := make([]string, len(ss.Ports))
		for i, p := range ss.Ports {
			ports[i] = fmt.Sprintf("%s:%d", p.Name, p.Port)
		}
		sort.Strings(ports)
		for _, list := range []struct {
			addrs []api.EndpointAddress
			state string
		}{{ss.Addresses, "ready"}, {ss.NotReadyAddresses, "notready"}} {
			for _, a := range list.addrs {
				name := a.IP
				if a.TargetRef != nil {
					name = a.TargetRef.Name
				}
				v := list.state + "[" + strings.Join(ports, ",") + "]"
				if a.Hostname != "" {
					v += " hostname=" + a.Hostname
				}
				if prev, ok := m[name]; ok {
					v = prev + " " + v
				}
				m[name] = v
			}
		}
	}
	return m
}

// sliceMembers maps each endpoint of a slice (by pod name, or first
// address) to its conditions, with the slice's ports.
func sliceMembers(s *api.EndpointSlice) map[string]string {
	m := map[string]string{}
	if s == nil {
		return m
	}
	ports := make([]string, len(s.Ports))
	for i, p := range s.Ports {
		ports[i] = fmt.Sprintf("%s:%d", deref(p.Name), derefInt(p.Port))
	}
	sort.Strings(ports)
	for _, ep := range s.Endpoints {
		name := strings.Join(ep.Addresses, ",")
		if ep.TargetRef != nil {
			name = ep.TargetRef.Name
		}
		c := ep.Conditions
		m[name] = fmt.Sprintf("ready=%s serving=%s terminating=%s [%s]", boolText(c.Ready), boolText(c.Serving),
			boolText(c.Terminating), strings.Join(ports, ","))
	}
	return m
}

func deref(s *string) string {
	if s == nil {
		return "-"
	}
	return *s
}

func derefInt(n *int32) int32 {
	if n == nil {
		return 0
	}
	return *n
}

func boolText(b *bool) string {
	if b == nil {
		return "nil"
	}
	return fmt.Sprint(*b)
}

// maxDeltaParts is how many changes a write line lists one by one.
const maxDeltaParts = 4

// memberDelta renders what changed between two membership maps:
// "+a ready[...], ~b notready[...], -c", or "no membership change".
func memberDelta(before, after map[string]string) string {
	var parts []string
	for _, k := range slices.Sorted(maps.Keys(after)) {
		if old, ok := before[k]; !ok {
			parts = append(parts, "+"+k+" "+after[k])
		} else if old != after[k] {
			parts = append(parts, "~"+k+" "+after[k])
		}
	}
	for _, k := range slices.Sorted(maps.Keys(before)) {
		if _, ok := after[k]; !ok {
			parts = append(parts, "-"+k)
		}
	}
	switch {
	case len(parts) == 0:
		return "no membership change"
	case len(parts) > maxDeltaParts:
		// A line per write stays readable: the count, the first and last
		// change, and a digest of all of them, which still compares.
		h := fnv.New32a()
		for _, p := range parts {
			h.Write([]byte(p + "\n"))
		}
		return fmt.Sprintf("%d changes, %s … %s (digest %08x)", len(parts), parts[0], parts[len(parts)-1], h.Sum32())
	}
	return strings.Join(parts, ", ")
}

// Flush hands the write lines seen since the last Flush to record, the
// Endpoints ones first, then the EndpointSlice ones: each kind comes in
// the order kube-apiserver committed it, and the fixed order between the
// kinds (two watches keep no order between each other) makes the result
// independent of which watch delivered first.
func (w *EndpointsWatch) Flush(record func(string)) {
	w.mu.Lock()
	var lines []string
	for _, kind := range []string{"Endpoints", "EndpointSlice"} {
		lines = append(lines, w.lines[kind]...)
		w.lines[kind] = nil
	}
	w.mu.Unlock()
	for _, l := range lines {
		record(l)
	}
}

// Writes returns how many writes of kind ("Endpoints", "EndpointSlice")
// the watch has seen.
func (w *EndpointsWatch) Writes(kind string) int {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.writes[kind]
}

// WaitFor blocks until cond holds on the watch's state, a watch fails, or
// ctx ends. cond runs under the lock and must not block.
func (w *EndpointsWatch) WaitFor(ctx context.Context, what string, cond func(EndpointsView) bool) error {
	for {
		w.mu.Lock()
		v := EndpointsView{Endpoints: w.endpoints, Slices: w.slices}
		if w.err != nil {
			err := w.err
			w.mu.Unlock()
			return fmt.Errorf("waiting for %s: %w", what, err)
		}
		if cond(v) {
			w.mu.Unlock()
			return nil
		}
		ch := w.changed
		state := describeEndpoints(v)
		w.mu.Unlock()
		select {
		case <-ctx.Done():
			return fmt.Errorf("waiting for %s: %w; last state seen:\n%s", what, ctx.Err(), state)
		case <-ch:
		}
	}
}

// Stop ends the watches and waits for their goroutines.
func (w *EndpointsWatch) Stop() {
	w.cancel()
	w.wg.Wait()
}

// describeEndpoints renders a view for error messages.
func describeEndpoints(v EndpointsView) string {
	var lines []string
	for k, e := range v.Endpoints {
		lines = append(lines, fmt.Sprintf("Endpoints %s: %v", k, endpointsMembers(e)))
	}
	for k, s := range v.Slices {
		lines = append(lines, fmt.Sprintf("EndpointSlice %s (%s): %v", k, s.Labels[serviceNameLabel], sliceMembers(s)))
	}
	sort.Strings(lines)
	return "  " + strings.Join(lines, "\n  ")
}

// ServiceMembers returns, for the Service ns/name, the pods (or IPs) its
// Endpoints lists, each "ready" or "notready" (a pod in several subsets
// counts once, ready if it is ready in one).
func (v EndpointsView) ServiceMembers(ns, name string) map[string]bool {
	e, ok := v.Endpoints[objKey(ns, name)]
	if !ok {
		return nil
	}
	m := map[string]bool{}
	for _, ss := range e.Subsets {
		for _, a := range ss.NotReadyAddresses {
			if _, seen := m[memberName(a)]; !seen {
				m[memberName(a)] = false
			}
		}
		for _, a := range ss.Addresses {
			m[memberName(a)] = true
		}
	}
	return m
}

func memberName(a api.EndpointAddress) string {
	if a.TargetRef != nil {
		return a.TargetRef.Name
	}
	return a.IP
}

// SliceMembers returns the endpoints of the Service ns/name over all its
// slices, by pod name (or addresses), each with its conditions rendered
// as in the write lines; nil when it has no slice.
func (v EndpointsView) SliceMembers(ns, name string) map[string]string {
	var m map[string]string
	for _, s := range v.Slices {
		if s.Namespace != ns || s.Labels[serviceNameLabel] != name {
			continue
		}
		if m == nil {
			m = map[string]string{}
		}
		maps.Copy(m, sliceMembers(s))
	}
	return m
}
