package reconciler

import (
	"slices"
	"testing"

	"github.com/kcmlab/kcm/kube/api"
)

// every returns the pods of ps whose index i satisfies from <= i < to and
// i%step == from%step.
func every(ps []*api.Pod, from, to, step int) []*api.Pod {
	var out []*api.Pod
	for i := from; i < to && i < len(ps); i += step {
		out = append(out, ps[i])
	}
	return out
}

// TestPacking follows k8s.io/endpointslice reconciler_test.go's packing
// cases (named in each case) with upstream's numbers: which writes one
// reconcile makes and how many endpoints each slice holds afterwards.
func TestPacking(t *testing.T) {
	for _, tc := range []struct {
		name     string
		max      int32
		svc      func() *api.Service
		pods     func() []*api.Pod
		existing func(svc *api.Service, ps []*api.Pod) []*api.EndpointSlice
		actions  []string
		lengths  []int
	}{
		{name: "TestReconcileManyPods / TestReconcileMaxEndpointsPerSlice: 250 endpoints over 100 per slice are 3 new slices",
			pods:    func() []*api.Pod { return pods(250) },
			actions: []string{"create endpointslices", "create endpointslices", "create endpointslices"},
			lengths: []int{50, 100, 100}},
		{name: "TestReconcileMaxEndpointsPerSlice: 250 endpoints over 50 per slice are 5 slices",
			max:     50,
			pods:    func() []*api.Pod { return pods(250) },
			actions: slices.Repeat([]string{"create endpointslices"}, 5),
			lengths: []int{50, 50, 50, 50, 50}},
		{name: "TestReconcileEndpointSlicesSomePreexisting: fill the fullest unchanged slice that fits before creating",
			pods: func() []*api.Pod { return pods(250) },
			existing: func(svc *api.Service, ps []*api.Pod) []*api.EndpointSlice {
				return []*api.EndpointSlice{existingSlice(svc, "foo-1", httpPorts(), every(ps, 1, 246, 4)...),
					existingSlice(svc, "foo-2", httpPorts(), every(ps, 3, 246, 4)...)}
			},
			actions: []string{"create endpointslices", "update endpointslices"},
			lengths: []int{61, 89, 100}},
		{name: "TestReconcileEndpointSlicesSomePreexistingWorseAllocation: nothing fits, so two new slices",
			pods: func() []*api.Pod { return pods(300) },
			existing: func(svc *api.Service, ps []*api.Pod) []*api.EndpointSlice {
				return []*api.EndpointSlice{existingSlice(svc, "foo-1", httpPorts(), every(ps, 1, 296, 4)...),
					existingSlice(svc, "foo-2", httpPorts(), every(ps, 3, 296, 4)...)}
			},
			actions: []string{"create endpointslices", "create endpointslices"},
			lengths: []int{52, 74, 74, 100}},
		{name: "TestReconcileEndpointSlicesUpdatePacking: new endpoints fill the slices being updated anyway, fullest first",
			pods: func() []*api.Pod {
				ps := append(pods(80), every(pods(120), 100, 120, 1)...)
				for i, p := range ps {
					p.Status.Conditions[0].Status = api.ConditionTrue
					if i%10 == 0 {
						p.Status.Conditions[0].Status = api.ConditionFalse
					}
				}
				return append(ps, every(pods(215), 200, 215, 1)...)
			},
			existing: func(svc *api.Service, ps []*api.Pod) []*api.EndpointSlice {
				ready := func(p *api.Pod) *api.Pod {
					c := *p
					c.Status.Conditions = []api.PodCondition{{Type: api.PodReady, Status: api.ConditionTrue}}
					return &c
				}
				var a, b []*api.Pod
				for _, p := range ps[:80] {
					a = append(a, ready(p))
				}
				for _, p := range ps[80:100] {
					b = append(b, ready(p))
				}
				return []*api.EndpointSlice{existingSlice(svc, "foo-1", httpPorts(), a...), existingSlice(svc, "foo-2", httpPorts(), b...)}
			},
			actions: []string{"update endpointslices", "update endpointslices"},
			lengths: []int{20, 95}},
		{name: "TestReconcileEndpointSlicesRecycling: a port change replaces every slice: creates become updates of slices to delete",
			svc:  func() *api.Service { return service(port("http", 80, api.IntOrStringFromInt(8081))) },
			pods: func() []*api.Pod { return pods(300) },
			existing: func(svc *api.Service, ps []*api.Pod) []*api.EndpointSlice {
				var out []*api.EndpointSlice
				for i := 0; i < 10; i++ {
					out = append(out, existingSlice(svc, "foo-"+string(rune('a'+i)), httpPorts(), ps[i*30:(i+1)*30]...))
				}
				return out
			},
			actions: append(slices.Repeat([]string{"update endpointslices"}, 3), slices.Repeat([]string{"delete endpointslices"}, 7)...),
			lengths: []int{100, 100, 100}},
		{name: "TestReconcileEndpointSlicesUpdating: a targetPort change rewrites each slice once",
			svc:  func() *api.Service { return service(port("http", 80, api.IntOrStringFromInt(81))) },
			pods: func() []*api.Pod { return pods(250) },
			existing: func(svc *api.Service, ps []*api.Pod) []*api.EndpointSlice {
				return []*api.EndpointSlice{existingSlice(svc, "foo-1", httpPorts(), ps[:100]...),
					existingSlice(svc, "foo-2", httpPorts(), ps[100:200]...), existingSlice(svc, "foo-3", httpPorts(), ps[200:]...)}
			},
			actions: slices.Repeat([]string{"update endpointslices"}, 3),
			lengths: []int{50, 100, 100}},
		{name: "TestReconcileEndpointSlicesServicesLabelsUpdating: a Service label change updates every slice",
			svc: func() *api.Service {
				return with(service(), func(s *api.Service) { s.Labels = map[string]string{"foo": "bar"} })
			},
			pods: func() []*api.Pod { return pods(250) },
			existing: func(_ *api.Service, ps []*api.Pod) []*api.EndpointSlice {
				svc := service()
				return []*api.EndpointSlice{existingSlice(svc, "foo-1", httpPorts(), ps[:100]...),
					existingSlice(svc, "foo-2", httpPorts(), ps[100:200]...), existingSlice(svc, "foo-3", httpPorts(), ps[200:]...)}
			},
			actions: slices.Repeat([]string{"update endpointslices"}, 3),
			lengths: []int{50, 100, 100}},
		{name: "TestReconcileEndpointSlicesServicesReservedLabels: reserved labels on the Service change nothing",
			svc: func() *api.Service {
				return with(service(), func(s *api.Service) {
					s.Labels = map[string]string{LabelServiceName: "bad", LabelManagedBy: "actor", LabelHeadless: "invalid"}
				})
			},
			pods: func() []*api.Pod { return pods(250) },
			existing: func(_ *api.Service, ps []*api.Pod) []*api.EndpointSlice {
				svc := service()
				return []*api.EndpointSlice{existingSlice(svc, "foo-1", httpPorts(), ps[:100]...),
					existingSlice(svc, "foo-2", httpPorts(), ps[100:200]...), existingSlice(svc, "foo-3", httpPorts(), ps[200:]...)}
			},
			lengths: []int{50, 100, 100}},
		{name: "reconcileByPortMapping: removed endpoints leave a slice empty, and it is deleted",
			pods: func() []*api.Pod { return pods(150)[:100] },
			existing: func(svc *api.Service, ps []*api.Pod) []*api.EndpointSlice {
				more := pods(150)
				return []*api.EndpointSlice{existingSlice(svc, "foo-1", httpPorts(), ps[:100]...),
					existingSlice(svc, "foo-2", httpPorts(), more[100:150]...)}
			},
			actions: []string{"delete endpointslices"},
			lengths: []int{100}},
		{name: "reconcileByPortMapping: removed endpoints update their slice, which then takes the new ones (one update)",
			pods: func() []*api.Pod { return append(pods(10)[5:], every(pods(20), 10, 13, 1)...) },
			existing: func(svc *api.Service, ps []*api.Pod) []*api.EndpointSlice {
				return []*api.EndpointSlice{existingSlice(svc, "foo-1", httpPorts(), pods(10)...)}
			},
			actions: []string{"update endpointslices"},
			lengths: []int{8}},
		{name: "TestReconcile1EndpointSlice: an existing empty placeholder for a Service with pods is reused by an update",
			pods: func() []*api.Pod { return pods(3) },
			existing: func(svc *api.Service, _ []*api.Pod) []*api.EndpointSlice {
				return []*api.EndpointSlice{existingSlice(svc, "foo-p", []api.EndpointSlicePort{})}
			},
			actions: []string{"update endpointslices"},
			lengths: []int{3}},
		{name: "TestPlaceHolderSliceCompare: the placeholder of a Service without pods stays as it is",
			pods: func() []*api.Pod { return nil },
			existing: func(svc *api.Service, _ []*api.Pod) []*api.EndpointSlice {
				return []*api.EndpointSlice{existingSlice(svc, "foo-p", []api.EndpointSlicePort{})}
			},
			lengths: []int{0}},
		{name: "placeholder: a placeholder with stale labels is replaced — a create and a delete that become one update",
			svc: func() *api.Service {
				return with(service(), func(s *api.Service) { s.Labels = map[string]string{"v": "2"} })
			},
			pods: func() []*api.Pod { return nil },
			existing: func(_ *api.Service, _ []*api.Pod) []*api.EndpointSlice {
				return []*api.EndpointSlice{existingSlice(service(), "foo-p", []api.EndpointSlicePort{})}
			},
			actions: []string{"update endpointslices"},
			lengths: []int{0}},
		{name: "placeholder: the last endpoints going away turn their slice into the placeholder (one update)",
			pods: func() []*api.Pod { return nil },
			existing: func(svc *api.Service, _ []*api.Pod) []*api.EndpointSlice {
				return []*api.EndpointSlice{existingSlice(svc, "foo-1", httpPorts(), pods(3)...)}
			},
			actions: []string{"update endpointslices"},
			lengths: []int{0}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			f := newFixture(t)
			f.max = tc.max
			svc := service()
			if tc.svc != nil {
				svc = tc.svc()
			}
			ps := tc.pods()
			var existing []*api.EndpointSlice
			if tc.existing != nil {
				existing = f.load(tc.existing(svc, ps)...)
			}
			actions, err := f.reconcile(svc, ps, existing)
			if err != nil {
				t.Fatal(err)
			}
			if got := verbs(actions); !slices.Equal(got, tc.actions) && !(len(got) == 0 && len(tc.actions) == 0) {
				t.Errorf("actions %v, want %v", got, tc.actions)
			}
			if got := lengths(f.stored()); !slices.Equal(got, tc.lengths) {
				t.Errorf("slice lengths %v, want %v", got, tc.lengths)
			}
			// At most one write per slice per sync.
			seen := map[string]bool{}
			for _, a := range actions {
				if a.Name != "" && seen[a.Name] {
					t.Errorf("slice %s written twice", a.Name)
				}
				seen[a.Name] = true
			}
			// The cache's slices were not modified (upstream's cacheMutationCheck).
			if tc.existing != nil {
				again := tc.existing(svc, tc.pods())
				for i := range again {
					if got, want := showSlice(existing[i]), showSlice(again[i]); got != want {
						t.Errorf("cached slice %s modified:\n got %s\nwant %s", existing[i].Name, got, want)
					}
				}
			}
		})
	}
}

// TestNamedPortsDifferBetweenPods follows TestReconcileEndpointSlicesNamedPorts:
// a named targetPort that pods number differently splits them into one
// slice set per port set; a pod without the port is in a set without it.
func TestNamedPortsDifferBetweenPods(t *testing.T) {
	f := newFixture(t)
	svc := service(port("http", 80, api.IntOrStringFromString("http")), port("metrics", 9090, api.IntOrStringFromInt(9090)))
	ps := []*api.Pod{pod(0, true, "http=8080"), pod(1, true, "http=8081"), pod(2, true, "http=8080"), pod(3, true)}
	if _, err := f.reconcile(svc, ps, nil); err != nil {
		t.Fatal(err)
	}
	equalLines(t, "slices", showSlices(f.stored()), []string{
		"IPv4 [http:8080/TCP metrics:9090/TCP] 10.0.0.1(pod0) rs- node=node-1 zone=zone-a; 10.0.0.3(pod2) rs- node=node-1 zone=zone-a",
		"IPv4 [http:8081/TCP metrics:9090/TCP] 10.0.0.2(pod1) rs- node=node-1 zone=zone-a",
		"IPv4 [metrics:9090/TCP] 10.0.0.4(pod3) rs- node=node-1 zone=zone-a",
	})
	// A rolling change of pod1's port moves it to the 8080 set: its old
	// slice is emptied; create nothing, update one, delete one.
	ps[1] = pod(1, true, "http=8080")
	actions, err := f.reconcile(svc, ps, f.stored())
	if err != nil {
		t.Fatal(err)
	}
	if got := verbs(actions); !slices.Equal(got, []string{"update endpointslices", "delete endpointslices"}) {
		t.Errorf("actions %v, want one update and one delete", got)
	}
}
