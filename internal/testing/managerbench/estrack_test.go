package managerbench

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/kcmlab/kcm/kube/api"
	"github.com/kcmlab/kcm/kube/rest"
)

var t0 = time.Date(2026, 12, 6, 10, 0, 0, 0, time.UTC)

func at(s int) time.Time { return t0.Add(time.Duration(s) * time.Second) }

func esTestPod(ns, name, svc string, ready bool) *api.Pod {
	p := &api.Pod{ObjectMeta: api.ObjectMeta{Namespace: ns, Name: name, Labels: map[string]string{labelApp: svc}}}
	st := api.ConditionFalse
	if ready {
		st = api.ConditionTrue
	}
	p.Status.Conditions = []api.PodCondition{{Type: api.PodReady, Status: st}}
	return p
}

func esTestEndpoints(ns, name string, ready, notReady int) *api.Endpoints {
	e := &api.Endpoints{ObjectMeta: api.ObjectMeta{Namespace: ns, Name: name}}
	if ready+notReady > 0 {
		e.Subsets = []api.EndpointSubset{{Addresses: make([]api.EndpointAddress, ready),
			NotReadyAddresses: make([]api.EndpointAddress, notReady)}}
	}
	return e
}

func ptr[T any](v T) *T { return &v }

// esTestSlice is a slice of svc with the given ready conditions (nil:
// unset, which consumers read as ready).
func esTestSlice(ns, name, svc string, ready ...*bool) *api.EndpointSlice {
	s := &api.EndpointSlice{ObjectMeta: api.ObjectMeta{Namespace: ns, Name: name,
		Labels: map[string]string{LabelServiceName: svc}}}
	for _, r := range ready {
		s.Endpoints = append(s.Endpoints, api.Endpoint{Conditions: api.EndpointConditions{Ready: r}})
	}
	return s
}

func inES(ns string) bool { return len(ns) > 3 && ns[:3] == esPrefix }

// The tracker's times and counts follow the events it is fed: a pod's
// first Ready counts (not a repeat, not an unready one), writes count per
// Service and in total, events outside the scope are ignored.
func TestESTrackerCounts(t *testing.T) {
	tr := newESTracker(inES)
	tr.observePod(rest.Added, esTestPod("es-00", "a-0", "a", false), at(1))
	tr.observeEndpoints(rest.Added, esTestEndpoints("es-00", "a", 0, 0), at(2))
	tr.observeSlice(rest.Added, esTestSlice("es-00", "a-x", "a"), at(2))
	tr.observePod(rest.Modified, esTestPod("es-00", "a-0", "a", true), at(3))
	tr.observePod(rest.Modified, esTestPod("es-00", "a-0", "a", true), at(4)) // still Ready: not a new Ready
	tr.observePod(rest.Added, esTestPod("es-00", "b-0", "b", false), at(5))   // never Ready
	tr.observeEndpoints(rest.Modified, esTestEndpoints("es-00", "a", 1, 0), at(6))
	tr.observeSlice(rest.Modified, esTestSlice("es-00", "a-x", "a", ptr(true)), at(7))
	tr.observePod(rest.Added, esTestPod("default", "z", "a", true), at(8)) // out of scope
	tr.observeEndpoints(rest.Modified, esTestEndpoints("kube-system", "a", 1, 0), at(9))
	tr.observeSlice(rest.Modified, esTestSlice("kube-system", "a-x", "a"), at(9))

	if got, want := tr.Times(), (ESTimes{LastReady: at(3), LastEndpoints: at(6), LastSlice: at(7)}); got != want {
		t.Errorf("Times() = %+v, want %+v", got, want)
	}
	if got, want := tr.Totals(), (WriteCounts{PodEvents: 4, Endpoints: 2, Slices: 2}); got != want {
		t.Errorf("Totals() = %+v, want %+v", got, want)
	}
	if got, want := tr.Service("es-00/a"), (WriteCounts{PodEvents: 3, Endpoints: 2, Slices: 2}); got != want {
		t.Errorf("Service(a) = %+v, want %+v", got, want)
	}
	if got, want := tr.Service("es-00/b"), (WriteCounts{PodEvents: 1}); got != want {
		t.Errorf("Service(b) = %+v, want %+v", got, want)
	}
	if got := tr.Service("es-00/none"); got != (WriteCounts{}) {
		t.Errorf("Service(none) = %+v, want zero", got)
	}
}

// What a Service's Endpoints and slices hold is the latest object's
// content; a deleted slice no longer counts, a deleted Endpoints holds
// nothing.
func TestESTrackerState(t *testing.T) {
	tests := []struct {
		name      string
		feed      func(tr *esTracker)
		endpoints EndpointCounts
		slices    EndpointCounts
		nSlices   int
	}{
		{"nothing", func(*esTracker) {}, EndpointCounts{}, EndpointCounts{}, 0},
		{"ready and not ready addresses", func(tr *esTracker) {
			tr.observeEndpoints(rest.Added, esTestEndpoints("es-00", "a", 3, 2), at(1))
		}, EndpointCounts{Ready: 3, Other: 2}, EndpointCounts{}, 0},
		{"the latest write wins", func(tr *esTracker) {
			tr.observeEndpoints(rest.Added, esTestEndpoints("es-00", "a", 3, 2), at(1))
			tr.observeEndpoints(rest.Modified, esTestEndpoints("es-00", "a", 5, 0), at(2))
		}, EndpointCounts{Ready: 5}, EndpointCounts{}, 0},
		{"deleted Endpoints", func(tr *esTracker) {
			tr.observeEndpoints(rest.Added, esTestEndpoints("es-00", "a", 3, 0), at(1))
			tr.observeEndpoints(rest.Deleted, esTestEndpoints("es-00", "a", 3, 0), at(2))
		}, EndpointCounts{}, EndpointCounts{}, 0},
		{"slices summed; nil ready is ready", func(tr *esTracker) {
			tr.observeSlice(rest.Added, esTestSlice("es-00", "a-1", "a", ptr(true), nil, ptr(false)), at(1))
			tr.observeSlice(rest.Added, esTestSlice("es-00", "a-2", "a", ptr(true)), at(1))
		}, EndpointCounts{}, EndpointCounts{Ready: 3, Other: 1}, 2},
		{"a deleted slice drops out", func(tr *esTracker) {
			tr.observeSlice(rest.Added, esTestSlice("es-00", "a-1", "a", ptr(true), nil), at(1))
			tr.observeSlice(rest.Added, esTestSlice("es-00", "a-2", "a", ptr(true)), at(1))
			tr.observeSlice(rest.Deleted, esTestSlice("es-00", "a-1", "a", ptr(true), nil), at(2))
		}, EndpointCounts{}, EndpointCounts{Ready: 1}, 1},
		{"another Service's slice", func(tr *esTracker) {
			tr.observeSlice(rest.Added, esTestSlice("es-00", "b-1", "b", ptr(true)), at(1))
		}, EndpointCounts{}, EndpointCounts{}, 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			tr := newESTracker(inES)
			tt.feed(tr)
			v := ESView{tr}
			if got := v.Endpoints("es-00/a"); got != tt.endpoints {
				t.Errorf("Endpoints = %+v, want %+v", got, tt.endpoints)
			}
			if got, n := v.Slices("es-00/a"); got != tt.slices || n != tt.nSlices {
				t.Errorf("Slices = %+v in %d, want %+v in %d", got, n, tt.slices, tt.nSlices)
			}
		})
	}
}

// A pod is Ready while its last event says so, and gone once deleted.
func TestESTrackerPods(t *testing.T) {
	tr := newESTracker(inES)
	v := ESView{tr}
	tr.observePod(rest.Added, esTestPod("es-00", "a-0", "a", false), at(1))
	if v.PodReady("es-00/a-0") || v.PodGone("es-00/a-0") {
		t.Fatal("a new unready pod: want not Ready, not gone")
	}
	tr.observePod(rest.Modified, esTestPod("es-00", "a-0", "a", true), at(2))
	if !v.PodReady("es-00/a-0") {
		t.Fatal("want Ready")
	}
	tr.observePod(rest.Modified, esTestPod("es-00", "a-0", "a", false), at(3))
	if v.PodReady("es-00/a-0") {
		t.Fatal("want not Ready after its Ready condition turned False")
	}
	tr.observePod(rest.Deleted, esTestPod("es-00", "a-0", "a", false), at(4))
	if !v.PodGone("es-00/a-0") {
		t.Fatal("want gone after DELETED")
	}
	if got := tr.Times().LastReady; got != at(2) {
		t.Fatalf("LastReady = %v, want %v", got, at(2))
	}
}

// esConverged wants exactly the pods' number of endpoints, all ready, in
// the Endpoints and (when asked) in the slices of every Service.
func TestESConverged(t *testing.T) {
	keys := []string{"es-00/a", "es-00/b"}
	both := func(tr *esTracker) {
		tr.observeEndpoints(rest.Added, esTestEndpoints("es-00", "a", 2, 0), at(1))
		tr.observeEndpoints(rest.Added, esTestEndpoints("es-00", "b", 2, 0), at(1))
	}
	tests := []struct {
		name   string
		feed   func(tr *esTracker)
		slices bool
		want   bool
	}{
		{"nothing written", func(*esTracker) {}, false, false},
		{"Endpoints complete, slices not asked", both, false, true},
		{"Endpoints complete, slices missing", both, true, false},
		{"one Service short", func(tr *esTracker) {
			tr.observeEndpoints(rest.Added, esTestEndpoints("es-00", "a", 2, 0), at(1))
			tr.observeEndpoints(rest.Added, esTestEndpoints("es-00", "b", 1, 0), at(1))
		}, false, false},
		{"a not-ready address left", func(tr *esTracker) {
			both(tr)
			tr.observeEndpoints(rest.Modified, esTestEndpoints("es-00", "b", 2, 1), at(2))
		}, false, false},
		{"too many (an old pod still listed)", func(tr *esTracker) {
			both(tr)
			tr.observeEndpoints(rest.Modified, esTestEndpoints("es-00", "b", 3, 0), at(2))
		}, false, false},
		{"Endpoints and slices complete", func(tr *esTracker) {
			both(tr)
			tr.observeSlice(rest.Added, esTestSlice("es-00", "a-1", "a", ptr(true), nil), at(2))
			tr.observeSlice(rest.Added, esTestSlice("es-00", "b-1", "b", ptr(true)), at(2))
			tr.observeSlice(rest.Added, esTestSlice("es-00", "b-2", "b", ptr(true)), at(2))
		}, true, true},
		{"a terminating endpoint in a slice", func(tr *esTracker) {
			both(tr)
			tr.observeSlice(rest.Added, esTestSlice("es-00", "a-1", "a", ptr(true), ptr(true)), at(2))
			tr.observeSlice(rest.Added, esTestSlice("es-00", "b-1", "b", ptr(true), ptr(true), ptr(false)), at(2))
		}, true, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			tr := newESTracker(inES)
			tt.feed(tr)
			if got := esConverged(ESView{tr}, keys, 2, tt.slices); got != tt.want {
				t.Errorf("esConverged = %v, want %v", got, tt.want)
			}
			if p := tr.Progress(keys, 2, tt.slices); tt.want != (strings.HasPrefix(p, "2 of 2") && !strings.Contains(p, "and 0") &&
				!strings.Contains(p, "and 1")) {
				t.Errorf("Progress = %q with esConverged %v", p, tt.want)
			}
		})
	}
}

// Wait returns at once when the condition holds, wakes on the event that
// makes it hold, and fails when its context ends or a watch failed.
func TestESTrackerWait(t *testing.T) {
	tr := newESTracker(inES)
	ready := func(v ESView) bool { return v.PodReady("es-00/a-0") }

	done := make(chan error, 1)
	go func() { done <- tr.Wait(context.Background(), "a-0 Ready", ready) }()
	tr.observePod(rest.Added, esTestPod("es-00", "a-0", "a", true), at(1))
	if err := <-done; err != nil {
		t.Fatalf("Wait after the event: %v", err)
	}
	if err := tr.Wait(context.Background(), "a-0 Ready", ready); err != nil {
		t.Fatalf("Wait on a condition that holds: %v", err)
	}

	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	never := func(ESView) bool { return false }
	if err := tr.Wait(ctx, "never", never); !errors.Is(err, context.Canceled) {
		t.Fatalf("Wait with an ended context = %v, want context.Canceled", err)
	}
	boom := errors.New("boom")
	tr.fail(boom)
	if err := tr.Wait(context.Background(), "never", never); !errors.Is(err, ErrTrackerEnded) || !errors.Is(err, boom) {
		t.Fatalf("Wait after a failed watch = %v, want ErrTrackerEnded wrapping boom", err)
	}
}

// The workload's shape: namespaces of 100 Services, nodes of at most 200
// pods, at least one node per zone.
func TestESWorkloadShape(t *testing.T) {
	tests := []struct {
		w                      ESWorkload
		pods, namespaces, node int
	}{
		{ESWorkload{Services: 1000, PodsPerService: 10}, 10000, 10, 50},
		{ESWorkload{Services: 200, PodsPerService: 10}, 2000, 2, 10},
		{ESWorkload{Services: 20, PodsPerService: 10}, 200, 1, 3},
		{ESWorkload{Services: 101, PodsPerService: 1}, 101, 2, 3},
		{ESWorkload{Services: 10000, PodsPerService: 10}, 100000, 100, 255},
	}
	for _, tt := range tests {
		if p, n, nodes := tt.w.Pods(), tt.w.Namespaces(), tt.w.Nodes(); p != tt.pods || n != tt.namespaces || nodes != tt.node {
			t.Errorf("%+v: pods %d, namespaces %d, nodes %d; want %d, %d, %d", tt.w, p, n, nodes, tt.pods, tt.namespaces, tt.node)
		}
	}
	if ns, name := esServiceKey(123); ns != "es-01" || name != "svc-0123" {
		t.Errorf("esServiceKey(123) = %s/%s", ns, name)
	}
	keys := esServiceKeys(ESWorkload{Services: 101, PodsPerService: 1})
	if len(keys) != 101 || keys[0] != "es-00/svc-0000" || keys[100] != "es-01/svc-0100" {
		t.Errorf("esServiceKeys: %d keys, first %s, last %s", len(keys), keys[0], keys[len(keys)-1])
	}
	for _, tt := range []struct {
		i    int
		rate float64
		want time.Duration
	}{{0, 4, 0}, {1, 4, 250 * time.Millisecond}, {999, 4, 249750 * time.Millisecond}, {3, 0.5, 6 * time.Second}} {
		if got := paceOffset(tt.i, tt.rate); got != tt.want {
			t.Errorf("paceOffset(%d, %v) = %v, want %v", tt.i, tt.rate, got, tt.want)
		}
	}
	zones := map[string]int{}
	for _, n := range esNodes(6) {
		zones[n.Zone]++
	}
	if len(zones) != 3 || zones["zone-a"] != 2 || zones["zone-c"] != 2 {
		t.Errorf("esNodes(6) zones: %v", zones)
	}
}

// The controllers kcm has come from its --help text, and the benchmark
// runs those of the endpoint controllers it has.
func TestKnownControllers(t *testing.T) {
	help := `      --controllers strings                      A list of controllers to enable. '*' enables all
                                                 'foo'.
                                                 All controllers: deployment-controller,
                                                 endpoints-controller, garbage-collector-controller,
                                                 namespace-controller, replicaset-controller,
                                                 serviceaccount-controller
                                                 Disabled-by-default controllers:  (default [*])
      --enable-garbage-collector[=true|false]    Enables the generic garbage collector.`
	got := KnownControllers(help)
	want := []string{"deployment-controller", "endpoints-controller", "garbage-collector-controller",
		"namespace-controller", "replicaset-controller", "serviceaccount-controller"}
	if len(got) != len(want) {
		t.Fatalf("KnownControllers = %q, want %q", got, want)
	}
	for i := range want {
		if got[i] != want[i] {
			t.Fatalf("KnownControllers = %q, want %q", got, want)
		}
	}
	if got := intersect(EndpointControllers, got); len(got) != 1 || got[0] != EndpointsController {
		t.Fatalf("intersect = %q, want only %s", got, EndpointsController)
	}
	withSlices := intersect(EndpointControllers, append(want, EndpointSliceController, "endpointslice-mirroring-controller"))
	if len(withSlices) != 3 || withSlices[1] != EndpointSliceController {
		t.Fatalf("intersect with slices = %q", withSlices)
	}
	if got := KnownControllers("no such line"); got != nil {
		t.Fatalf("KnownControllers without the line = %q, want nil", got)
	}
}
