package endpoint

import (
	"errors"
	"maps"
	"slices"
	"testing"
	"time"

	"github.com/kcmlab/kcm/internal/testing/resttest"
	"github.com/kcmlab/kcm/kube/api"
	"github.com/kcmlab/kcm/kube/rest"
)

// existing is an Endpoints object as this controller would have written
// it for a Service labelled svcLabels.
func existing(name string, svcLabels map[string]string, subsets ...api.EndpointSubset) *api.Endpoints {
	l := maps.Clone(svcLabels)
	if l == nil {
		l = map[string]string{}
	}
	l[LabelManagedBy] = ManagedByValue
	return &api.Endpoints{ObjectMeta: api.ObjectMeta{Namespace: "ns", Name: name, ResourceVersion: "5", Labels: l}, Subsets: subsets}
}

// addr is the address pod(name, ip, ...) gets.
func addr(name, ip string) api.EndpointAddress {
	n := "node-1"
	return api.EndpointAddress{IP: ip, NodeName: &n, TargetRef: &api.ObjectReference{Kind: "Pod", Namespace: "ns", Name: name, UID: "uid-" + name}}
}

func epPort(name string, p int32) api.EndpointPort {
	return api.EndpointPort{Name: name, Port: p, Protocol: "TCP"}
}

// TestSync follows kubernetes/pkg/controller/endpoint's
// endpoints_controller_test.go, case by case (the upstream test each case
// checks is named in the case); want is the stored Endpoints' subsets
// (see show) after the sync.
func TestSync(t *testing.T) {
	headless := service("foo", web, port("http", 80, num(8080)))
	headless.Spec.ClusterIP = api.ClusterIPNone
	headlessNoPorts := service("foo", web)
	headlessNoPorts.Spec.ClusterIP = api.ClusterIPNone
	publish := service("foo", web, port("http", 80, num(8080)))
	publish.Spec.PublishNotReadyAddresses = true
	external := service("foo", web, port("http", 80, num(8080)))
	external.Spec.Type = api.ServiceTypeExternalName
	deleting := func(p *api.Pod) { p.DeletionTimestamp = &api.Time{Time: t0} }
	ready := []api.EndpointSubset{{Addresses: []api.EndpointAddress{addr("a", "10.0.0.1")}, Ports: []api.EndpointPort{epPort("http", 8080)}}}
	unsorted := []api.EndpointSubset{{Addresses: []api.EndpointAddress{addr("b", "10.0.0.2"), addr("a", "10.0.0.1")}, Ports: []api.EndpointPort{epPort("http", 8080)}}}
	withRV := []api.EndpointSubset{{Addresses: []api.EndpointAddress{addr("a", "10.0.0.1")}, Ports: []api.EndpointPort{epPort("http", 8080)}}}
	withRV[0].Addresses[0].TargetRef.ResourceVersion = "42"
	svc80 := service("foo", web, port("http", 80, num(8080)))

	for _, tc := range []struct {
		name      string
		services  []*api.Service
		pods      []*api.Pod
		endpoints []*api.Endpoints
		actions   []string
		want      []string // nil: no Endpoints checked
	}{
		{name: "TestSyncEndpointsServiceNotFound: the Service is gone, its Endpoints are deleted",
			endpoints: []*api.Endpoints{existing("foo", nil, ready...)}, actions: []string{"delete endpoints ns/foo"}},
		{name: "TestSyncEndpointsServiceNotFound: nothing to delete is no error",
			actions: []string{"delete endpoints ns/foo"}},
		{name: "TestSyncEndpointsItemsPreserveNoSelector: a Service without a selector is left alone",
			services: []*api.Service{service("foo", nil, port("http", 80, num(8080)))},
			pods:     []*api.Pod{pod("a", "10.0.0.1", true)}},
		{name: "TestSyncServiceExternalNameType: an ExternalName Service gets no Endpoints",
			services: []*api.Service{external}, pods: []*api.Pod{pod("a", "10.0.0.1", true)}},
		{name: "TestSyncEndpointsNewNoSubsets: a Service without pods gets empty Endpoints",
			services: []*api.Service{svc80}, actions: []string{"create endpoints ns/foo"}, want: []string{}},
		{name: "TestSyncEndpointsProtocolTCP: a ready pod is an address on the target port",
			services: []*api.Service{svc80}, pods: []*api.Pod{pod("a", "10.0.0.1", true)},
			actions: []string{"create endpoints ns/foo"}, want: []string{"ready:[10.0.0.1(a)] notready:[] ports:[http:8080/TCP]"}},
		{name: "TestSyncEndpointsItemsEmptySelectorSelectsAll: an empty selector selects every pod of the namespace",
			services: []*api.Service{service("foo", map[string]string{}, port("http", 80, num(8080)))},
			pods: []*api.Pod{pod("a", "10.0.0.1", true), with(pod("b", "10.0.0.2", true), func(p *api.Pod) { p.Labels = nil }),
				with(pod("c", "10.0.0.3", true), func(p *api.Pod) { p.Namespace = "other" })},
			actions: []string{"create endpoints ns/foo"}, want: []string{"ready:[10.0.0.1(a) 10.0.0.2(b)] notready:[] ports:[http:8080/TCP]"}},
		{name: "TestSyncEndpointsItemsEmptySelectorSelectsAllNotReady: unready pods are notReadyAddresses",
			services: []*api.Service{svc80}, pods: []*api.Pod{pod("a", "10.0.0.1", false), pod("b", "10.0.0.2", false)},
			actions: []string{"create endpoints ns/foo"}, want: []string{"ready:[] notready:[10.0.0.1(a) 10.0.0.2(b)] ports:[http:8080/TCP]"}},
		{name: "TestSyncEndpointsItemsEmptySelectorSelectsAllMixed: ready and unready in one subset",
			services: []*api.Service{svc80}, pods: []*api.Pod{pod("a", "10.0.0.1", false), pod("b", "10.0.0.2", true)},
			actions: []string{"create endpoints ns/foo"}, want: []string{"ready:[10.0.0.2(b)] notready:[10.0.0.1(a)] ports:[http:8080/TCP]"}},
		{name: "TestSyncServiceAddresses: publishNotReadyAddresses puts unready and terminating pods in addresses",
			services: []*api.Service{publish}, pods: []*api.Pod{pod("a", "10.0.0.1", false), with(pod("b", "10.0.0.2", true), deleting)},
			actions: []string{"create endpoints ns/foo"}, want: []string{"ready:[10.0.0.1(a) 10.0.0.2(b)] notready:[] ports:[http:8080/TCP]"}},
		{name: "TestSyncServiceAddresses: a terminating pod is left out without publishNotReadyAddresses",
			services: []*api.Service{svc80}, pods: []*api.Pod{pod("a", "10.0.0.1", true), with(pod("b", "10.0.0.2", true), deleting)},
			actions: []string{"create endpoints ns/foo"}, want: []string{"ready:[10.0.0.1(a)] notready:[] ports:[http:8080/TCP]"}},
		{name: "TestSyncEndpointsItemsExcludeNotReadyPodsWith...PhaseFailed/Succeeded: terminal pods are left out",
			services: []*api.Service{publish}, pods: []*api.Pod{pod("a", "10.0.0.1", true),
				with(pod("b", "10.0.0.2", false), func(p *api.Pod) { p.Status.Phase = api.PodFailed }),
				with(pod("c", "10.0.0.3", false), func(p *api.Pod) { p.Status.Phase = api.PodSucceeded })},
			actions: []string{"create endpoints ns/foo"}, want: []string{"ready:[10.0.0.1(a)] notready:[] ports:[http:8080/TCP]"}},
		{name: "ShouldPodBeInEndpoints: a pod without an IP is left out",
			services: []*api.Service{publish}, pods: []*api.Pod{pod("a", "10.0.0.1", true),
				with(pod("b", "", false), func(p *api.Pod) { p.Status.PodIPs = nil })},
			actions: []string{"create endpoints ns/foo"}, want: []string{"ready:[10.0.0.1(a)] notready:[] ports:[http:8080/TCP]"}},
		{name: "FindPort: a named targetPort is resolved in each pod; pods that number it differently get subsets of their own",
			services: []*api.Service{service("foo", web, port("http", 80, named("http")))},
			pods:     []*api.Pod{pod("a", "10.0.0.1", true, "http=8080"), pod("b", "10.0.0.2", true, "http=8081"), pod("c", "10.0.0.3", true, "http=8080")},
			actions:  []string{"create endpoints ns/foo"},
			// In Kubernetes' hash order (TestRepackMatchesUpstream).
			want: []string{"ready:[10.0.0.1(a) 10.0.0.3(c)] notready:[] ports:[http:8080/TCP]", "ready:[10.0.0.2(b)] notready:[] ports:[http:8081/TCP]"}},
		{name: "FindPort: a pod without the named port has no address on it, and keeps its other ports",
			services: []*api.Service{service("foo", web, port("http", 80, named("http")), port("metrics", 9090, num(9090)))},
			pods:     []*api.Pod{pod("a", "10.0.0.1", true, "http=8080"), pod("b", "10.0.0.2", true)},
			actions:  []string{"create endpoints ns/foo"},
			want:     []string{"ready:[10.0.0.1(a)] notready:[] ports:[http:8080/TCP]", "ready:[10.0.0.1(a) 10.0.0.2(b)] notready:[] ports:[metrics:9090/TCP]"}},
		{name: "FindPort: a named port of a sidecar (init container with restartPolicy Always) counts; of a plain init container not",
			services: []*api.Service{service("foo", web, port("http", 80, named("http")))},
			pods: []*api.Pod{with(pod("a", "10.0.0.1", true), func(p *api.Pod) {
				always := "Always"
				p.Spec.InitContainers = []api.Container{{Name: "proxy", RestartPolicy: &always, Ports: []api.ContainerPort{{Name: "http", ContainerPort: 15001, Protocol: "TCP"}}}}
			}), with(pod("b", "10.0.0.2", true), func(p *api.Pod) {
				p.Spec.InitContainers = []api.Container{{Name: "setup", Ports: []api.ContainerPort{{Name: "http", ContainerPort: 15001, Protocol: "TCP"}}}}
			})},
			actions: []string{"create endpoints ns/foo"}, want: []string{"ready:[10.0.0.1(a)] notready:[] ports:[http:15001/TCP]"}},
		{name: "FindPort: the named port must have the service port's protocol",
			services: []*api.Service{service("foo", web, api.ServicePort{Name: "dns", Protocol: "UDP", Port: 53, TargetPort: named("http")})},
			pods:     []*api.Pod{pod("a", "10.0.0.1", true, "http=8080")},
			actions:  []string{"create endpoints ns/foo"}, want: []string{}},
		{name: "TestSyncEndpointsProtocolMultiProtocolSamePort: one port number, two protocols, one subset",
			services: []*api.Service{service("foo", web, api.ServicePort{Name: "tcp", Protocol: "TCP", Port: 53, TargetPort: num(53)},
				api.ServicePort{Name: "udp", Protocol: "UDP", Port: 53, TargetPort: num(53)})},
			pods:    []*api.Pod{pod("a", "10.0.0.1", true)},
			actions: []string{"create endpoints ns/foo"}, want: []string{"ready:[10.0.0.1(a)] notready:[] ports:[tcp:53/TCP udp:53/UDP]"}},
		{name: "TestSyncEndpointsHeadlessService: a headless Service's Endpoints",
			services: []*api.Service{headless}, pods: []*api.Pod{pod("a", "10.0.0.1", true)},
			actions: []string{"create endpoints ns/foo"}, want: []string{"ready:[10.0.0.1(a)] notready:[] ports:[http:8080/TCP]"}},
		{name: "TestSyncEndpointsHeadlessWithoutPort: a headless Service without ports gets port-less addresses",
			services: []*api.Service{headlessNoPorts}, pods: []*api.Pod{pod("a", "10.0.0.1", true), pod("b", "10.0.0.2", false)},
			actions: []string{"create endpoints ns/foo"}, want: []string{"ready:[10.0.0.1(a)] notready:[10.0.0.2(b)] ports:[]"}},
		{name: "syncService: a Service with a cluster IP and no ports gets no addresses",
			services: []*api.Service{service("foo", web)}, pods: []*api.Pod{pod("a", "10.0.0.1", true)},
			actions: []string{"create endpoints ns/foo"}, want: []string{}},
		{name: "ShouldSetHostname: a pod whose subdomain is the Service's name carries its hostname",
			services: []*api.Service{svc80}, pods: []*api.Pod{
				with(pod("a", "10.0.0.1", true), func(p *api.Pod) { p.Spec.Hostname, p.Spec.Subdomain = "web-0", "foo" }),
				with(pod("b", "10.0.0.2", true), func(p *api.Pod) { p.Spec.Hostname, p.Spec.Subdomain = "web-1", "bar" })},
			actions: []string{"create endpoints ns/foo"}, want: []string{"ready:[10.0.0.1(a,host web-0) 10.0.0.2(b)] notready:[] ports:[http:8080/TCP]"}},
		{name: "TestSyncEndpointsItemsPreexistingIdentical: nothing changed, nothing written",
			services: []*api.Service{svc80}, pods: []*api.Pod{pod("a", "10.0.0.1", true)},
			endpoints: []*api.Endpoints{existing("foo", nil, ready...)}},
		{name: "TestSyncEndpointsItemsPreexistingIdenticalUnsorted: the same subsets unsorted, nothing written",
			services: []*api.Service{svc80}, pods: []*api.Pod{pod("a", "10.0.0.1", true), pod("b", "10.0.0.2", true)},
			endpoints: []*api.Endpoints{existing("foo", nil, unsorted...)}},
		{name: "TestSyncEndpointsWithPodResourceVersionUpdateOnly: a targetRef resourceVersion alone writes nothing",
			services: []*api.Service{svc80}, pods: []*api.Pod{pod("a", "10.0.0.1", true)},
			endpoints: []*api.Endpoints{existing("foo", nil, withRV...)}},
		{name: "TestSyncEndpointsItemsPreexisting: other addresses are replaced",
			services: []*api.Service{svc80}, pods: []*api.Pod{pod("b", "10.0.0.2", true)},
			endpoints: []*api.Endpoints{existing("foo", nil, ready...)},
			actions:   []string{"update endpoints ns/foo"}, want: []string{"ready:[10.0.0.2(b)] notready:[] ports:[http:8080/TCP]"}},
		{name: "TestSyncEndpointsItemsPreexistingLabelsChange: a Service label change is written",
			services: []*api.Service{with2(service("foo", web, port("http", 80, num(8080))), func(s *api.Service) { s.Labels = map[string]string{"tier": "front"} })},
			pods:     []*api.Pod{pod("a", "10.0.0.1", true)}, endpoints: []*api.Endpoints{existing("foo", nil, ready...)},
			actions: []string{"update endpoints ns/foo"}, want: []string{"ready:[10.0.0.1(a)] notready:[] ports:[http:8080/TCP]"}},
		{name: "labelsCorrectForEndpoints: Endpoints without the managed-by label are taken over",
			services: []*api.Service{svc80}, pods: []*api.Pod{pod("a", "10.0.0.1", true)},
			endpoints: []*api.Endpoints{with3(existing("foo", nil, ready...), func(e *api.Endpoints) { delete(e.Labels, LabelManagedBy) })},
			actions:   []string{"update endpoints ns/foo"}, want: []string{"ready:[10.0.0.1(a)] notready:[] ports:[http:8080/TCP]"}},
		{name: "TestPodToEndpointAddressForService: an IPv6 Service takes each pod's IPv6 address, canonical",
			services: []*api.Service{with2(service("foo", web, port("http", 80, num(8080))), func(s *api.Service) {
				s.Spec.IPFamilies, s.Spec.ClusterIP = []string{api.IPv6Protocol}, "fd00::10"
			})},
			pods: []*api.Pod{with(pod("a", "10.0.0.1", true), func(p *api.Pod) {
				p.Status.PodIPs = []api.PodIP{{IP: "10.0.0.1"}, {IP: "FD00:0:0::1"}}
			}), pod("b", "10.0.0.2", true)},
			actions: []string{"create endpoints ns/foo"}, want: []string{"ready:[fd00::1(a)] notready:[] ports:[http:8080/TCP]"}},
		{name: "TestPodToEndpointAddressForServiceEmptyIPFamilies: without ipFamilies the cluster IP's family counts",
			services: []*api.Service{with2(service("foo", web, port("http", 80, num(8080))), func(s *api.Service) {
				s.Spec.IPFamilies, s.Spec.ClusterIP = nil, "fd00::10"
			})},
			pods: []*api.Pod{with(pod("a", "10.0.0.1", true), func(p *api.Pod) {
				p.Status.PodIPs = []api.PodIP{{IP: "10.0.0.1"}, {IP: "fd00::1"}}
			})},
			actions: []string{"create endpoints ns/foo"}, want: []string{"ready:[fd00::1(a)] notready:[] ports:[http:8080/TCP]"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			f := newFixture(t)
			f.services, f.pods, f.endpoints = tc.services, tc.pods, tc.endpoints
			got, err := f.run("ns/foo")
			if err != nil {
				t.Fatalf("sync: %v", err)
			}
			if !resttest.Expect(t, got, tc.actions...) {
				t.Fatalf("actions %q, want %q", resttest.Lines(got), tc.actions)
			}
			if tc.want == nil {
				return
			}
			e := f.stored("ns", "foo")
			if s := show(e.Subsets); !slices.Equal(s, tc.want) {
				t.Fatalf("subsets\n got %q\nwant %q", s, tc.want)
			}
		})
	}
}

func with2(s *api.Service, change func(*api.Service)) *api.Service       { change(s); return s }
func with3(e *api.Endpoints, change func(*api.Endpoints)) *api.Endpoints { change(e); return e }

// TestSyncLabels: the Endpoints carry the Service's labels, the
// managed-by label, and the headless label exactly when the Service has no
// cluster IP (TestSyncEndpointsHeadlessServiceLabel,
// TestSyncEndpointsItemsWithLabels).
func TestSyncLabels(t *testing.T) {
	for _, tc := range []struct {
		clusterIP string
		headless  bool
	}{{"10.96.0.10", false}, {api.ClusterIPNone, true}, {"", true}} {
		f := newFixture(t)
		s := service("foo", web, port("http", 80, num(8080)))
		s.Labels = map[string]string{"tier": "front"}
		s.Spec.ClusterIP = tc.clusterIP
		f.services = []*api.Service{s}
		if _, err := f.run("ns/foo"); err != nil {
			t.Fatal(err)
		}
		want := map[string]string{"tier": "front", LabelManagedBy: "endpoint-controller"}
		if tc.headless {
			want[LabelHeadless] = ""
		}
		if got := f.stored("ns", "foo").Labels; !maps.Equal(got, want) {
			t.Errorf("clusterIP %q: labels %v, want %v", tc.clusterIP, got, want)
		}
	}
}

// TestSyncOverCapacity follows TestSyncServiceOverCapacity: past
// MaxCapacity addresses the Endpoints are truncated (ready ones kept
// first) and annotated over-capacity: truncated; at or below it the
// annotation goes, whatever its value was.
func TestSyncOverCapacity(t *testing.T) {
	for _, tc := range []struct {
		name                        string
		annotation                  *string
		existing, ready, notReady   int
		wantReady, wantNotReady     int
		wantAnnotation, wantNoWrite bool
	}{
		{name: "empty", wantNoWrite: false},
		{name: "past capacity, fewer ready than capacity", existing: MaxCapacity - 1, ready: MaxCapacity - 3, notReady: 4,
			wantReady: MaxCapacity - 3, wantNotReady: 3, wantAnnotation: true},
		{name: "past capacity, capacity of ready", existing: MaxCapacity - 1, ready: MaxCapacity, notReady: 10,
			wantReady: MaxCapacity, wantAnnotation: true},
		{name: "annotation removed below capacity", annotation: ptr("truncated"), existing: MaxCapacity - 1, ready: MaxCapacity - 1,
			wantReady: MaxCapacity - 1},
		{name: "annotation was warning, removed at capacity", annotation: ptr("warning"), existing: MaxCapacity, ready: MaxCapacity,
			wantReady: MaxCapacity},
		{name: "annotation was warning, still over capacity", annotation: ptr("warning"), existing: MaxCapacity + 1, ready: MaxCapacity + 1,
			wantReady: MaxCapacity, wantAnnotation: true},
		{name: "no change, annotation value corrected", annotation: ptr("invalid"), existing: MaxCapacity + 1, ready: MaxCapacity + 1,
			wantReady: MaxCapacity, wantAnnotation: true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			f := newFixture(t)
			svc := service("foo", web, port("", 80, num(80)))
			f.services = []*api.Service{svc}
			// Unlike upstream's test, the existing subset has the Service's
			// port, so that an unchanged Endpoints reaches the annotation
			// check (capacityAnnotationSetCorrectly) instead of being
			// rewritten for its port.
			sub := api.EndpointSubset{Ports: []api.EndpointPort{{Port: 80, Protocol: "TCP"}}}
			for i := range tc.ready + tc.notReady {
				p := pod(podName(i), podIP(i), i < tc.ready)
				f.pods = append(f.pods, p)
				if i < tc.existing {
					a, _ := podAddress(svc, p)
					sub.Addresses = append(sub.Addresses, a)
				}
			}
			e := existing("foo", nil, sub)
			e.Annotations = map[string]string{}
			if tc.annotation != nil {
				e.Annotations[AnnotationOverCapacity] = *tc.annotation
			}
			f.endpoints = []*api.Endpoints{e}
			if _, err := f.run("ns/foo"); err != nil {
				t.Fatal(err)
			}
			got := f.stored("ns", "foo")
			r, nr := 0, 0
			for _, s := range got.Subsets {
				r += len(s.Addresses)
				nr += len(s.NotReadyAddresses)
			}
			a, ok := got.Annotations[AnnotationOverCapacity]
			if r != tc.wantReady || nr != tc.wantNotReady || ok != tc.wantAnnotation || (ok && a != "truncated") {
				t.Fatalf("ready %d notReady %d annotation %q (%v); want %d, %d, truncated %v", r, nr, a, ok, tc.wantReady, tc.wantNotReady, tc.wantAnnotation)
			}
		})
	}
}

func ptr[T any](v T) *T    { return &v }
func podName(i int) string { return "p" + itoa(i) }
func podIP(i int) string   { return "10.1." + itoa(i/250) + "." + itoa(i%250+1) }
func itoa(i int) string {
	if i == 0 {
		return "0"
	}
	var b []byte
	for ; i > 0; i /= 10 {
		b = append([]byte{byte('0' + i%10)}, b...)
	}
	return string(b)
}

// TestTruncate follows TestTruncateEndpoints: each subset keeps its
// share, rounded up, of the addresses being cut.
func TestTruncate(t *testing.T) {
	mk := func(ready, notReady int) api.EndpointSubset {
		var s api.EndpointSubset
		for range ready {
			s.Addresses = append(s.Addresses, api.EndpointAddress{})
		}
		for range notReady {
			s.NotReadyAddresses = append(s.NotReadyAddresses, api.EndpointAddress{})
		}
		return s
	}
	for _, tc := range []struct {
		name string
		in   [][2]int
		want [][2]int
		cut  bool
	}{
		{"under capacity", [][2]int{{500, 200}, {100, 0}}, [][2]int{{500, 200}, {100, 0}}, false},
		{"ready under capacity, not-ready cut in proportion", [][2]int{{600, 400}, {100, 300}}, [][2]int{{600, 172}, {100, 128}}, true},
		{"ready over capacity: not-ready dropped, ready cut in proportion", [][2]int{{1000, 10}, {100, 5}}, [][2]int{{910, 0}, {90, 0}}, true},
		{"three subsets, the last gets what is left", [][2]int{{334, 0}, {334, 0}, {334, 0}}, [][2]int{{334, 0}, {334, 0}, {332, 0}}, true},
	} {
		var in []api.EndpointSubset
		for _, s := range tc.in {
			in = append(in, mk(s[0], s[1]))
		}
		cut := truncate(in)
		var got [][2]int
		for _, s := range in {
			got = append(got, [2]int{len(s.Addresses), len(s.NotReadyAddresses)})
		}
		if cut != tc.cut || !slices.Equal(got, tc.want) {
			t.Errorf("%s: truncated %v to %v, want %v %v", tc.name, cut, got, tc.cut, tc.want)
		}
	}
}

// TestTriggerTimeAnnotation follows TestLastTriggerChangeTimeAnnotation,
// _AnnotationOverridden and _AnnotationCleared: the first sync of a
// Service writes its creationTimestamp; a later sync the earliest pod
// Ready transition that moved; a sync with no moved trigger removes the
// annotation; a sync that writes nothing leaves it.
func TestTriggerTimeAnnotation(t *testing.T) {
	f := newFixture(t)
	f.services = []*api.Service{service("foo", web, port("http", 80, num(8080)))}
	// Pod a turned ready an hour before the Service was made: the first
	// sync still writes the Service's creation.
	a := pod("a", "10.0.0.1", true)
	a.Status.Conditions[0].LastTransitionTime = api.NewTime(t0.Add(-time.Hour))
	f.pods = []*api.Pod{a}
	if _, err := f.run("ns/foo"); err != nil {
		t.Fatal(err)
	}
	if got := f.stored("ns", "foo").Annotations[AnnotationLastChangeTriggerTime]; got != "2025-09-01T08:00:00Z" {
		t.Fatalf("first sync: trigger time %q, want the Service's creation 2025-09-01T08:00:00Z", got)
	}
	// Pod b turns ready at +2m, pod c at +3m: the earliest moved is +2m.
	b := pod("b", "10.0.0.2", true)
	b.Status.Conditions[0].LastTransitionTime = api.NewTime(t0.Add(2 * time.Minute))
	c := pod("c", "10.0.0.3", true)
	c.Status.Conditions[0].LastTransitionTime = api.NewTime(t0.Add(3 * time.Minute))
	resttest.Add(f.api, rest.Pods, b, c)
	f.caughtUp()
	if _, err := f.run("ns/foo"); err != nil {
		t.Fatal(err)
	}
	if got := f.stored("ns", "foo").Annotations[AnnotationLastChangeTriggerTime]; got != "2025-09-01T08:02:00Z" {
		t.Fatalf("pods added: trigger time %q, want 2025-09-01T08:02:00Z", got)
	}
	// Pod c goes (no trigger moves): the update clears the annotation.
	f.api.Remove(rest.Pods, "ns", "c")
	f.caughtUp()
	if _, err := f.run("ns/foo"); err != nil {
		t.Fatal(err)
	}
	if got, ok := f.stored("ns", "foo").Annotations[AnnotationLastChangeTriggerTime]; ok {
		t.Fatalf("pod deleted: trigger time %q, want none", got)
	}
}

// TestSyncWriteAnswers: a create refused because the namespace is
// terminating is dropped; other refused writes record a Warning Event
// and fail the sync (syncService's error handling).
func TestSyncWriteAnswers(t *testing.T) {
	terminating := rest.Status{Code: 403, Reason: "Forbidden", Details: &rest.StatusDetails{Causes: []rest.StatusCause{{Type: "NamespaceTerminating"}}}}
	forbidden := rest.Status{Code: 403, Reason: "Forbidden", Message: "no"}
	for _, tc := range []struct {
		name     string
		existing bool
		verb     string
		status   rest.Status
		wantErr  bool
		event    string
	}{
		{"create in a terminating namespace", false, "create", terminating, false, ""},
		{"create forbidden", false, "create", forbidden, true, "Warning FailedToCreateEndpoint Failed to create endpoint for service ns/foo: "},
		{"update fails", true, "update", rest.Status{Code: 500, Reason: "InternalError"}, true, "Warning FailedToUpdateEndpoint Failed to update endpoint ns/foo: "},
	} {
		t.Run(tc.name, func(t *testing.T) {
			f := newFixture(t)
			f.services = []*api.Service{service("foo", web, port("http", 80, num(8080)))}
			f.pods = []*api.Pod{pod("a", "10.0.0.1", true)}
			if tc.existing {
				f.endpoints = []*api.Endpoints{existing("foo", nil)}
			}
			f.api.Fail(resttest.On(tc.verb, "endpoints"), tc.status)
			_, err := f.run("ns/foo")
			if (err != nil) != tc.wantErr {
				t.Fatalf("err %v, want error %v", err, tc.wantErr)
			}
			ev := f.events.Lines()
			if tc.event == "" && len(ev) != 0 || tc.event != "" && (len(ev) != 1 || len(ev[0]) < len(tc.event) || ev[0][:len(tc.event)] != tc.event) {
				t.Fatalf("events %q, want %q", ev, tc.event)
			}
		})
	}
}

// TestStaleEndpointsRetried: after an update, a sync that still reads the
// replaced version from its cache fails with ErrStaleEndpoints, and
// succeeds once the cache has caught up (staleEndpointsTracker).
func TestStaleEndpointsRetried(t *testing.T) {
	f := newFixture(t)
	f.services = []*api.Service{service("foo", web, port("http", 80, num(8080)))}
	f.pods = []*api.Pod{pod("a", "10.0.0.1", true)}
	f.endpoints = []*api.Endpoints{existing("foo", nil)}
	if got, err := f.run("ns/foo"); err != nil || !resttest.Expect(t, got, "update endpoints ns/foo") {
		t.Fatalf("first sync: %q %v", resttest.Lines(got), err)
	}
	if _, err := f.run("ns/foo"); !errors.Is(err, ErrStaleEndpoints) {
		t.Fatalf("sync on the replaced version: %v, want ErrStaleEndpoints", err)
	}
	f.caughtUp()
	if got, err := f.run("ns/foo"); err != nil || len(got) != 0 {
		t.Fatalf("sync after catching up: %q %v, want no write", resttest.Lines(got), err)
	}
}

// TestSyncKeepsUnmanagedAnnotations: an update keeps what others wrote on
// the Endpoints besides labels and subsets (upstream updates a copy of the
// cached object).
func TestSyncKeepsUnmanagedAnnotations(t *testing.T) {
	f := newFixture(t)
	f.services = []*api.Service{service("foo", web, port("http", 80, num(8080)))}
	f.pods = []*api.Pod{pod("a", "10.0.0.1", true)}
	e := existing("foo", nil)
	e.Annotations = map[string]string{"example.com/note": "keep"}
	f.endpoints = []*api.Endpoints{e}
	if _, err := f.run("ns/foo"); err != nil {
		t.Fatal(err)
	}
	if got := f.stored("ns", "foo").Annotations["example.com/note"]; got != "keep" {
		t.Fatalf("annotation %q after update, want keep", got)
	}
}
