package podservices

import (
	"maps"
	"slices"
	"testing"
	"time"

	"github.com/kcmlab/kcm/informer"
	"github.com/kcmlab/kcm/internal/testing/resttest"
	"github.com/kcmlab/kcm/kube/api"
)

func service(ns, name string, selector map[string]string) *api.Service {
	return &api.Service{ObjectMeta: api.ObjectMeta{Namespace: ns, Name: name}, Spec: api.ServiceSpec{Selector: selector}}
}

// pod is a ready running pod with one IP in namespace ns, at the given
// resourceVersion and labels, changed by change.
func pod(rv string, labels map[string]string, change ...func(*api.Pod)) *api.Pod {
	p := &api.Pod{ObjectMeta: api.ObjectMeta{Namespace: "ns", Name: "p", ResourceVersion: rv, Labels: labels},
		Status: api.PodStatus{Phase: api.PodRunning, PodIP: "10.0.0.1", PodIPs: []api.PodIP{{IP: "10.0.0.1"}},
			Conditions: []api.PodCondition{{Type: api.PodReady, Status: api.ConditionTrue}}}}
	for _, c := range change {
		c(p)
	}
	return p
}

// TestRules follows k8s.io/endpointslice/util's TestGetPodUpdateProjectionKey,
// TestPodChanged, TestDetermineNeededServiceUpdates and
// TestGetPodServiceMemberships: which Services a pod added, deleted or
// updated concerns.
func TestRules(t *testing.T) {
	web, front := map[string]string{"app": "web"}, map[string]string{"tier": "front"}
	services := informer.ServiceLister{Lister: resttest.Lister("services",
		service("ns", "web", web), service("ns", "front", front), service("ns", "all", map[string]string{}),
		service("ns", "manual", nil), service("other", "elsewhere", web))}
	notReady := func(x *api.Pod) { x.Status.Conditions[0].Status = api.ConditionFalse }
	for _, tc := range []struct {
		name string
		got  map[string]bool
		want []string
	}{
		{"matching: the Services of its namespace whose selector matches; a nil selector matches nothing, an empty one everything",
			Matching(services, "ns", web), []string{"ns/all", "ns/web"}},
		{"update at the same resourceVersion (a resync): nothing",
			ForUpdate(services, pod("1", web), pod("1", web, notReady)), nil},
		{"update that moves no endpoint (an annotation): nothing",
			ForUpdate(services, pod("1", web), pod("2", web, func(x *api.Pod) { x.Annotations = map[string]string{"a": "b"} })), nil},
		{"readiness change: the Services it matches",
			ForUpdate(services, pod("1", web), pod("2", web, notReady)), []string{"ns/all", "ns/web"}},
		{"deletion timestamp set: the Services it matches",
			ForUpdate(services, pod("1", web), pod("2", web, func(x *api.Pod) { x.DeletionTimestamp = &api.Time{Time: time.Unix(0, 0)} })),
			[]string{"ns/all", "ns/web"}},
		{"pod IP added: the Services it matches",
			ForUpdate(services, pod("1", web), pod("2", web, func(x *api.Pod) { x.Status.PodIPs = append(x.Status.PodIPs, api.PodIP{IP: "fd00::1"}) })),
			[]string{"ns/all", "ns/web"}},
		{"pod IP changed: the Services it matches",
			ForUpdate(services, pod("1", web), pod("2", web, func(x *api.Pod) { x.Status.PodIPs = []api.PodIP{{IP: "10.0.0.9"}} })),
			[]string{"ns/all", "ns/web"}},
		{"labels only: the Services it left or joined, not those it stays in",
			ForUpdate(services, pod("1", web), pod("2", front)), []string{"ns/front", "ns/web"}},
		{"labels and readiness: every Service it matched or matches",
			ForUpdate(services, pod("1", web), pod("2", front, notReady)), []string{"ns/all", "ns/front", "ns/web"}},
		{"hostname change counts as a label change: its Services stay the same, nothing",
			ForUpdate(services, pod("1", web), pod("2", web, func(x *api.Pod) { x.Spec.Hostname = "h" })), nil},
		{"subdomain and readiness change: every Service it matches",
			ForUpdate(services, pod("1", web), pod("2", web, notReady, func(x *api.Pod) { x.Spec.Subdomain = "web" })),
			[]string{"ns/all", "ns/web"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := slices.Sorted(maps.Keys(tc.got)); !slices.Equal(got, tc.want) {
				t.Fatalf("Services %q, want %q", got, tc.want)
			}
		})
	}
}
