package endpointslice

import (
	"errors"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/testutil"

	"github.com/kcmlab/kcm/ctrl/endpointslice/reconciler"
	"github.com/kcmlab/kcm/ctrl/endpointslice/topology"
	"github.com/kcmlab/kcm/internal/testing/resttest"
	"github.com/kcmlab/kcm/kube/api"
	"github.com/kcmlab/kcm/kube/rest"
)

// terminating marks a pod deleted at t0.
func terminating(p *api.Pod) { p.DeletionTimestamp = &api.Time{Time: t0} }

// TestSync follows endpointslice_controller_test.go's syncService tests
// (the upstream test each case checks is named in the case): what one sync
// of ns/web writes, and the slices stored after it (see show).
func TestSync(t *testing.T) {
	external := with(service("web", web), func(s *api.Service) { s.Spec.Type = api.ServiceTypeExternalName })
	deleting := with(slice("web-old", "web", ControllerName, "old", 1), func(s *api.EndpointSlice) {
		s.DeletionTimestamp = &api.Time{Time: t0}
		s.Finalizers = []string{"example.com/hold"}
	})
	for _, tc := range []struct {
		name     string
		services []*api.Service
		pods     []*api.Pod
		slices   []*api.EndpointSlice
		actions  []string
		want     []string // the stored slices after the sync (show), nil: not checked
	}{
		{name: "TestSyncServiceNoSelector: a Service without a selector gets no slices",
			services: []*api.Service{service("web", nil)}, pods: []*api.Pod{pod("a", "10.0.0.1", true)}, want: []string{}},
		{name: "syncService (issue 105986): an ExternalName Service gets no slices",
			services: []*api.Service{external}, pods: []*api.Pod{pod("a", "10.0.0.1", true)}, want: []string{}},
		{name: "TestSyncServiceMissing: a Service that is gone is forgotten, nothing written (its slices go by GC)",
			slices: []*api.EndpointSlice{slice("web-abc", "web", ControllerName, "s1", 1)}},
		{name: "TestSyncServiceWithSelector: a Service without pods gets one placeholder slice, without ports",
			services: []*api.Service{service("web", web)}, actions: []string{"create endpointslices ns/web-*"},
			want: []string{"IPv4 [] "}},
		{name: "TestSyncServicePodSelection: ready, unready and terminating pods; pods of other labels and namespaces left out",
			services: []*api.Service{service("web", web)},
			pods: []*api.Pod{pod("a", "10.0.0.1", true), pod("b", "10.0.0.2", false), with(pod("c", "10.0.0.3", true), terminating),
				with(pod("x", "10.0.0.9", true), func(p *api.Pod) { p.Labels = map[string]string{"app": "db"} }),
				with(pod("y", "10.0.0.8", true), func(p *api.Pod) { p.Namespace = "other" })},
			actions: []string{"create endpointslices ns/web-*"},
			want:    []string{"IPv4 [http:8080/TCP] 10.0.0.1(a,rTsTtF) 10.0.0.2(b,rFsFtF) 10.0.0.3(c,rFsTtT)"}},
		{name: "TestSyncServiceEndpointSlicePendingDeletion: a managed slice being deleted is left alone, a new one made",
			services: []*api.Service{service("web", web)}, pods: []*api.Pod{pod("a", "10.0.0.1", true)},
			slices:  []*api.EndpointSlice{deleting},
			actions: []string{"create endpointslices ns/web-*"},
			want:    []string{"IPv4 [] ", "IPv4 [http:8080/TCP] 10.0.0.1(a,rTsTtF)"}},
		{name: "syncService lists only slices managed by this controller: another manager's slice is not touched",
			services: []*api.Service{service("web", web)}, pods: []*api.Pod{pod("a", "10.0.0.1", true)},
			slices:  []*api.EndpointSlice{slice("web-theirs", "web", "someone-else", "t1", 1)},
			actions: []string{"create endpointslices ns/web-*"},
			want:    []string{"IPv4 [] ", "IPv4 [http:8080/TCP] 10.0.0.1(a,rTsTtF)"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			f := newFixture(t)
			f.services, f.pods, f.slices = tc.services, tc.pods, tc.slices
			got, err := f.run("ns/web")
			if err != nil {
				t.Fatalf("sync: %v", err)
			}
			if !resttest.Expect(t, got, tc.actions...) {
				t.Fatalf("actions %q, want %q", resttest.Lines(got), tc.actions)
			}
			if tc.want == nil {
				return
			}
			var stored []string
			for _, s := range f.stored("ns") {
				stored = append(stored, show(s))
			}
			slices.Sort(stored)
			if stored == nil {
				stored = []string{}
			}
			if !slices.Equal(stored, tc.want) {
				t.Fatalf("stored slices\n got %q\nwant %q", stored, tc.want)
			}
		})
	}
}

// TestSyncLabelsAndOwner: the slice a sync creates carries the managed-by
// and service-name labels, an ownerReference to the Service (so that the
// garbage collector deletes it with the Service) and the trigger-time
// annotation — the Service's creation, on its first sync
// (TestSyncServiceFull, TestEndpointsLastChangeTriggerTime...).
func TestSyncLabelsAndOwner(t *testing.T) {
	f := newFixture(t)
	f.services = []*api.Service{service("web", web)}
	f.pods = []*api.Pod{pod("a", "10.0.0.1", true)}
	if _, err := f.run("ns/web"); err != nil {
		t.Fatal(err)
	}
	stored := f.stored("ns")
	if len(stored) != 1 {
		t.Fatalf("%d slices stored, want 1", len(stored))
	}
	s := stored[0]
	if s.Labels[reconciler.LabelManagedBy] != "endpointslice-controller.k8s.io" || s.Labels[reconciler.LabelServiceName] != "web" {
		t.Errorf("labels %v", s.Labels)
	}
	if len(s.OwnerReferences) != 1 || s.OwnerReferences[0].Kind != "Service" || s.OwnerReferences[0].Name != "web" ||
		s.OwnerReferences[0].UID != "svc-uid-web" {
		t.Errorf("ownerReferences %+v, want the Service", s.OwnerReferences)
	}
	if got := s.Annotations["endpoints.kubernetes.io/last-change-trigger-time"]; got != "2025-09-01T08:00:00Z" {
		t.Errorf("trigger time %q, want the Service's creation 2025-09-01T08:00:00Z", got)
	}
}

// TestSyncNoOpAndStaleCache: after a sync's writes, a sync whose cache
// lacks them fails with ErrStaleInformerCache and writes nothing
// (TestSyncServiceStaleInformer); once the cache has caught up, a resync
// of the unchanged Service writes nothing; a pod turning unready updates
// the slice in place.
func TestSyncNoOpAndStaleCache(t *testing.T) {
	f := newFixture(t)
	f.services = []*api.Service{service("web", web)}
	f.pods = []*api.Pod{pod("a", "10.0.0.1", true), pod("b", "10.0.0.2", true)}
	if got, err := f.run("ns/web"); err != nil || !resttest.Expect(t, got, "create endpointslices ns/web-*") {
		t.Fatalf("first sync: %q %v", resttest.Lines(got), err)
	}
	got, err := f.run("ns/web")
	if !errors.Is(err, reconciler.ErrStaleInformerCache) || len(got) != 0 {
		t.Fatalf("sync on a cache without the created slice: %q %v, want ErrStaleInformerCache and no write", resttest.Lines(got), err)
	}
	f.caughtUp()
	if got, err := f.run("ns/web"); err != nil || len(got) != 0 {
		t.Fatalf("resync after catching up: %q %v, want no write", resttest.Lines(got), err)
	}
	b := with(pod("b", "10.0.0.2", false), func(p *api.Pod) { p.ResourceVersion = "2" })
	resttest.Add(f.api, rest.Pods, b) // replaces the stored b
	f.caughtUp()
	got, err = f.run("ns/web")
	if err != nil || len(got) != 1 || !strings.HasPrefix(got[0].String(), "update endpointslices ns/web-") {
		t.Fatalf("pod b unready: %q %v, want one update", resttest.Lines(got), err)
	}
	if s := f.stored("ns"); len(s) != 1 || show(s[0]) != "IPv4 [http:8080/TCP] 10.0.0.1(a,rTsTtF) 10.0.0.2(b,rFsFtF)" {
		t.Fatalf("stored %d slices, first %q", len(s), show(s[0]))
	}
}

// TestSyncServiceGoneForgets: a deleted Service's tracker entries and
// trigger times are dropped (syncService's IsNotFound branch): its next
// incarnation is not "stale" and gets its creation time again.
func TestSyncServiceGoneForgets(t *testing.T) {
	f := newFixture(t)
	f.services = []*api.Service{service("web", web)}
	if _, err := f.run("ns/web"); err != nil {
		t.Fatal(err)
	}
	c := f.controller()
	c.services.Lister = resttest.Lister[*api.Service]("services")
	if got, err := f.run("ns/web"); err != nil || len(got) != 0 {
		t.Fatalf("sync of a deleted Service: %q %v, want nothing written", resttest.Lines(got), err)
	}
	if c.tracker.StaleSlices(service("web", web), nil) {
		t.Error("the tracker still expects the deleted Service's slices")
	}
	c.triggers.mu.Lock()
	_, known := c.triggers.states["ns/web"]
	c.triggers.mu.Unlock()
	if known {
		t.Error("the trigger-time tracker still knows the deleted Service")
	}
}

// TestSyncWriteFailures: a failed reconcile records
// FailedToUpdateEndpointSlices on the Service and fails the sync, to be
// retried; a create refused because the namespace is terminating is
// dropped, without an Event (syncService, reconciler.finalize).
func TestSyncWriteFailures(t *testing.T) {
	terminatingNS := rest.Status{Code: 403, Reason: "Forbidden", Message: "namespace ns is being terminated",
		Details: &rest.StatusDetails{Causes: []rest.StatusCause{{Type: "NamespaceTerminating"}}}}
	for _, tc := range []struct {
		name    string
		status  rest.Status
		wantErr bool
		event   string
	}{
		{"create fails", rest.Status{Code: 500, Reason: "InternalError", Message: "etcd is away"}, true,
			"Warning FailedToUpdateEndpointSlices Error updating Endpoint Slices for Service ns/web: "},
		{"create in a terminating namespace", terminatingNS, false, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			f := newFixture(t)
			f.services = []*api.Service{service("web", web)}
			f.pods = []*api.Pod{pod("a", "10.0.0.1", true)}
			f.api.Fail(resttest.On("create", "endpointslices"), tc.status)
			_, err := f.run("ns/web")
			if (err != nil) != tc.wantErr {
				t.Fatalf("err %v, want an error %v", err, tc.wantErr)
			}
			ev := f.events.Lines()
			if tc.event == "" && len(ev) != 0 || tc.event != "" && (len(ev) != 1 || !strings.HasPrefix(ev[0], tc.event)) {
				t.Fatalf("events %q, want %q", ev, tc.event)
			}
		})
	}
}

// TestSyncBadKey: a key that is not namespace/name is dropped, not retried.
func TestSyncBadKey(t *testing.T) {
	f := newFixture(t)
	if got, err := f.run("no-slash"); err != nil || len(got) != 0 {
		t.Fatalf("%q %v", resttest.Lines(got), err)
	}
}

// TestTriggerTimes follows util's TestNewServiceNoPods,
// TestNewServiceExistingPods, TestPodUpdated, TestServiceUpdated... : the
// first sync of a Service its creation; then the earliest moved trigger;
// nothing when none moved.
func TestTriggerTimes(t *testing.T) {
	tr := newTriggerTimes()
	svc := service("web", web)
	at := func(p *api.Pod, minutes int) *api.Pod {
		p.Status.Conditions[0].LastTransitionTime = api.NewTime(t0.Add(time.Duration(minutes) * time.Minute))
		return p
	}
	// Pod a turned ready an hour before the Service was made.
	a, b := at(pod("a", "10.0.0.1", true), -60), at(pod("b", "10.0.0.2", true), 6)
	steps := []struct {
		name string
		svc  *api.Service
		pods []*api.Pod
		want string // minutes after t0, or "none"
	}{
		{"first sync, a pod ready before the Service: still the Service's creation", svc, []*api.Pod{a, b}, "0"},
		{"nothing moved: none", svc, []*api.Pod{a, b}, "none"},
		{"pod b moved: b's", svc, []*api.Pod{a, at(pod("b", "10.0.0.2", false), 9)}, "9"},
		{"pod c appears, a moves later: the earliest moved", svc, []*api.Pod{at(pod("a", "10.0.0.1", true), 12), at(pod("b", "10.0.0.2", false), 9), at(pod("c", "10.0.0.3", true), 11)}, "11"},
		{"pod b goes: none", svc, []*api.Pod{at(pod("a", "10.0.0.1", true), 12), at(pod("c", "10.0.0.3", true), 11)}, "none"},
		{"Service re-created later: its creation", with(service("web", web), func(s *api.Service) { s.CreationTimestamp = api.NewTime(t0.Add(20 * time.Minute)) }),
			[]*api.Pod{at(pod("a", "10.0.0.1", true), 12), at(pod("c", "10.0.0.3", true), 11)}, "20"},
	}
	for _, s := range steps {
		got := tr.compute("ns/web", s.svc, s.pods)
		want := "none"
		if !got.IsZero() {
			want = strconv.Itoa(int(got.Sub(t0) / time.Minute))
		}
		if want != s.want {
			t.Fatalf("%s: trigger %v (%s), want %s", s.name, got, want, s.want)
		}
	}
	tr.forget("ns/web")
	if got := tr.compute("ns/web", svc, []*api.Pod{a}); !got.Equal(t0) {
		t.Fatalf("after forget: %v, want the Service's creation again", got)
	}
}

// TestDropPendingDeletion: the input's backing array is not written.
func TestDropPendingDeletion(t *testing.T) {
	a, b := slice("a", "web", ControllerName, "a", 1), slice("b", "web", ControllerName, "b", 1)
	b.DeletionTimestamp = &api.Time{Time: t0}
	in := []*api.EndpointSlice{b, a}
	out := dropPendingDeletion(in)
	if len(out) != 1 || out[0] != a || in[0] != b {
		t.Fatalf("out %v, in %v", out, in)
	}
}

// TestTopologyCheck follows checkNodeTopologyDistribution: the key
// "topology" gives the topology cache the cached Nodes and syncs the
// Services whose hints the new zones overload — none while the zones
// match the hints, both hinted Services once a third zone appears — and
// writes nothing itself. Without a topology cache it does nothing.
func TestTopologyCheck(t *testing.T) {
	node := func(name, zone string) *api.Node {
		return &api.Node{ObjectMeta: api.ObjectMeta{Name: name, Labels: map[string]string{topology.LabelTopologyZone: zone}},
			Status: api.NodeStatus{Allocatable: api.ResourceList{"cpu": "4"},
				Conditions: []api.NodeCondition{{Type: "Ready", Status: api.ConditionTrue}}}}
	}
	f := newFixture(t)
	f.topology = topology.NewCache()
	f.nodes = []*api.Node{node("a1", "zone-a"), node("b1", "zone-b")}
	for _, svc := range []string{"ns/web", "ns/api"} {
		f.topology.SetHints(svc, api.AddressTypeIPv4, topology.EndpointZoneInfo{"zone-a": 5, "zone-b": 5})
	}
	if got, err := f.run(topologyKey); err != nil || len(got) != 0 || len(f.enqueued) != 0 {
		t.Fatalf("zones as hinted: actions %q, err %v, enqueued %q; want nothing", resttest.Lines(got), err, f.enqueued)
	}
	f.c.nodes = resttest.Lister("nodes", node("a1", "zone-a"), node("b1", "zone-b"), node("c1", "zone-c"))
	if got, err := f.run(topologyKey); err != nil || len(got) != 0 || !slices.Equal(f.enqueued, []string{"ns/api", "ns/web"}) {
		t.Fatalf("a third zone: actions %q, err %v, enqueued %q; want ns/api and ns/web enqueued", resttest.Lines(got), err, f.enqueued)
	}

	off := newFixture(t)
	if got, err := off.run(topologyKey); err != nil || len(got) != 0 || len(off.enqueued) != 0 {
		t.Fatalf("without a cache: actions %q, err %v, enqueued %q", resttest.Lines(got), err, off.enqueued)
	}
}

// TestSyncMetrics follows trackSync: every Service sync counts in
// endpoint_slice_controller_syncs by its result — success (a Service gone
// included), stale for ErrStaleInformerCache, error — and the topology
// check counts in none.
func TestSyncMetrics(t *testing.T) {
	reg := prometheus.NewRegistry()
	m, err := reconciler.NewMetrics(reg)
	if err != nil {
		t.Fatal(err)
	}
	f := newFixture(t)
	f.metrics = m
	f.services = []*api.Service{service("web", web)}
	f.pods = []*api.Pod{pod("a", "10.0.0.1", true)}
	for _, key := range []string{"ns/web", "ns/web", "ns/gone", topologyKey} { // success, stale, success, none
		_, _ = f.run(key)
	}
	f.caughtUp()
	resttest.Add(f.api, rest.Pods, pod("b", "10.0.0.2", true))
	f.caughtUp()
	f.api.Fail(resttest.On("update", "endpointslices"), rest.Status{Code: 500, Reason: "InternalError"})
	if _, err := f.run("ns/web"); err == nil { // error
		t.Fatal("the failing update did not fail the sync")
	}
	want := `
# HELP endpoint_slice_controller_syncs [ALPHA] Number of EndpointSlice syncs
# TYPE endpoint_slice_controller_syncs counter
endpoint_slice_controller_syncs{result="error"} 1
endpoint_slice_controller_syncs{result="stale"} 1
endpoint_slice_controller_syncs{result="success"} 2
`
	if err := testutil.GatherAndCompare(reg, strings.NewReader(want), "endpoint_slice_controller_syncs"); err != nil {
		t.Fatal(err)
	}
}
