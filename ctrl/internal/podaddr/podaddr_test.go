package podaddr_test

import (
	"errors"
	"fmt"
	"testing"

	"github.com/kcmlab/kcm/ctrl/internal/podaddr"
	"github.com/kcmlab/kcm/kube/api"
)

func pod(change func(*api.Pod)) *api.Pod {
	p := &api.Pod{ObjectMeta: api.ObjectMeta{Namespace: "ns", Name: "p"},
		Status: api.PodStatus{Phase: api.PodRunning, PodIP: "10.0.0.1", PodIPs: []api.PodIP{{IP: "10.0.0.1"}}}}
	if change != nil {
		change(p)
	}
	return p
}

// TestShouldBeInEndpoints follows endpointslice/util
// TestShouldPodBeInEndpoints: terminal pods and pods without an IP never;
// terminating pods only when asked for.
func TestShouldBeInEndpoints(t *testing.T) {
	deleting := func(p *api.Pod) { p.DeletionTimestamp = &api.Time{} }
	for _, tc := range []struct {
		name        string
		pod         *api.Pod
		terminating bool
		want        bool
	}{
		{"running with an IP", pod(nil), false, true},
		{"succeeded", pod(func(p *api.Pod) { p.Status.Phase = api.PodSucceeded }), true, false},
		{"failed", pod(func(p *api.Pod) { p.Status.Phase = api.PodFailed }), true, false},
		{"no IP", pod(func(p *api.Pod) { p.Status.PodIP, p.Status.PodIPs = "", nil }), true, false},
		{"only status.podIP", pod(func(p *api.Pod) { p.Status.PodIPs = nil }), false, true},
		{"terminating, not included", pod(deleting), false, false},
		{"terminating, included", pod(deleting), true, true},
	} {
		if got := podaddr.ShouldBeInEndpoints(tc.pod, tc.terminating); got != tc.want {
			t.Errorf("%s: %v, want %v", tc.name, got, tc.want)
		}
	}
}

// TestFindPort follows endpointslice TestFindPort: numbers as they are;
// names by name and protocol in containers, then sidecars only.
func TestFindPort(t *testing.T) {
	always := "Always"
	p := pod(func(p *api.Pod) {
		p.Spec.Containers = []api.Container{{Name: "c", Ports: []api.ContainerPort{{Name: "http", ContainerPort: 8080, Protocol: "TCP"},
			{Name: "dns", ContainerPort: 53, Protocol: "UDP"}}}}
		p.Spec.InitContainers = []api.Container{{Name: "init", Ports: []api.ContainerPort{{Name: "init", ContainerPort: 1, Protocol: "TCP"}}},
			{Name: "sidecar", RestartPolicy: &always, Ports: []api.ContainerPort{{Name: "proxy", ContainerPort: 15001, Protocol: "TCP"}}}}
	})
	for _, tc := range []struct {
		name   string
		target api.IntOrString
		proto  string
		want   int32
		err    bool
	}{
		{"number", api.IntOrStringFromInt(9090), "TCP", 9090, false},
		{"name", api.IntOrStringFromString("http"), "TCP", 8080, false},
		{"name, other protocol", api.IntOrStringFromString("dns"), "TCP", 0, true},
		{"name and protocol", api.IntOrStringFromString("dns"), "UDP", 53, false},
		{"sidecar", api.IntOrStringFromString("proxy"), "TCP", 15001, false},
		{"plain init container", api.IntOrStringFromString("init"), "TCP", 0, true},
		{"missing", api.IntOrStringFromString("nope"), "TCP", 0, true},
	} {
		got, err := podaddr.FindPort(p, &api.ServicePort{TargetPort: tc.target, Protocol: tc.proto})
		if got != tc.want || (err != nil) != tc.err || (err != nil && !errors.Is(err, podaddr.ErrNoPort)) {
			t.Errorf("%s: %d, %v; want %d, error %v", tc.name, got, err, tc.want, tc.err)
		}
	}
}

// TestShouldSetHostname: a hostname, the Service's name as subdomain, the
// same namespace.
func TestShouldSetHostname(t *testing.T) {
	svc := &api.Service{ObjectMeta: api.ObjectMeta{Namespace: "ns", Name: "web"}}
	for _, tc := range []struct {
		host, sub, ns string
		want          bool
	}{{"h", "web", "ns", true}, {"", "web", "ns", false}, {"h", "other", "ns", false}, {"h", "web", "other", false}} {
		p := pod(func(p *api.Pod) { p.Spec.Hostname, p.Spec.Subdomain, p.Namespace = tc.host, tc.sub, tc.ns })
		if got := podaddr.ShouldSetHostname(p, svc); got != tc.want {
			t.Errorf("%+v: %v", tc, got)
		}
	}
}

// TestParseIPSloppy follows k8s.io/utils/net: leading zeros read as
// decimal, anything else not an IP is nil.
func TestParseIPSloppy(t *testing.T) {
	for in, want := range map[string]string{"10.0.0.1": "10.0.0.1", "010.001.000.009": "10.1.0.9", "fd00::1": "fd00::1",
		"1.2.3": "<nil>", "256.0.0.1": "<nil>", "1.2.3.-4": "<nil>", "x": "<nil>", "": "<nil>"} {
		if got := podaddr.ParseIPSloppy(in).String(); got != want {
			t.Errorf("ParseIPSloppy(%q) = %s, want %s", in, got, want)
		}
	}
	if podaddr.IsIPv6(nil) || podaddr.IsIPv6(podaddr.ParseIPSloppy("10.0.0.1")) || !podaddr.IsIPv6(podaddr.ParseIPSloppy("::1")) {
		t.Error("IsIPv6")
	}
}

// A pod's named targetPort resolves in the pod; a terminating pod is an
// endpoint only where terminating endpoints are kept.
func Example() {
	p := &api.Pod{ObjectMeta: api.ObjectMeta{Name: "web-0", DeletionTimestamp: &api.Time{}},
		Spec:   api.PodSpec{Containers: []api.Container{{Ports: []api.ContainerPort{{Name: "http", ContainerPort: 8080, Protocol: "TCP"}}}}},
		Status: api.PodStatus{Phase: api.PodRunning, PodIPs: []api.PodIP{{IP: "10.0.0.1"}}}}
	port, err := podaddr.FindPort(p, &api.ServicePort{Protocol: "TCP", TargetPort: api.IntOrStringFromString("http")})
	fmt.Println(port, err)
	fmt.Println(podaddr.ShouldBeInEndpoints(p, false), podaddr.ShouldBeInEndpoints(p, true))
	// Output:
	// 8080 <nil>
	// false true
}
