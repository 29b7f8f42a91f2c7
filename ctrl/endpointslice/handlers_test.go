package endpointslice

import (
	"slices"
	"testing"
	"time"

	"github.com/spf13/pflag"

	"github.com/kcmlab/kcm/ctrl"
	"github.com/kcmlab/kcm/ctrl/endpointslice/reconciler"
	"github.com/kcmlab/kcm/ctrl/endpointslice/topology"
	"github.com/kcmlab/kcm/informer"
	"github.com/kcmlab/kcm/internal/testing/resttest"
	"github.com/kcmlab/kcm/kube/api"
)

// newHandlers returns handlers on a recording queue, over svcs, with a
// reconciler for this controller's managed-by value and a fresh tracker.
func newHandlers(batch time.Duration, svcs ...*api.Service) (*handlers, *recorded) {
	q := &recorded{}
	tracker := reconciler.NewTracker()
	return &handlers{q: q, batch: batch, tracker: tracker,
		services: informer.ServiceLister{Lister: resttest.Lister("services", svcs...)},
		rec:      reconciler.New(reconciler.Config{ControllerName: ControllerName, Tracker: tracker, Nodes: resttest.Lister[*api.Node]("nodes")}),
	}, q
}

// TestServiceHandlers: a Service added, updated or deleted is synced at
// once, batch period or not (onServiceUpdate, onServiceDelete).
func TestServiceHandlers(t *testing.T) {
	h, q := newHandlers(time.Minute)
	h.serviceAdded(service("a", web), true)
	h.serviceUpdated(service("x", web), service("b", web))
	h.serviceDeleted(service("c", web), false)
	if got, want := q.take(), []string{"ns/a after 0s", "ns/b after 0s", "ns/c after 0s"}; !slices.Equal(got, want) {
		t.Fatalf("enqueued %q, want %q", got, want)
	}
}

// TestPodHandlers: a pod event syncs the Services that
// ctrl/internal/podservices says it concerns (its tests hold the rules,
// after k8s.io/endpointslice/util's), after the batch period (syncPod's
// AddAfter(service, endpointUpdatesBatchPeriod)).
func TestPodHandlers(t *testing.T) {
	svcs := []*api.Service{service("web", web), service("front", map[string]string{"tier": "front"}), service("manual", nil)}
	p := func(rv string, labels map[string]string, change ...func(*api.Pod)) *api.Pod {
		x := pod("p", "10.0.0.1", true)
		x.ResourceVersion, x.Labels = rv, labels
		for _, c := range change {
			c(x)
		}
		return x
	}
	front := map[string]string{"tier": "front"}
	notReady := func(x *api.Pod) { x.Status.Conditions[0].Status = api.ConditionFalse }
	for _, tc := range []struct {
		name string
		do   func(h *handlers)
		want []string
	}{
		{"add: the matching Services, after the batch period",
			func(h *handlers) { h.podAdded(p("1", web), false) }, []string{"ns/web after 5s"}},
		{"delete: the Services its labels matched",
			func(h *handlers) { h.podDeleted(p("1", front), true) }, []string{"ns/front after 5s"}},
		{"update at the same resourceVersion (a resync): nothing",
			func(h *handlers) { h.podUpdated(p("1", web), p("1", web, notReady)) }, nil},
		{"readiness change: the Services it matches",
			func(h *handlers) { h.podUpdated(p("1", web), p("2", web, notReady)) }, []string{"ns/web after 5s"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			h, q := newHandlers(5*time.Second, svcs...)
			tc.do(h)
			if got := q.take(); !slices.Equal(got, tc.want) {
				t.Fatalf("enqueued %q, want %q", got, tc.want)
			}
		})
	}
}

// TestSliceHandlers follows the controller's onEndpointSliceAdd,
// onEndpointSliceUpdate and onEndpointSliceDelete (and
// TestOnEndpointSliceUpdate in endpointslice_controller_test.go): the
// owning Service is synced, after max(1s, batch period), only when a slice
// changed other than as this controller last wrote it.
func TestSliceHandlers(t *testing.T) {
	mine := func(gen int64) *api.EndpointSlice { return slice("web-abc", "web", ControllerName, "s1", gen) }
	theirs := func(gen int64) *api.EndpointSlice { return slice("web-abc", "web", "someone-else", "s1", gen) }
	for _, tc := range []struct {
		name    string
		batch   time.Duration
		written *api.EndpointSlice // what the tracker recorded as this controller's write
		deleted *api.EndpointSlice // what the tracker recorded as this controller's deletion
		do      func(h *handlers)
		want    []string
	}{
		{name: "add of a managed slice the tracker does not know: its Service, after 1s",
			do: func(h *handlers) { h.sliceAdded(mine(1), true) }, want: []string{"ns/web after 1s"}},
		{name: "add of a managed slice at the generation this controller wrote: nothing", written: mine(1),
			do: func(h *handlers) { h.sliceAdded(mine(1), false) }},
		{name: "add of a slice managed by someone else: nothing",
			do: func(h *handlers) { h.sliceAdded(theirs(1), false) }},
		{name: "update to a generation this controller did not write: its Service", written: mine(1),
			do: func(h *handlers) { h.sliceUpdated(mine(1), mine(2)) }, want: []string{"ns/web after 1s"}},
		{name: "update to the generation this controller wrote: nothing", written: mine(2),
			do: func(h *handlers) { h.sliceUpdated(mine(1), mine(2)) }},
		{name: "a batch period longer than 1s delays the sync as long", batch: 3 * time.Second, written: mine(1),
			do: func(h *handlers) { h.sliceUpdated(mine(1), mine(2)) }, want: []string{"ns/web after 3s"}},
		{name: "managed-by changed away from this controller: its Service", written: mine(1),
			do: func(h *handlers) { h.sliceUpdated(mine(1), theirs(1)) }, want: []string{"ns/web after 1s"}},
		{name: "managed-by changed to this controller: its Service", written: mine(1),
			do: func(h *handlers) { h.sliceUpdated(theirs(1), mine(1)) }, want: []string{"ns/web after 1s"}},
		{name: "update of a slice someone else manages: nothing",
			do: func(h *handlers) { h.sliceUpdated(theirs(1), theirs(2)) }},
		{name: "service-name label changed: both Services, even of a slice someone else manages", do: func(h *handlers) {
			h.sliceUpdated(theirs(1), with(theirs(1), func(s *api.EndpointSlice) { s.Labels[reconciler.LabelServiceName] = "api" }))
		}, want: []string{"ns/api after 1s", "ns/web after 1s"}},
		{name: "service-name label removed: the old Service (the new one has no name)", written: mine(1), do: func(h *handlers) {
			h.sliceUpdated(mine(1), with(mine(1), func(s *api.EndpointSlice) { delete(s.Labels, reconciler.LabelServiceName) }))
		}, want: []string{"ns/web after 1s"}},
		{name: "deletion of a managed slice this controller wrote and did not delete: its Service", written: mine(1),
			do: func(h *handlers) { h.sliceDeleted(mine(1), false) }, want: []string{"ns/web after 1s"}},
		{name: "deletion this controller made: nothing", deleted: mine(1),
			do: func(h *handlers) { h.sliceDeleted(mine(1), false) }},
		{name: "deletion of a managed slice the tracker never saw: nothing",
			do: func(h *handlers) { h.sliceDeleted(mine(1), true) }},
		{name: "deletion of a slice someone else manages: nothing", written: mine(1),
			do: func(h *handlers) { h.sliceDeleted(theirs(1), false) }},
	} {
		t.Run(tc.name, func(t *testing.T) {
			h, q := newHandlers(tc.batch)
			if tc.written != nil {
				h.tracker.Update(tc.written)
			}
			if tc.deleted != nil {
				h.tracker.ExpectDeletion(tc.deleted)
			}
			tc.do(h)
			if got := q.take(); !slices.Equal(got, tc.want) {
				t.Fatalf("enqueued %q, want %q", got, tc.want)
			}
		})
	}
}

// TestSliceDeletionExpectedOnce: after the expected deletion is handled,
// the tracker forgets the slice; the same deletion seen again (a relist)
// syncs nothing either (HandleDeletion, Has).
func TestSliceDeletionExpectedOnce(t *testing.T) {
	h, q := newHandlers(0)
	s := slice("web-abc", "web", ControllerName, "s1", 1)
	h.tracker.Update(s)
	h.tracker.ExpectDeletion(s)
	h.sliceDeleted(s, false)
	h.sliceDeleted(s, false)
	if got := q.take(); len(got) != 0 {
		t.Fatalf("enqueued %q, want nothing", got)
	}
}

// TestNodeHandlers follows addNode, updateNode and deleteNode: a Node
// added or deleted, or one whose readiness or zone label changed, runs the
// topology check; other Node updates (a heartbeat) do not.
func TestNodeHandlers(t *testing.T) {
	node := func(ready api.ConditionStatus, zone string) *api.Node {
		n := &api.Node{ObjectMeta: api.ObjectMeta{Name: "n", Labels: map[string]string{}},
			Status: api.NodeStatus{Conditions: []api.NodeCondition{{Type: "Ready", Status: ready}}}}
		if zone != "" {
			n.Labels[topology.LabelTopologyZone] = zone
		}
		return n
	}
	for _, tc := range []struct {
		name string
		do   func(h *handlers)
		want []string
	}{
		{"added", func(h *handlers) { h.nodeAdded(node(api.ConditionTrue, "a"), true) }, []string{"topology after 0s"}},
		{"deleted", func(h *handlers) { h.nodeDeleted(node(api.ConditionTrue, "a"), false) }, []string{"topology after 0s"}},
		{"became ready", func(h *handlers) { h.nodeUpdated(node(api.ConditionFalse, "a"), node(api.ConditionTrue, "a")) },
			[]string{"topology after 0s"}},
		{"zone labelled later", func(h *handlers) { h.nodeUpdated(node(api.ConditionTrue, ""), node(api.ConditionTrue, "a")) },
			[]string{"topology after 0s"}},
		{"heartbeat: nothing", func(h *handlers) {
			h.nodeUpdated(node(api.ConditionTrue, "a"), with(node(api.ConditionTrue, "a"), func(n *api.Node) {
				n.Status.Conditions[0].LastHeartbeatTime = api.NewTime(t0)
			}))
		}, nil},
		{"unknown to not ready: both not ready, nothing", func(h *handlers) {
			h.nodeUpdated(node(api.ConditionUnknown, "a"), node(api.ConditionFalse, "a"))
		}, nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			h, q := newHandlers(time.Minute)
			tc.do(h)
			if got := q.take(); !slices.Equal(got, tc.want) {
				t.Fatalf("enqueued %q, want %q", got, tc.want)
			}
		})
	}
}

// TestDescriptor: kube-controller-manager 1.37's name, alias, flags and
// defaults (cmd/kube-controller-manager/names, app/discovery.go,
// options/endpointslicecontroller.go).
func TestDescriptor(t *testing.T) {
	d := Descriptor()
	if d.Name != "endpointslice-controller" || !slices.Equal(d.Aliases, []string{"endpointslice"}) || d.DisabledByDefault ||
		d.Concurrency == nil || d.Concurrency.Name != "concurrent-service-endpoint-syncs" || d.Concurrency.Default != 5 || d.Constructor == nil {
		t.Fatalf("descriptor %+v", d)
	}
	want := map[string]string{"max-endpoints-per-slice": "100", "endpointslice-updates-batch-period": "0s"}
	if len(d.Flags) != len(want) {
		t.Fatalf("%d flags, want %d", len(d.Flags), len(want))
	}
	for _, f := range d.Flags {
		if v := f.NewValue().String(); v != want[f.Name] {
			t.Errorf("--%s default %q, want %q", f.Name, v, want[f.Name])
		}
		if f.Name == "max-endpoints-per-slice" {
			for in, ok := range map[string]bool{"1": true, "1000": true, "0": false, "1001": false} {
				if err := f.NewValue().Set(in); (err == nil) != ok {
					t.Errorf("--max-endpoints-per-slice=%s: error %v, want accepted %v", in, err, ok)
				}
			}
		}
	}
	// options/endpointslicecontroller.go bounds the workers to 1..50.
	r, err := ctrl.NewDescriptors(d)
	if err != nil {
		t.Fatal(err)
	}
	fs := pflag.NewFlagSet("kcm", pflag.ContinueOnError)
	r.AddFlags(fs, r.NewOptions())
	for in, ok := range map[string]bool{"1": true, "50": true, "0": false, "51": false} {
		if err := fs.Set("concurrent-service-endpoint-syncs", in); (err == nil) != ok {
			t.Errorf("--concurrent-service-endpoint-syncs=%s: error %v, want accepted %v", in, err, ok)
		}
	}
}
