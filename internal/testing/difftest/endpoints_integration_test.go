//go:build !nocluster

package difftest

import (
	"context"
	"fmt"
	"maps"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/rs/zerolog"

	"github.com/kcmlab/kcm/kube/api"
	"github.com/kcmlab/kcm/kube/api/decode"
	"github.com/kcmlab/kcm/kube/rest"
	"github.com/kcmlab/kcm/testenv"
)

// endpointAllowances are the deliberate differences between kcm's
// endpoints (and endpointslice) controllers and kube-controller-manager's,
// each with its reason. None.
var endpointAllowances []Allowance

// recordOnNodes is record on a fresh cluster with kube-scheduler and the
// endpoints scenarios' kwok nodes.
func recordOnNodes(ctx context.Context, t *testing.T, m Manager, scenarios ...Scenario) map[string]*Recording {
	t.Helper()
	began := time.Now()
	recs, err := RunOnFreshClusterWith(ctx, m, testenv.Options{Logger: zerolog.Nop(), Nodes: EndpointNodes()}, scenarios...)
	if err != nil {
		t.Fatalf("%s: %v", m.Name(), err)
	}
	t.Logf("%s: %d scenario(s) recorded in %s", m.Name(), len(scenarios), time.Since(began).Round(time.Millisecond))
	logWrites(t, m, recs)
	return recs
}

// TestEndpointsMatchKCM runs EndpointsScenario (Services of every kind
// over ready, unready and terminating pods in three zones) and
// EndpointsRollingScenario (100 pods replaced one at a time behind one
// Service) under kcm and under kube-controller-manager, each with the same
// controllers (EndpointControllers: endpoints-controller, and the
// endpointslice controllers once kcm has them; until then
// kube-controller-manager runs without them too, and only Endpoints are
// compared), and requires the same Endpoints (and slices) at the end and
// the same sequence of writes during the rollout, which on each side must
// be one Endpoints write per pod added and per pod deleted.
func TestEndpointsMatchKCM(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 9*time.Minute)
	defer cancel()
	controllers := EndpointControllers()
	withSlices := slices.Contains(controllers, kcmEndpointSlices)
	withMirroring := slices.Contains(controllers, kcmMirroring)
	t.Logf("controllers on both sides: %v (EndpointSlices compared: %t)", controllers, withSlices)
	scenarios := []Scenario{EndpointsScenario(withSlices, withMirroring), EndpointsRollingScenario(withSlices)}
	kcm := &InProcess{Descriptors: endpointDescriptors}
	ref := &KubeControllerManager{Controllers: controllers}
	ra := recordOnNodes(ctx, t, kcm, scenarios...)
	rb := recordOnNodes(ctx, t, ref, scenarios...)
	compare(t, kcm, ref, ra, rb, endpointAllowances, scenarios...)
	rolled := rb[scenarios[1].Name].Timeline.States
	var head []string
	for i := range min(len(rolled), 8) {
		head = append(head, stepText(rolled, i))
	}
	t.Logf("rollout: %d writes recorded under %s, the first:\n  %s\nthe last: %s", len(rolled), ref.Name(),
		strings.Join(head, "\n  "), stepText(rolled, len(rolled)-1))
}

// Takeover sizes: Services, and pods (pod i is selected by Service
// i mod takeoverServices, so the first ten Services have two pods).
const (
	takeoverServices = 50
	takeoverPods     = 60
)

func takeoverServiceName(i int) string { return fmt.Sprintf("svc-%02d", i) }

// takeoverScenario creates the takeover's Services and pods (a named
// target port; pods spread over the three nodes), and the Service
// "external" without a selector with an Endpoints of the user's, and
// waits until every Service's Endpoints (and slices; for "external" the
// mirrored one when withMirroring) list its pods.
func takeoverScenario(withSlices, withMirroring bool) Scenario {
	return Scenario{
		Name:    "takeover-endpoints",
		Timeout: 3 * time.Minute,
		Run: func(ctx context.Context, env *Env) error {
			nodes := EndpointNodes()
			for i := range takeoverServices {
				svc := &api.Service{ObjectMeta: api.ObjectMeta{Name: takeoverServiceName(i)},
					Spec: api.ServiceSpec{Selector: map[string]string{"svc": takeoverServiceName(i)},
						Ports: []api.ServicePort{servicePort("http", 80, api.IntOrStringFromString("http"))}}}
				if _, err := services(env).Create(ctx, svc); err != nil {
					return err
				}
			}
			for i := range takeoverPods {
				p := podSpec{name: fmt.Sprintf("pod-%02d", i), node: nodes[i%len(nodes)].Name,
					labels: map[string]string{"svc": takeoverServiceName(i % takeoverServices)},
					ports:  []api.ContainerPort{tcpPort("http", 8080+int32(i%2))}}
				if _, err := pods(env).Create(ctx, p.pod()); err != nil {
					return err
				}
			}
			if err := createExternal(ctx, env); err != nil {
				return err
			}
			ew, err := WatchEndpoints(ctx, env.Client, env.Namespace, withSlices)
			if err != nil {
				return err
			}
			defer ew.Stop()
			return ew.WaitFor(ctx, "every Service's Endpoints with its ready pods", func(v EndpointsView) bool {
				if withMirroring && len(v.SliceMembers(env.Namespace, "external")) != 2 {
					return false
				}
				for i := range takeoverServices {
					n := 1
					if i < takeoverPods-takeoverServices {
						n = 2
					}
					m := v.ServiceMembers(env.Namespace, takeoverServiceName(i))
					if len(m) != n || slices.Contains(slices.Collect(maps.Values(m)), false) {
						return false
					}
					if withSlices && len(v.SliceMembers(env.Namespace, takeoverServiceName(i))) != n {
						return false
					}
				}
				return true
			})
		},
	}
}

// TestEndpointsTakeoverFromKCM: kube-controller-manager builds the
// Endpoints (and slices) of 50 Services, and mirrors a user's Endpoints
// into a slice, and stops; kcm starts on the same cluster. kcm must find every object already right and write none of
// them; then one pod turns unready, and the only writes are that pod's
// Service's Endpoints (and slice).
//
// kcm runs with one worker per controller, so its queue is processed in
// order; the end of its start-up pass is made visible by a barrier: a new
// Service created once kcm has answered the pod change (so its controllers
// run, and every Service they found at start is queued before it). When
// the barrier's Endpoints appear, every Service of the takeover has been
// synced, and the writes counted on the watch are all kcm made. The
// mirroring controller gets its own barrier, a user's Endpoints for a new
// Service without a selector: the user's write and the mirrored slice are
// expected.
func TestEndpointsTakeoverFromKCM(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 6*time.Minute)
	defer cancel()
	controllers := EndpointControllers()
	withSlices := slices.Contains(controllers, kcmEndpointSlices)
	c, err := testenv.Start(ctx, testenv.Options{Logger: zerolog.Nop(), Nodes: EndpointNodes(), AuditWrites: true})
	if err != nil {
		t.Fatal(err)
	}
	defer c.Stop()
	sc := takeoverScenario(withSlices, slices.Contains(controllers, kcmMirroring))
	ref := &KubeControllerManager{Controllers: controllers}
	if _, err := RunScenarios(ctx, c, ref, sc); err != nil {
		t.Fatal(err)
	}
	client, err := rest.NewClient(c.Config())
	if err != nil {
		t.Fatal(err)
	}
	defer client.CloseIdleConnections()
	ns := sc.Name
	ew, err := WatchEndpoints(ctx, client, ns, withSlices)
	if err != nil {
		t.Fatal(err)
	}
	defer ew.Stop()

	args := []string{"--concurrent-endpoint-syncs=1"}
	if withSlices {
		args = append(args, "--concurrent-service-endpoint-syncs=1")
	}
	if slices.Contains(controllers, kcmMirroring) {
		args = append(args, "--mirroring-concurrent-service-endpoint-syncs=1")
	}
	kcm := &InProcess{Descriptors: endpointDescriptors, Args: args}
	stop, err := kcm.Start(ctx, c)
	if err != nil {
		t.Fatal(err)
	}
	stop = audited(t, c, kcm, stop, ns)
	defer func() {
		if err := stop(); err != nil {
			t.Errorf("stop kcm: %v", err)
		}
	}()
	pc := rest.NewResources(client, rest.Pods, decode.Typed[api.Pod]()).InNamespace(ns)
	const changed, changedSvc = "pod-07", "svc-07"
	if err := markUnready(ctx, pc, changed); err != nil {
		t.Fatal(err)
	}
	if err := ew.WaitFor(ctx, "kcm to move "+changed+" to notReadyAddresses", func(v EndpointsView) bool {
		ready, ok := v.ServiceMembers(ns, changedSvc)[changed]
		return ok && !ready && (!withSlices || strings.Contains(v.SliceMembers(ns, changedSvc)[changed], "ready=false"))
	}); err != nil {
		t.Fatal(err)
	}
	barrier := &api.Service{ObjectMeta: api.ObjectMeta{Name: "zz-barrier"},
		Spec: api.ServiceSpec{Selector: map[string]string{"svc": takeoverServiceName(0)},
			Ports: []api.ServicePort{servicePort("http", 80, api.IntOrStringFromString("http"))}}}
	if _, err := rest.NewResources(client, rest.Services, decode.Typed[api.Service]()).InNamespace(ns).Create(ctx, barrier); err != nil {
		t.Fatal(err)
	}
	if err := ew.WaitFor(ctx, "kcm to write the barrier's Endpoints", func(v EndpointsView) bool {
		return len(v.ServiceMembers(ns, barrier.Name)) == 2 && (!withSlices || len(v.SliceMembers(ns, barrier.Name)) == 2)
	}); err != nil {
		t.Fatal(err)
	}
	withMirroring := slices.Contains(controllers, kcmMirroring)
	if withMirroring {
		// The mirroring controller's queue gets a barrier of its own: a
		// user's Endpoints for a new Service without a selector.
		mirror := &Env{Client: client, Namespace: ns}
		svc := &api.Service{ObjectMeta: api.ObjectMeta{Name: "zz-mirror-barrier"},
			Spec: api.ServiceSpec{Ports: []api.ServicePort{servicePort("http", 80, api.IntOrStringFromInt(8080))}}}
		if _, err := services(mirror).Create(ctx, svc); err != nil {
			t.Fatal(err)
		}
		user := &api.Endpoints{ObjectMeta: api.ObjectMeta{Name: svc.Name}, Subsets: []api.EndpointSubset{{
			Addresses: []api.EndpointAddress{{IP: "192.0.2.20"}}, Ports: []api.EndpointPort{{Name: "http", Port: 8080, Protocol: "TCP"}}}}}
		if _, err := rest.NewResources(client, rest.Endpoints, decode.Typed[api.Endpoints]()).InNamespace(ns).Create(ctx, user); err != nil {
			t.Fatal(err)
		}
		if err := ew.WaitFor(ctx, "kcm to mirror the barrier's Endpoints", func(v EndpointsView) bool {
			return len(v.SliceMembers(ns, svc.Name)) == 1
		}); err != nil {
			t.Fatal(err)
		}
	}
	var lines []string
	ew.Flush(func(l string) { lines = append(lines, l) })
	want := []string{
		"#1 MODIFIED Endpoints " + changedSvc + ": ~" + changed + " notready[http:8081]",
		"#2 ADDED Endpoints " + barrier.Name + ": +pod-00 ready[http:8080], +pod-50 ready[http:8080]",
	}
	if withMirroring {
		want = append(want, "#3 ADDED Endpoints zz-mirror-barrier: +192.0.2.20 ready[http:8080]")
	}
	if withSlices {
		want = append(want,
			"#1 MODIFIED EndpointSlice "+changedSvc+" slice#1: ~"+changed+" ready=false serving=false terminating=false [http:8081]",
			"#2 ADDED EndpointSlice "+barrier.Name+" slice#1: +pod-00 ready=true serving=true terminating=false [http:8080], +pod-50 ready=true serving=true terminating=false [http:8080]")
	}
	if withMirroring {
		want = append(want, "#3 ADDED EndpointSlice zz-mirror-barrier slice#1: +192.0.2.20 ready=true serving=nil terminating=nil [http:8080]") // mirroring sets ready alone
	}
	if !slices.Equal(lines, want) {
		t.Errorf("writes after kcm took over from kube-controller-manager:\n  %s\nwant exactly:\n  %s",
			strings.Join(lines, "\n  "), strings.Join(want, "\n  "))
	}
	t.Logf("kcm took over %d Services' Endpoints from kube-controller-manager; writes: %d Endpoints, %d EndpointSlices",
		takeoverServices, ew.Writes("Endpoints"), ew.Writes("EndpointSlice"))
}
