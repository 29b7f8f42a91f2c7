package endpointslicemirroring

import (
	"errors"
	"slices"
	"strings"
	"testing"

	"github.com/kcmlab/kcm/internal/testing/resttest"
	"github.com/kcmlab/kcm/kube/api"
	"github.com/kcmlab/kcm/kube/rest"
)

// TestSync follows kubernetes/pkg/controller/endpointslicemirroring's
// TestSyncEndpoints and TestShouldMirror, case by case: which Endpoints
// are mirrored, and when the mirrored slices are deleted instead.
func TestSync(t *testing.T) {
	one := func(name string) *api.Endpoints { return endpoints(name, subset("10.0.0.1", "http:80/TCP")) }
	labelled := func(k, v string) *api.Endpoints {
		e := one("foo")
		e.Labels = map[string]string{k: v}
		return e
	}
	leader := one("foo")
	leader.Annotations = map[string]string{"control-plane.alpha.kubernetes.io/leader": "{}"}
	leftover := mirroredSlice(one("foo"), "foo-old", api.AddressTypeIPv4, []api.EndpointPort{{Name: "http", Port: 80, Protocol: "TCP"}}, "10.0.0.1")
	foreign := mirroredSlice(one("foo"), "foo-other", api.AddressTypeIPv4, nil, "10.0.0.9")
	foreign.Labels[LabelManagedBy] = "endpointslice-controller.k8s.io"

	for _, tc := range []struct {
		name      string
		endpoints []*api.Endpoints
		services  []*api.Service
		slices    []*api.EndpointSlice
		writes    []string
	}{
		{name: "Endpoints with no addresses: nothing to mirror",
			endpoints: []*api.Endpoints{endpoints("foo")}, services: []*api.Service{selectorless("foo")}},
		{name: "a selector-less Service's Endpoints is mirrored",
			endpoints: []*api.Endpoints{one("foo")}, services: []*api.Service{selectorless("foo")},
			writes: []string{"create endpointslices ns/foo-*"}},
		{name: "Endpoints with skip label true: not mirrored",
			endpoints: []*api.Endpoints{labelled(LabelSkipMirror, "true")}, services: []*api.Service{selectorless("foo")}},
		{name: "Endpoints with skip label true: mirrored slices deleted",
			endpoints: []*api.Endpoints{labelled(LabelSkipMirror, "true")}, services: []*api.Service{selectorless("foo")},
			slices: []*api.EndpointSlice{leftover}, writes: []string{"delete endpointslices ns/foo-old"}},
		{name: "Endpoints with skip label false: mirrored (TestShouldMirror: skip-mirror=invalid too)",
			endpoints: []*api.Endpoints{labelled(LabelSkipMirror, "false")}, services: []*api.Service{selectorless("foo")},
			writes: []string{"create endpointslices ns/foo-*"}},
		{name: "TestShouldMirror: Endpoints with leader election annotation is not mirrored",
			endpoints: []*api.Endpoints{leader}, services: []*api.Service{selectorless("foo")}},
		{name: "Endpoints with missing Service: not mirrored, leftovers deleted",
			endpoints: []*api.Endpoints{one("foo")}, slices: []*api.EndpointSlice{leftover},
			writes: []string{"delete endpointslices ns/foo-old"}},
		{name: "Endpoints with Service with selector specified: not mirrored, leftovers deleted",
			endpoints: []*api.Endpoints{one("foo")}, services: []*api.Service{withSelector("foo")}, slices: []*api.EndpointSlice{leftover},
			writes: []string{"delete endpointslices ns/foo-old"}},
		{name: "an empty selector is a selector: not mirrored",
			endpoints: []*api.Endpoints{one("foo")},
			services:  []*api.Service{func() *api.Service { s := selectorless("foo"); s.Spec.Selector = map[string]string{}; return s }()}},
		{name: "an Endpoints labelled as the endpoints controller's, for a selector-less Service, is mirrored (upstream checks the selector only)",
			endpoints: []*api.Endpoints{labelled("endpoints.kubernetes.io/managed-by", "endpoint-controller")}, services: []*api.Service{selectorless("foo")},
			writes: []string{"create endpointslices ns/foo-*"}},
		{name: "Existing EndpointSlices that need to be cleaned up: the Endpoints is gone",
			services: []*api.Service{selectorless("foo")}, slices: []*api.EndpointSlice{leftover},
			writes: []string{"delete endpointslices ns/foo-old"}},
		{name: "Existing EndpointSlices managed by a different controller, no addresses to sync: left alone",
			endpoints: []*api.Endpoints{endpoints("foo")}, services: []*api.Service{selectorless("foo")}, slices: []*api.EndpointSlice{foreign}},
		{name: "a different controller's slice is not deleted with the Endpoints",
			services: []*api.Service{selectorless("foo")}, slices: []*api.EndpointSlice{foreign}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			f := newFixture(t)
			f.endpoints, f.services, f.slices = tc.endpoints, tc.services, tc.slices
			got, err := f.run("ns/foo")
			if err != nil {
				t.Fatalf("sync: %v", err)
			}
			if w := writes(got); !slices.Equal(w, tc.writes) && !(len(w) == 0 && len(tc.writes) == 0) {
				t.Fatalf("writes %q, want %q", w, tc.writes)
			}
		})
	}
}

// TestSyncAddressCap follows TestSyncEndpoints' "Endpoints with 1000
// addresses" and "1001 addresses - 1 should not be mirrored": the default
// cap mirrors 1000 addresses of a subset; the 1001st is skipped with a
// TooManyAddressesToMirror Warning on the Endpoints.
func TestSyncAddressCap(t *testing.T) {
	for _, tc := range []struct {
		n      int
		events []string
	}{
		{1000, nil},
		{1001, []string{"Warning TooManyAddressesToMirror A max of 1000 addresses can be mirrored to EndpointSlices per Endpoints subset. 1 addresses were skipped"}},
	} {
		f := newFixture(t)
		s := subset("http:80/TCP")
		for i := range tc.n {
			s.Addresses = append(s.Addresses, api.EndpointAddress{IP: ip4(i)})
		}
		f.endpoints = []*api.Endpoints{endpoints("foo", s)}
		f.services = []*api.Service{selectorless("foo")}
		if _, err := f.run("ns/foo"); err != nil {
			t.Fatal(err)
		}
		stored := f.stored()
		if len(stored) != 1 || len(stored[0].Endpoints) != 1000 {
			t.Fatalf("%d addresses: %d slices, want 1 of 1000 endpoints", tc.n, len(stored))
		}
		if got := f.events.Lines(); !slices.Equal(got, tc.events) {
			t.Fatalf("%d addresses: events %q, want %q", tc.n, got, tc.events)
		}
	}
}

func ip4(i int) string {
	return "10.1." + itoa(i/250) + "." + itoa(i%250+1)
}

func itoa(i int) string {
	const digits = "0123456789"
	if i < 10 {
		return digits[i : i+1]
	}
	return itoa(i/10) + digits[i%10:i%10+1]
}

// TestStaleSlicesRetried follows the StaleSlices check of syncEndpoints:
// a slice whose cached generation is older than the one this controller
// wrote fails the sync with ErrStaleSlices and writes nothing; once the
// cache has caught up the sync goes on.
func TestStaleSlicesRetried(t *testing.T) {
	f := newFixture(t)
	eps := endpoints("foo", subset("10.0.0.1", "10.0.0.2", "http:80/TCP"))
	f.endpoints = []*api.Endpoints{eps}
	f.services = []*api.Service{selectorless("foo")}
	old := mirroredSlice(eps, "foo-a", api.AddressTypeIPv4, eps.Subsets[0].Ports, "10.0.0.1")
	f.slices = []*api.EndpointSlice{old}
	c := f.controller()
	newer := *old
	newer.Generation = 2
	c.tracker.Update(&newer)
	got, err := f.run("ns/foo")
	if !errors.Is(err, ErrStaleSlices) || len(writes(got)) != 0 {
		t.Fatalf("sync on an older cache: writes %q, err %v; want none and ErrStaleSlices", writes(got), err)
	}
	// The slice the tracker knows is missing from the cache: stale too.
	f2 := newFixture(t)
	f2.endpoints, f2.services = f.endpoints, f.services
	f2.controller().tracker.Update(old)
	if _, err := f2.run("ns/foo"); !errors.Is(err, ErrStaleSlices) {
		t.Fatalf("sync without a tracked slice: %v, want ErrStaleSlices", err)
	}
	// Caught up: the slice is rewritten with both endpoints.
	stored, _ := resttest.Get[*api.EndpointSlice](f.api, rest.EndpointSlices, "ns", "foo-a")
	stored.Generation = 2
	resttest.Replace(f.api, rest.EndpointSlices, stored)
	f.caughtUp()
	got, err = f.run("ns/foo")
	if err != nil || !slices.Equal(writes(got), []string{"update endpointslices ns/foo-a"}) {
		t.Fatalf("sync after catching up: %q %v", writes(got), err)
	}
}

// TestOwnWritesNotResynced: after a sync, the slices it wrote come back
// through the informer at the generation it recorded, and a second sync
// on the caught-up cache writes nothing (the tracker and the no-op check
// together: no write when unchanged).
func TestOwnWritesNotResynced(t *testing.T) {
	f := newFixture(t)
	f.endpoints = []*api.Endpoints{endpoints("foo", subset("10.0.0.1", "!10.0.0.2", "fd00::1", "http:80/TCP"), subset("10.0.0.3", "dns:53/UDP"))}
	f.services = []*api.Service{selectorless("foo")}
	got, err := f.run("ns/foo")
	if err != nil || len(writes(got)) != 3 {
		t.Fatalf("first sync: %q %v, want three creates", writes(got), err)
	}
	f.caughtUp()
	for _, s := range f.stored() {
		if !f.c.tracker.Has(s) || f.c.tracker.ShouldSync(s) {
			t.Errorf("slice %s: tracked %v, should sync %v; want tracked at its generation", s.Name, f.c.tracker.Has(s), f.c.tracker.ShouldSync(s))
		}
	}
	if got, err := f.run("ns/foo"); err != nil || len(writes(got)) != 0 {
		t.Fatalf("second sync: %q %v, want no write", writes(got), err)
	}
}

// TestSyncWriteFailures follows finalize's error handling: a create
// refused because the namespace is terminating ends the sync quietly;
// other refused writes fail it (and it is retried).
func TestSyncWriteFailures(t *testing.T) {
	terminating := rest.Status{Code: 403, Reason: "Forbidden", Details: &rest.StatusDetails{Causes: []rest.StatusCause{{Type: "NamespaceTerminating"}}}}
	for _, tc := range []struct {
		name, verb string
		existing   bool
		status     rest.Status
		wantErr    string
	}{
		{"create in a terminating namespace", "create", false, terminating, ""},
		{"create fails", "create", false, rest.Status{Code: 500, Reason: "InternalError"}, "failed to create EndpointSlice for Endpoints ns/foo"},
		{"update fails", "update", true, rest.Status{Code: 500, Reason: "InternalError"}, "failed to update foo-a EndpointSlice for Endpoints ns/foo"},
		{"delete fails", "delete", false, rest.Status{Code: 500, Reason: "InternalError"}, "deleting 1/1 EndpointSlices of Endpoints ns/foo"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			f := newFixture(t)
			eps := endpoints("foo", subset("10.0.0.1", "http:80/TCP"))
			f.services = []*api.Service{selectorless("foo")}
			switch {
			case tc.verb == "delete": // the Endpoints is gone: its slice goes
				f.slices = []*api.EndpointSlice{mirroredSlice(eps, "foo-a", api.AddressTypeIPv4, eps.Subsets[0].Ports, "10.0.0.1")}
			case tc.existing:
				f.endpoints = []*api.Endpoints{eps}
				f.slices = []*api.EndpointSlice{mirroredSlice(eps, "foo-a", api.AddressTypeIPv4, eps.Subsets[0].Ports, "10.0.0.9")}
			default:
				f.endpoints = []*api.Endpoints{eps}
			}
			f.api.Fail(resttest.On(tc.verb, "endpointslices"), tc.status)
			_, err := f.run("ns/foo")
			if tc.wantErr == "" && err != nil || tc.wantErr != "" && (err == nil || !strings.Contains(err.Error(), tc.wantErr)) {
				t.Fatalf("err %v, want %q", err, tc.wantErr)
			}
		})
	}
}
