package reconciler

import (
	"errors"
	"slices"
	"testing"

	"github.com/kcmlab/kcm/ctrl/endpointslice/topology"
	"github.com/kcmlab/kcm/internal/testing/resttest"
	"github.com/kcmlab/kcm/kube/api"
	"github.com/kcmlab/kcm/kube/rest"
)

// TestReconcileCreates follows k8s.io/endpointslice reconciler_test.go
// (TestReconcileEmpty, TestReconcile1Pod, TestReconcileHeadlessServiceNoPorts)
// and utils_test.go (TestPodToEndpoint, TestSupportedServiceAddressType,
// TestGetEndpointPorts): what a first reconcile creates, per Service and
// pod shape. want is the created slices (showSlice), sorted.
func TestReconcileCreates(t *testing.T) {
	v6 := func(p *api.Pod) {
		p.Status.PodIPs = append(p.Status.PodIPs, api.PodIP{IP: "fd00::1"})
	}
	terminating := func(p *api.Pod) { p.DeletionTimestamp = &api.Time{Time: t0} }
	publish := func(s *api.Service) { s.Spec.PublishNotReadyAddresses = true }
	for _, tc := range []struct {
		name string
		svc  *api.Service
		pods []*api.Pod
		want []string
	}{
		{name: "TestReconcileEmpty: a Service without pods gets one placeholder slice, no ports, no endpoints",
			svc: service(), want: []string{"IPv4 [] "}},
		{name: "TestReconcile1Pod: a ready pod is ready and serving, with its node's zone",
			svc: service(), pods: []*api.Pod{pod(0, true)},
			want: []string{"IPv4 [http:8080/TCP] 10.0.0.1(pod0) rs- node=node-1 zone=zone-a"}},
		{name: "TestPodToEndpoint: a pod that is not ready is neither ready nor serving",
			svc: service(), pods: []*api.Pod{pod(0, false)},
			want: []string{"IPv4 [http:8080/TCP] 10.0.0.1(pod0) --- node=node-1 zone=zone-a"}},
		{name: "TestPodToEndpoint: a terminating ready pod stays, serving and terminating but not ready (KEP-1672)",
			svc: service(), pods: []*api.Pod{with(pod(0, true), terminating)},
			want: []string{"IPv4 [http:8080/TCP] 10.0.0.1(pod0) -st node=node-1 zone=zone-a"}},
		{name: "TestPodToEndpoint: publishNotReadyAddresses makes every endpoint ready, terminating ones included",
			svc: with(service(), publish), pods: []*api.Pod{pod(0, false), with(pod(1, true), terminating)},
			want: []string{"IPv4 [http:8080/TCP] 10.0.0.1(pod0) r-- node=node-1 zone=zone-a; 10.0.0.2(pod1) rst node=node-1 zone=zone-a"}},
		{name: "ShouldPodBeInEndpoints: terminal pods and pods without an IP are left out (placeholder only)",
			svc: service(), pods: []*api.Pod{
				with(pod(0, false), func(p *api.Pod) { p.Status.Phase = api.PodSucceeded }),
				with(pod(1, false), func(p *api.Pod) { p.Status.Phase = api.PodFailed }),
				with(pod(2, true), func(p *api.Pod) { p.Status.PodIP, p.Status.PodIPs = "", nil })},
			want: []string{"IPv4 [] "}},
		{name: "TestPodToEndpoint: a pod on a node without a zone label has no zone; one without a node no nodeName",
			svc: service(), pods: []*api.Pod{with(pod(0, true), func(p *api.Pod) { p.Spec.NodeName = "node-2" })},
			want: []string{"IPv4 [http:8080/TCP] 10.0.0.1(pod0) rs- node=node-2"}},
		{name: "TestPodToEndpoint: hostname when the pod's subdomain is the Service's name (headless)",
			svc: with(service(), func(s *api.Service) { s.Spec.ClusterIP, s.Spec.ClusterIPs = api.ClusterIPNone, nil }),
			pods: []*api.Pod{with(pod(0, true), func(p *api.Pod) { p.Spec.Hostname, p.Spec.Subdomain = "web-0", "foo" }),
				with(pod(1, true), func(p *api.Pod) { p.Spec.Hostname, p.Spec.Subdomain = "web-1", "other" })},
			want: []string{"IPv4 [http:8080/TCP] 10.0.0.1(pod0) rs- node=node-1 zone=zone-a host=web-0; 10.0.0.2(pod1) rs- node=node-1 zone=zone-a"}},
		{name: "TestReconcileHeadlessServiceNoPorts: a headless Service without ports gets port-less endpoints",
			svc:  with(service(), func(s *api.Service) { s.Spec.ClusterIP, s.Spec.Ports = api.ClusterIPNone, nil }),
			pods: []*api.Pod{pod(0, true)},
			want: []string{"IPv4 [] 10.0.0.1(pod0) rs- node=node-1 zone=zone-a"}},
		{name: "TestSupportedServiceAddressType: ipFamilies [IPv6] gets an IPv6 slice of the pods' IPv6 addresses",
			svc:  with(service(), func(s *api.Service) { s.Spec.IPFamilies = []string{api.IPv6Protocol} }),
			pods: []*api.Pod{with(pod(0, true), v6)},
			want: []string{"IPv6 [http:8080/TCP] fd00::1(pod0) rs- node=node-1 zone=zone-a"}},
		{name: "TestSupportedServiceAddressType: dual-stack gets one slice set per family; a pod without an IPv6 is only in IPv4",
			svc:  with(service(), func(s *api.Service) { s.Spec.IPFamilies = []string{api.IPv6Protocol, api.IPv4Protocol} }),
			pods: []*api.Pod{with(pod(0, true), v6), pod(1, true)},
			want: []string{"IPv4 [http:8080/TCP] 10.0.0.1(pod0) rs- node=node-1 zone=zone-a; 10.0.0.2(pod1) rs- node=node-1 zone=zone-a",
				"IPv6 [http:8080/TCP] fd00::1(pod0) rs- node=node-1 zone=zone-a"}},
		{name: "TestSupportedServiceAddressType: no ipFamilies, an IPv6 clusterIP: IPv6 only",
			svc:  with(service(), func(s *api.Service) { s.Spec.IPFamilies, s.Spec.ClusterIP = nil, "fd00:96::10" }),
			pods: []*api.Pod{with(pod(0, true), v6)},
			want: []string{"IPv6 [http:8080/TCP] fd00::1(pod0) rs- node=node-1 zone=zone-a"}},
		{name: "TestSupportedServiceAddressType: no ipFamilies, headless: both families (an empty IPv6 set is a placeholder)",
			svc:  with(service(), func(s *api.Service) { s.Spec.IPFamilies, s.Spec.ClusterIP = nil, api.ClusterIPNone }),
			pods: []*api.Pod{pod(0, true)},
			want: []string{"IPv4 [http:8080/TCP] 10.0.0.1(pod0) rs- node=node-1 zone=zone-a", "IPv6 [] "}},
		{name: "getEndpointAddresses: a sloppy IPv4 (leading zeros) is written in canonical form",
			svc: service(),
			pods: []*api.Pod{with(pod(0, true), func(p *api.Pod) {
				p.Status.PodIP, p.Status.PodIPs = "010.000.000.001", []api.PodIP{{IP: "010.000.000.001"}}
			})},
			want: []string{"IPv4 [http:8080/TCP] 10.0.0.1(pod0) rs- node=node-1 zone=zone-a"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			f := newFixture(t)
			f.nodes = append(f.nodes, node("node-2", ""))
			actions, err := f.reconcile(tc.svc, tc.pods, nil)
			if err != nil {
				t.Fatal(err)
			}
			for _, a := range actions {
				if a.Verb != "create" {
					t.Errorf("unexpected action %s", a)
				}
			}
			equalLines(t, "slices", showSlices(f.stored()), tc.want)
		})
	}
}

// TestNewSliceMetadata follows utils_test.go TestNewEndpointSlice and
// TestSetEndpointSliceLabels: generateName "<service>-", a controller
// ownerReference with blockOwnerDeletion, the Service's labels without
// the reserved ones, service-name, managed-by, and headless for a
// Service without a cluster IP.
func TestNewSliceMetadata(t *testing.T) {
	for _, tc := range []struct {
		name     string
		svc      *api.Service
		wantHead bool
	}{
		{"ClusterIP Service", service(), false},
		{"headless Service", with(service(), func(s *api.Service) { s.Spec.ClusterIP = api.ClusterIPNone }), true},
		{"no cluster IP at all", with(service(), func(s *api.Service) { s.Spec.ClusterIP = "" }), true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			tc.svc.Labels = map[string]string{"team": "a", LabelManagedBy: "someone", LabelServiceName: "bad", LabelHeadless: "x"}
			f := newFixture(t)
			if _, err := f.reconcile(tc.svc, []*api.Pod{pod(0, true)}, nil); err != nil {
				t.Fatal(err)
			}
			got := f.stored()
			if len(got) != 1 {
				t.Fatalf("got %d slices, want 1", len(got))
			}
			s := got[0]
			want := map[string]string{"team": "a", LabelManagedBy: ControllerName, LabelServiceName: "foo"}
			if tc.wantHead {
				want[LabelHeadless] = ""
			}
			if !mapsEqual(s.Labels, want) {
				t.Errorf("labels %v, want %v", s.Labels, want)
			}
			if s.GenerateName != "foo-" || s.Name != "foo-1" {
				t.Errorf("generateName %q name %q, want foo- and foo-1 (resttest numbers generated names)", s.GenerateName, s.Name)
			}
			if len(s.OwnerReferences) != 1 {
				t.Fatalf("ownerReferences %+v", s.OwnerReferences)
			}
			o := s.OwnerReferences[0]
			if o.APIVersion != "v1" || o.Kind != "Service" || o.Name != "foo" || o.UID != "svc-uid" || !o.IsController() ||
				o.BlockOwnerDeletion == nil || !*o.BlockOwnerDeletion {
				t.Errorf("ownerReference %+v", o)
			}
		})
	}
}

func mapsEqual(a, b map[string]string) bool {
	if len(a) != len(b) {
		return false
	}
	for k, v := range a {
		if w, ok := b[k]; !ok || w != v {
			return false
		}
	}
	return true
}

// TestSlicePrefix follows getEndpointSlicePrefix: "<service>-" unless
// that is not a valid generateName (apimachinery's NameIsDNSSubdomain
// with its trailing-dash mask).
func TestSlicePrefix(t *testing.T) {
	long := string(slices.Repeat([]byte("a"), 253))
	for _, tc := range []struct{ name, want string }{
		{"foo", "foo-"},
		{"a", "a-"},
		{long[:252], long[:252] + "-"},
		{long, long + "-"},       // the mask drops two characters and adds one: 253, valid
		{long + "a", long + "a"}, // masked, 254 characters: too long
		{"Foo", "Foo"},
	} {
		if got := slicePrefix(tc.name); got != tc.want {
			t.Errorf("slicePrefix(%d chars %.8q) = %d chars, want %d", len(tc.name), tc.name, len(got), len(tc.want))
		}
	}
}

// TestReconcileNoOp: a second reconcile over the slices the first one
// wrote makes no API call (the controller's "no write when nothing
// changed"; upstream's tests assert no further actions), even when
// the pods' resourceVersions moved on; a pod's readiness change is one
// update.
func TestReconcileNoOp(t *testing.T) {
	f := newFixture(t)
	svc := service()
	ps := pods(250)
	if _, err := f.reconcile(svc, ps, nil); err != nil {
		t.Fatal(err)
	}
	for _, p := range ps {
		p.ResourceVersion = "2"
	}
	actions, err := f.reconcile(svc, ps, f.stored())
	if err != nil {
		t.Fatal(err)
	}
	if len(actions) != 0 {
		t.Fatalf("no-op reconcile made %d actions: %v", len(actions), resttest.Lines(actions))
	}
	ps[7].Status.Conditions[0].Status = api.ConditionFalse
	actions, err = f.reconcile(svc, ps, f.stored())
	if err != nil {
		t.Fatal(err)
	}
	if got := verbs(actions); !slices.Equal(got, []string{"update endpointslices"}) {
		t.Fatalf("readiness change: actions %v, want one update", got)
	}
}

// TestReconcileRemovesAddressTypes: slices of an address type the
// Service no longer has are deleted (Reconcile's slicesToDelete), the
// tracker expects their deletion, and the topology cache forgets that
// address type's hints first (topologyCache.RemoveHints in Reconcile's
// loop over the existing slices), so the remaining type's pass does not
// report hints as disabled.
func TestReconcileRemovesAddressTypes(t *testing.T) {
	f := newFixture(t)
	f.topology = topology.NewCache()
	f.topology.SetHints("ns/foo", api.AddressTypeIPv6, topology.EndpointZoneInfo{"zone-a": 1})
	svc := service()
	v6 := existingSlice(svc, "foo-v6", httpPorts())
	v6.AddressType = api.AddressTypeIPv6
	v4 := existingSlice(svc, "foo-v4", httpPorts(), pod(0, true))
	existing := f.load(v4, v6)
	actions, err := f.reconcile(svc, []*api.Pod{pod(0, true)}, existing)
	if err != nil {
		t.Fatal(err)
	}
	resttest.Expect(t, actions, "delete endpointslices ns/foo-v6")
	var gone *api.EndpointSlice
	for _, s := range existing {
		if s.Name == "foo-v6" {
			gone = s
		}
	}
	if !f.tracker.StaleSlices(svc, []*api.EndpointSlice{gone}) {
		t.Error("the tracker does not expect the deleted slice's deletion")
	}
	// Forgotten before the IPv4 pass looks: so no TopologyAwareHintsDisabled.
	if f.topology.HasPopulatedHints("ns/foo") || len(f.events.List()) != 0 {
		t.Errorf("the topology cache kept the dropped address type's hints until the IPv4 pass: events %v", f.events.Lines())
	}
}

// TestReconcileNotOwned: a slice with the Service's labels but owned by an
// older Service of the same name (another uid) is deleted, never reused
// (finalize's ownedBy check); the new endpoints go to a new slice.
func TestReconcileNotOwned(t *testing.T) {
	f := newFixture(t)
	svc := service()
	old := existingSlice(svc, "foo-old", httpPorts(), pod(0, true))
	old.OwnerReferences[0].UID = "old-uid"
	actions, err := f.reconcile(svc, []*api.Pod{pod(0, true)}, f.load(old))
	if err != nil {
		t.Fatal(err)
	}
	resttest.Expect(t, actions, "create endpointslices ns/foo-*", "delete endpointslices ns/foo-old")
}

// TestReconcileServiceDeleting follows TestReconcilerFinalizeSvcDeletionTimestamp:
// no slice is created for a Service being deleted; updates and deletes
// still happen.
func TestReconcileServiceDeleting(t *testing.T) {
	f := newFixture(t)
	svc := with(service(), func(s *api.Service) { s.DeletionTimestamp = &api.Time{Time: t0} })
	existing := f.load(existingSlice(svc, "foo-a", httpPorts(), pod(0, true), pod(1, true)))
	ps := []*api.Pod{pod(0, true)}
	for i := 2; i < 150; i++ {
		ps = append(ps, pod(i, true))
	}
	actions, err := f.reconcile(svc, ps, existing)
	if err != nil {
		t.Fatal(err)
	}
	// foo-a loses pod1 and is filled to 100; 49 more would need a new slice.
	resttest.Expect(t, actions, "update endpointslices ns/foo-a")
	if got := lengths(f.stored()); !slices.Equal(got, []int{100}) {
		t.Errorf("lengths %v, want [100]", got)
	}
}

// TestReconcileMissingNode follows TestReconcilerPodMissingNode: a pod
// whose node is not cached is left out and the reconcile fails (to be
// retried) — unless the Service publishes not-ready addresses, which
// keeps the pod without a zone.
func TestReconcileMissingNode(t *testing.T) {
	lost := func(p *api.Pod) { p.Spec.NodeName = "gone" }
	for _, tc := range []struct {
		name    string
		publish bool
		want    []string
		wantErr bool
	}{
		{"not published: left out, error", false, []string{"IPv4 [http:8080/TCP] 10.0.0.1(pod0) rs- node=node-1 zone=zone-a"}, true},
		{"published: kept without zone", true,
			[]string{"IPv4 [http:8080/TCP] 10.0.0.1(pod0) rs- node=node-1 zone=zone-a; 10.0.0.2(pod1) rs- node=gone"}, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			f := newFixture(t)
			svc := service()
			svc.Spec.PublishNotReadyAddresses = tc.publish
			_, err := f.reconcile(svc, []*api.Pod{pod(0, true), with(pod(1, true), lost)}, nil)
			if got := errors.Is(err, ErrNodeNotFound); got != tc.wantErr {
				t.Fatalf("err %v, want ErrNodeNotFound %v", err, tc.wantErr)
			}
			var wantEvents []string
			if tc.wantErr {
				wantEvents = []string{"Warning FailedToUpdateEndpointSlices Error updating Endpoint Slices for Service ns/foo: " +
					"skipping Pod pod1 for Service ns/foo: Node gone Not Found"}
			}
			equalLines(t, "events", f.events.Lines(), wantEvents)
			equalLines(t, "slices", showSlices(f.stored()), tc.want)
		})
	}
}

// TestReconcileWriteFailures: a failed write ends the reconcile with an
// error that wraps the apiserver's, and records the Warning
// FailedToUpdateEndpointSlices on the Service (upstream's syncService);
// a create refused because the namespace is terminating ends it quietly
// (finalize's NamespaceTerminatingCause).
func TestReconcileWriteFailures(t *testing.T) {
	f := newFixture(t)
	svc := service()
	f.api.Fail(resttest.On("create", "endpointslices").Nth(1), resttest.Failure(500, "InternalError", "etcd is down"))
	_, err := f.reconcile(svc, []*api.Pod{pod(0, true)}, nil)
	var se *rest.StatusError
	if !errors.As(err, &se) {
		t.Fatalf("err %v does not wrap the apiserver's StatusError", err)
	}
	evs := f.events.List()
	if len(evs) != 1 || evs[0].Type != "Warning" || evs[0].Reason != ReasonFailedToUpdateEndpointSlices ||
		evs[0].Ref.Kind != "Service" || evs[0].Ref.Name != "foo" {
		t.Errorf("events %+v, want one Warning FailedToUpdateEndpointSlices on Service foo", evs)
	}

	terminating := rest.Status{Code: 403, Reason: "Forbidden", Message: "namespace ns is being terminated",
		Details: &rest.StatusDetails{Causes: []rest.StatusCause{{Type: rest.CauseNamespaceTerminating}}}}
	f.api.Fail(resttest.On("create", "endpointslices"), terminating)
	f.events.Reset()
	if _, err := f.reconcile(svc, []*api.Pod{pod(0, true)}, nil); err != nil {
		t.Errorf("namespace terminating: err %v, want nil", err)
	}
	if len(f.events.List()) != 0 {
		t.Errorf("namespace terminating recorded %v", f.events.Lines())
	}
}

// TestManagedBy follows TestManagedByChanged/ManagedByController: the
// managed-by label names the controller.
func TestManagedBy(t *testing.T) {
	r := New(Config{})
	mine := &api.EndpointSlice{ObjectMeta: api.ObjectMeta{Labels: map[string]string{LabelManagedBy: ControllerName}}}
	other := &api.EndpointSlice{ObjectMeta: api.ObjectMeta{Labels: map[string]string{LabelManagedBy: "endpointslicemirroring-controller.k8s.io"}}}
	none := &api.EndpointSlice{}
	for _, tc := range []struct {
		a, b    *api.EndpointSlice
		changed bool
	}{{mine, mine, false}, {mine, other, true}, {other, none, false}, {none, mine, true}} {
		if got := r.ManagedByChanged(tc.a, tc.b); got != tc.changed {
			t.Errorf("ManagedByChanged(%v, %v) = %v", tc.a.Labels, tc.b.Labels, got)
		}
	}
	if !r.ManagedByController(mine) || r.ManagedByController(other) {
		t.Error("ManagedByController")
	}
}
