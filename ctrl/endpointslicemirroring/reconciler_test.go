package endpointslicemirroring

import (
	"maps"
	"slices"
	"testing"
	"time"

	"github.com/kcmlab/kcm/kube/api"
)

// TestReconcile follows kubernetes/pkg/controller/endpointslicemirroring's
// reconciler_test.go TestReconcile, case by case (the upstream case each
// checks is its name, or named in it): the writes of one sync, the slices
// the server then holds (see show) and the Events.
func TestReconcile(t *testing.T) {
	p80 := []api.EndpointPort{{Name: "http", Port: 80, Protocol: "TCP"}}
	two := subset("10.0.0.1", "10.0.0.2", "http:80/TCP", "https:443/UDP")
	second := subset("10.0.1.1", "10.0.1.2", "10.0.1.3", "http:3000/TCP", "https:3001/UDP")
	base := endpoints("foo", subset("10.0.0.1", "http:80/TCP"))
	deleting := endpoints("foo", subset("10.0.0.1", "http:80/TCP"))
	deleting.DeletionTimestamp = &api.Time{Time: time.Date(2025, 9, 1, 0, 0, 0, 0, time.UTC)}
	withLabel := endpoints("foo", subset("10.0.0.1", "http:80/TCP"))
	withLabel.Labels = map[string]string{"foo": "bar"}
	withAnnotation := endpoints("foo", subset("10.0.0.1", "http:80/TCP"))
	withAnnotation.Annotations = map[string]string{"foo": "bar"}
	applied := endpoints("foo", subset("10.0.0.1", "http:80/TCP"))
	applied.Annotations = map[string]string{AnnotationLastAppliedConfig: "{}", AnnotationLastChangeTriggerTime: "2025-09-01T00:00:00Z", "kept": "yes"}
	recreated := mirroredSlice(base, "foo-a", api.AddressTypeIPv4, p80, "10.0.0.1")
	recreated.OwnerReferences[0].UID = "uid-of-a-deleted-endpoints"
	staleAnnotation := mirroredSlice(applied, "foo-a", api.AddressTypeIPv4, p80, "10.0.0.1")
	staleAnnotation.Annotations[AnnotationLastAppliedConfig] = "{}"
	rvOnly := mirroredSlice(base, "foo-a", api.AddressTypeIPv4, p80, "10.0.0.1")
	withRef := endpoints("foo", subset("10.0.0.1", "http:80/TCP"))
	withRef.Subsets[0].Addresses[0].TargetRef = &api.ObjectReference{Kind: "Pod", Namespace: "ns", Name: "p", UID: "u", ResourceVersion: "7"}
	rvOnly.Endpoints[0].TargetRef = &api.ObjectReference{Kind: "Pod", Namespace: "ns", Name: "p", UID: "u", ResourceVersion: "6"}

	for _, tc := range []struct {
		name     string
		eps      *api.Endpoints
		existing []*api.EndpointSlice
		max      int32
		writes   []string
		want     []string // the stored slices, by name; nil: none
		events   []string
	}{
		{name: "Endpoints with no subsets", eps: endpoints("foo")},
		{name: "Endpoints with no addresses", eps: endpoints("foo", subset("http:80/TCP"))},
		{name: "Endpoints with 1 subset, port, and address", eps: base,
			writes: []string{"create endpointslices ns/foo-*"}, want: []string{"IPv4 [http:80/TCP] 10.0.0.1"}},
		{name: "Endpoints with 2 subset, different port and address",
			eps:    endpoints("foo", subset("10.0.0.1", "http:80/TCP"), subset("10.0.0.2", "http:81/TCP")),
			writes: []string{"create endpointslices ns/foo-*", "create endpointslices ns/foo-*"},
			want:   []string{"IPv4 [http:80/TCP] 10.0.0.1", "IPv4 [http:81/TCP] 10.0.0.2"}},
		{name: "Endpoints with 2 subset, different port and same address: repacked into one subset",
			eps:    endpoints("foo", subset("10.0.0.1", "http:80/TCP"), subset("10.0.0.1", "https:443/TCP")),
			writes: []string{"create endpointslices ns/foo-*"}, want: []string{"IPv4 [https:443/TCP http:80/TCP] 10.0.0.1"}},
		{name: "Endpoints with 2 subset, different address and same port: repacked into one subset",
			eps:    endpoints("foo", subset("10.0.0.1", "http:80/TCP"), subset("10.0.0.2", "http:80/TCP")),
			writes: []string{"create endpointslices ns/foo-*"}, want: []string{"IPv4 [http:80/TCP] 10.0.0.1 10.0.0.2"}},
		{name: "Endpoints with 1 subset, port, and address, pending deletion: nothing created", eps: deleting},
		{name: "Endpoints with 1 subset, port, and address and existing slice with same fields: no write",
			eps: base, existing: []*api.EndpointSlice{mirroredSlice(base, "foo-a", api.AddressTypeIPv4, p80, "10.0.0.1")},
			want: []string{"IPv4 [http:80/TCP] 10.0.0.1"}},
		{name: "... existing slice with same fields but different OwnerReferences: rewritten",
			eps: base, existing: []*api.EndpointSlice{recreated},
			writes: []string{"update endpointslices ns/foo-a"}, want: []string{"IPv4 [http:80/TCP] 10.0.0.1"}},
		{name: "... existing slice with an additional annotation: rewritten",
			eps: withAnnotation, existing: []*api.EndpointSlice{mirroredSlice(base, "foo-a", api.AddressTypeIPv4, p80, "10.0.0.1")},
			writes: []string{"update endpointslices ns/foo-a"}, want: []string{"IPv4 [http:80/TCP] 10.0.0.1"}},
		{name: "... existing slice with same fields but the label: rewritten",
			eps: withLabel, existing: []*api.EndpointSlice{mirroredSlice(base, "foo-a", api.AddressTypeIPv4, p80, "10.0.0.1")},
			writes: []string{"update endpointslices ns/foo-a"}, want: []string{"IPv4 [http:80/TCP] 10.0.0.1"}},
		{name: "EndpointsEqualBeyondHash: a targetRef resourceVersion alone writes nothing",
			eps: withRef, existing: []*api.EndpointSlice{rvOnly}, want: []string{"IPv4 [http:80/TCP] 10.0.0.1"}},
		{name: "EndpointsEqualBeyondHash: a readiness change is written",
			eps: endpoints("foo", subset("!10.0.0.1", "http:80/TCP")), existing: []*api.EndpointSlice{mirroredSlice(base, "foo-a", api.AddressTypeIPv4, p80, "10.0.0.1")},
			writes: []string{"update endpointslices ns/foo-a"}, want: []string{"IPv4 [http:80/TCP] 10.0.0.1(!ready)"}},
		{name: "Endpoints with 1 subset, 2 ports, and 2 addresses (ports in Kubernetes' hash order)", eps: endpoints("foo", two),
			writes: []string{"create endpointslices ns/foo-*"}, want: []string{"IPv4 [http:80/TCP https:443/UDP] 10.0.0.1 10.0.0.2"}},
		{name: "Endpoints with 1 subset, 2 ports, and 2 not ready addresses",
			eps:    endpoints("foo", subset("!10.0.0.1", "!10.0.0.2", "http:80/TCP", "https:443/UDP")),
			writes: []string{"create endpointslices ns/foo-*"}, want: []string{"IPv4 [http:80/TCP https:443/UDP] 10.0.0.1(!ready) 10.0.0.2(!ready)"}},
		{name: "Endpoints with 1 subset, 2 ports, and 2 ready and 2 not ready addresses: ready first",
			eps:    endpoints("foo", subset("!10.0.1.1", "!10.0.1.2", "10.0.0.1", "10.0.0.2", "http:80/TCP", "https:443/UDP")),
			writes: []string{"create endpointslices ns/foo-*"}, want: []string{"IPv4 [http:80/TCP https:443/UDP] 10.0.0.1 10.0.0.2 10.0.1.1(!ready) 10.0.1.2(!ready)"}},
		{name: "Endpoints with 2 subsets, multiple ports and addresses", eps: endpoints("foo", two, second),
			writes: []string{"create endpointslices ns/foo-*", "create endpointslices ns/foo-*"},
			want:   []string{"IPv4 [http:80/TCP https:443/UDP] 10.0.0.1 10.0.0.2", "IPv4 [http:3000/TCP https:3001/UDP] 10.0.1.1 10.0.1.2 10.0.1.3"}},
		{name: "Endpoints with 2 subsets, multiple ports and addresses, existing empty EndpointSlice: updated and one created",
			eps:      endpoints("foo", two, second),
			existing: []*api.EndpointSlice{mirroredSlice(base, "foo-a", api.AddressTypeIPv4, two.Ports)},
			writes:   []string{"create endpointslices ns/foo-*", "update endpointslices ns/foo-a"},
			want:     []string{"IPv4 [http:80/TCP https:443/UDP] 10.0.0.1 10.0.0.2", "IPv4 [http:3000/TCP https:3001/UDP] 10.0.1.1 10.0.1.2 10.0.1.3"}},
		{name: "Endpoints with 2 subsets, multiple ports and addresses, existing EndpointSlice identical to subset: one create",
			eps:      endpoints("foo", two, second),
			existing: []*api.EndpointSlice{mirroredSlice(base, "foo-a", api.AddressTypeIPv4, two.Ports, "10.0.0.1", "10.0.0.2")},
			writes:   []string{"create endpointslices ns/foo-*"},
			want:     []string{"IPv4 [http:80/TCP https:443/UDP] 10.0.0.1 10.0.0.2", "IPv4 [http:3000/TCP https:3001/UDP] 10.0.1.1 10.0.1.2 10.0.1.3"}},
		{name: "Endpoints with 2 subsets, multiple ports, and dual stack addresses: a slice per subset and family",
			eps:    endpoints("foo", subset("10.0.0.1", "fd00::1", "http:80/TCP"), subset("fd00::11", "10.0.1.1", "http:3000/TCP")),
			writes: []string{"create endpointslices ns/foo-*", "create endpointslices ns/foo-*", "create endpointslices ns/foo-*", "create endpointslices ns/foo-*"},
			want: []string{"IPv4 [http:80/TCP] 10.0.0.1", "IPv6 [http:80/TCP] fd00::1",
				"IPv4 [http:3000/TCP] 10.0.1.1", "IPv6 [http:3000/TCP] fd00::11"}},
		{name: "Endpoints with 2 subsets, multiple ports, ipv6 only addresses (written canonically)",
			eps:    endpoints("foo", subset("FD00:0::1", "http:80/TCP"), subset("fd00::11", "http:3000/TCP")),
			writes: []string{"create endpointslices ns/foo-*", "create endpointslices ns/foo-*"},
			want:   []string{"IPv6 [http:80/TCP] fd00::1", "IPv6 [http:3000/TCP] fd00::11"}},
		{name: "ParseIPSloppy: an IPv4 address with leading zeros is mirrored, written canonically",
			eps: endpoints("foo", subset("010.000.000.001", "http:80/TCP")), writes: []string{"create endpointslices ns/foo-*"},
			want: []string{"IPv4 [http:80/TCP] 10.0.0.1"}},
		{name: "Endpoints with 2 subsets, multiple ports, some invalid addresses: skipped with an Event",
			eps:    endpoints("foo", subset("10.0.0.1", "foo", "http:80/TCP"), subset("10.0.1.1", "10.0.1.2", "bar", "http:3000/TCP")),
			writes: []string{"create endpointslices ns/foo-*", "create endpointslices ns/foo-*"},
			want:   []string{"IPv4 [http:80/TCP] 10.0.0.1", "IPv4 [http:3000/TCP] 10.0.1.1 10.0.1.2"},
			events: []string{"Warning InvalidIPAddress Skipped 2 invalid IP addresses when mirroring to EndpointSlices"}},
		{name: "Endpoints with 2 subsets, multiple ports, all invalid addresses: nothing written but the Event",
			eps:    endpoints("foo", subset("foo", "bar", "http:80/TCP"), subset("baz", "http:3000/TCP")),
			events: []string{"Warning InvalidIPAddress Skipped 3 invalid IP addresses when mirroring to EndpointSlices"}},
		{name: "Endpoints with 2 subsets, 1 exceeding maxEndpointsPerSubset: ready ones kept, the rest skipped with an Event",
			eps: endpoints("foo", two, subset("!10.0.1.1", "10.0.1.2", "10.0.1.3", "http:3000/TCP")), max: 2,
			writes: []string{"create endpointslices ns/foo-*", "create endpointslices ns/foo-*"},
			want:   []string{"IPv4 [http:80/TCP https:443/UDP] 10.0.0.1 10.0.0.2", "IPv4 [http:3000/TCP] 10.0.1.2 10.0.1.3"},
			events: []string{"Warning TooManyAddressesToMirror A max of 2 addresses can be mirrored to EndpointSlices per Endpoints subset. 1 addresses were skipped"}},
		{name: "the cap counts both families of a subset together",
			eps: endpoints("foo", subset("10.0.0.1", "fd00::1", "!fd00::2", "http:80/TCP")), max: 2,
			writes: []string{"create endpointslices ns/foo-*", "create endpointslices ns/foo-*"},
			want:   []string{"IPv4 [http:80/TCP] 10.0.0.1", "IPv6 [http:80/TCP] fd00::1"},
			events: []string{"Warning TooManyAddressesToMirror A max of 2 addresses can be mirrored to EndpointSlices per Endpoints subset. 1 addresses were skipped"}},
		{name: "The last-applied-configuration and trigger-time annotations are not mirrored, others are",
			eps: applied, writes: []string{"create endpointslices ns/foo-*"}, want: []string{"IPv4 [http:80/TCP] 10.0.0.1"}},
		{name: "Annotation mirroring should remove the last-applied-configuration annotation from existing endpoint slices",
			eps: applied, existing: []*api.EndpointSlice{staleAnnotation},
			writes: []string{"update endpointslices ns/foo-a"}, want: []string{"IPv4 [http:80/TCP] 10.0.0.1"}},
		{name: "reconcileByPortMapping: every slice of a group but the first is deleted",
			eps: base, existing: []*api.EndpointSlice{mirroredSlice(base, "foo-a", api.AddressTypeIPv4, p80, "10.0.0.1"),
				mirroredSlice(base, "foo-b", api.AddressTypeIPv4, p80, "10.0.0.2")},
			writes: []string{"delete endpointslices ns/foo-b"}, want: []string{"IPv4 [http:80/TCP] 10.0.0.1"}},
		{name: "a port set no longer desired: its slice is recycled by the new group's create (recycleSlices)",
			eps: endpoints("foo", subset("10.0.0.1", "http:8080/TCP")), existing: []*api.EndpointSlice{mirroredSlice(base, "foo-a", api.AddressTypeIPv4, p80, "10.0.0.1")},
			writes: []string{"update endpointslices ns/foo-a"}, want: []string{"IPv4 [http:8080/TCP] 10.0.0.1"}},
		{name: "recycling pairs slices of one address type only; the other family's leftover is deleted",
			eps: endpoints("foo", subset("10.0.0.1", "http:8080/TCP")), existing: []*api.EndpointSlice{
				mirroredSlice(base, "foo-a", api.AddressTypeIPv6, p80, "fd00::1"), mirroredSlice(base, "foo-b", api.AddressTypeIPv4, p80, "10.0.0.1")},
			writes: []string{"update endpointslices ns/foo-b", "delete endpointslices ns/foo-a"}, want: []string{"IPv4 [http:8080/TCP] 10.0.0.1"}},
		{name: "a group whose addresses all went: its slice is deleted",
			eps: endpoints("foo", subset("http:80/TCP")), existing: []*api.EndpointSlice{mirroredSlice(base, "foo-a", api.AddressTypeIPv4, p80, "10.0.0.1")},
			writes: []string{"delete endpointslices ns/foo-a"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			f := newFixture(t)
			f.endpoints, f.services, f.slices, f.maxPerSubset = []*api.Endpoints{tc.eps}, []*api.Service{selectorless("foo")}, tc.existing, tc.max
			got, err := f.run("ns/foo")
			if err != nil {
				t.Fatalf("sync: %v", err)
			}
			if w := writes(got); !slices.Equal(w, tc.writes) {
				t.Fatalf("writes\n got %q\nwant %q", w, tc.writes)
			}
			stored := showAll(f.stored())
			want := tc.want
			if want == nil {
				want = []string{}
			}
			if !sameSet(stored, want) {
				t.Fatalf("slices\n got %q\nwant %q", stored, want)
			}
			if ev := f.events.Lines(); !slices.Equal(ev, tc.events) {
				t.Fatalf("events %q, want %q", ev, tc.events)
			}
		})
	}
}

// sameSet compares two lists as multisets: the generated names of new
// slices decide their order.
func sameSet(a, b []string) bool {
	a, b = slices.Clone(a), slices.Clone(b)
	slices.Sort(a)
	slices.Sort(b)
	return slices.Equal(a, b)
}

// TestSliceMetadata follows newEndpointSlice and expectEndpointSlices:
// the generated name's prefix, the labels (the Endpoints' with
// service-name and managed-by set over them), the annotations without
// last-applied-configuration and the trigger time, the controller
// ownerReference to the Endpoints, and each endpoint's hostname, nodeName
// and targetRef.
func TestSliceMetadata(t *testing.T) {
	f := newFixture(t)
	eps := endpoints("foo", subset("10.0.0.1", "http:80/TCP"))
	eps.Labels = map[string]string{"team": "a", LabelServiceName: "spoofed", LabelManagedBy: "someone"}
	eps.Annotations = map[string]string{AnnotationLastAppliedConfig: "{}", AnnotationLastChangeTriggerTime: "x", "note": "kept"}
	node := "node-1"
	eps.Subsets[0].Addresses[0].Hostname = "pod-1"
	eps.Subsets[0].Addresses[0].NodeName = &node
	eps.Subsets[0].Addresses[0].TargetRef = &api.ObjectReference{Kind: "Pod", Namespace: "ns", Name: "pod-1", UID: "u1"}
	f.endpoints, f.services = []*api.Endpoints{eps}, []*api.Service{selectorless("foo")}
	if _, err := f.run("ns/foo"); err != nil {
		t.Fatal(err)
	}
	s := f.stored()[0]
	if s.GenerateName != "foo-" {
		t.Errorf("generateName %q, want foo-", s.GenerateName)
	}
	if want := map[string]string{"team": "a", LabelServiceName: "foo", LabelManagedBy: ControllerName}; !maps.Equal(s.Labels, want) {
		t.Errorf("labels %v, want %v", s.Labels, want)
	}
	if want := map[string]string{"note": "kept"}; !maps.Equal(s.Annotations, want) {
		t.Errorf("annotations %v, want %v", s.Annotations, want)
	}
	if len(s.OwnerReferences) != 1 {
		t.Fatalf("ownerReferences %+v", s.OwnerReferences)
	}
	if o := s.OwnerReferences[0]; o.APIVersion != "v1" || o.Kind != "Endpoints" || o.Name != "foo" || o.UID != "uid-foo" ||
		o.Controller == nil || !*o.Controller || o.BlockOwnerDeletion == nil || !*o.BlockOwnerDeletion {
		t.Errorf("ownerReference %+v, want the Endpoints as controller, blocking deletion", o)
	}
	ep := s.Endpoints[0]
	if deref(ep.Hostname) != "pod-1" || deref(ep.NodeName) != "node-1" || ep.TargetRef == nil || ep.TargetRef.Name != "pod-1" ||
		ep.Conditions.Serving != nil || ep.Conditions.Terminating != nil {
		t.Errorf("endpoint %+v", ep)
	}
	// The slice, caught up, is as desired: the spoofed labels on the
	// Endpoints make upstream rewrite it every sync, and kcm does too.
	f.caughtUp()
	got, err := f.run("ns/foo")
	if err != nil || len(writes(got)) != 1 {
		t.Fatalf("second sync %q %v: want the rewrite upstream makes", writes(got), err)
	}
}

// TestSlicePrefix follows getEndpointSlicePrefix: "<name>-", or the name
// alone where the dash would not fit a DNS subdomain.
func TestSlicePrefix(t *testing.T) {
	long := string(make([]byte, 253))
	for _, tc := range []struct{ name, want string }{{"foo", "foo-"}, {long[:252], long[:252] + "-"}, {long, long}} {
		if got := slicePrefix(tc.name); got != tc.want {
			t.Errorf("slicePrefix(%d chars) = %d chars, want %d", len(tc.name), len(got), len(tc.want))
		}
	}
}
