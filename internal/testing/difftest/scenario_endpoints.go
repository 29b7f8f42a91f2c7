package difftest

import (
	"context"
	"fmt"
	"maps"
	"strings"
	"time"

	"github.com/kcmlab/kcm/ctrl"
	"github.com/kcmlab/kcm/ctrl/endpoint"
	"github.com/kcmlab/kcm/kube/api"
	"github.com/kcmlab/kcm/kube/api/decode"
	"github.com/kcmlab/kcm/kube/rest"
	"github.com/kcmlab/kcm/manager"
	"github.com/kcmlab/kcm/testenv"
)

// The Endpoints and EndpointSlice scenarios run on a cluster with
// kube-scheduler and three kwok nodes, one per zone. kwok plays the
// kubelet: a pod scheduled to a node gets an IP from the node's range,
// phase Running and Ready (its pod-ready Stage, which matches Pending pods
// only, so a status the scenario writes afterwards stays); a pod marked
// for deletion is deleted at once, unless a finalizer holds it, which
// keeps it terminating for as long as the scenario wants. Every pod names
// its node by the kubernetes.io/hostname label (nodeSelector), so the
// scheduler's choice, and with it each endpoint's nodeName and zone, is
// the same in every run.

// The controllers of kube-controller-manager the endpoints comparison
// runs, by their canonical v1.37 names.
const (
	kcmEndpoints      = "endpoints-controller"
	kcmEndpointSlices = "endpointslice-controller"
	kcmMirroring      = "endpointslice-mirroring-controller"
)

// EndpointNodes are the kwok nodes of the endpoints scenarios.
func EndpointNodes() []testenv.NodeSpec {
	return []testenv.NodeSpec{{Name: "node-a", Zone: "zone-a"}, {Name: "node-b", Zone: "zone-b"}, {Name: "node-c", Zone: "zone-c"}}
}

// SlicesInKCM reports whether kcm registers the endpointslice controller.
// Until it does, kube-controller-manager runs without its endpointslice
// and mirroring controllers too (both are on by default there), and the
// scenarios compare Endpoints only.
func SlicesInKCM() bool {
	_, ok := manager.NewControllerDescriptors().Lookup(kcmEndpointSlices)
	return ok
}

// EndpointControllers are the comparison's controllers on both sides:
// endpoints-controller, and, when SlicesInKCM, endpointslice-controller
// and (when kcm has it) endpointslice-mirroring-controller.
func EndpointControllers() []string {
	names := []string{kcmEndpoints}
	ds := manager.NewControllerDescriptors()
	for _, n := range []string{kcmEndpointSlices, kcmMirroring} {
		if _, ok := ds.Lookup(n); ok && SlicesInKCM() {
			names = append(names, n)
		}
	}
	return names
}

// endpointDescriptors are kcm's descriptors of EndpointControllers.
func endpointDescriptors() []*ctrl.ControllerDescriptor {
	ds := manager.NewControllerDescriptors()
	out := []*ctrl.ControllerDescriptor{endpoint.Descriptor()}
	for _, n := range EndpointControllers()[1:] {
		d, _ := ds.Lookup(n)
		out = append(out, d)
	}
	return out
}

// endpointResources are what the endpoints scenarios record.
func endpointResources(withSlices bool) []rest.Resource {
	if withSlices {
		return []rest.Resource{rest.Endpoints, rest.EndpointSlices}
	}
	return []rest.Resource{rest.Endpoints}
}

// podHoldFinalizer keeps a deleted pod terminating until the scenario
// removes it.
const podHoldFinalizer = "difftest.kcm.local/hold"

// podSpec describes one scenario pod.
type podSpec struct {
	name, node          string
	labels              map[string]string
	ports               []api.ContainerPort
	hold                bool   // carries podHoldFinalizer
	hostname, subdomain string // spec.hostname and spec.subdomain
}

func (p podSpec) pod() *api.Pod {
	pod := &api.Pod{
		ObjectMeta: api.ObjectMeta{Name: p.name, Labels: p.labels},
		Spec: api.PodSpec{
			NodeSelector: map[string]string{testenv.LabelHostname: p.node},
			Hostname:     p.hostname, Subdomain: p.subdomain,
			Containers: []api.Container{{Name: "app", Image: ImageV1, Ports: p.ports}},
		},
	}
	if p.hold {
		pod.Finalizers = []string{podHoldFinalizer}
	}
	return pod
}

func tcpPort(name string, n int32) api.ContainerPort {
	return api.ContainerPort{Name: name, ContainerPort: n, Protocol: "TCP"}
}

func servicePort(name string, port int32, target api.IntOrString) api.ServicePort {
	return api.ServicePort{Name: name, Port: port, Protocol: "TCP", TargetPort: target}
}

func pods(env *Env) *rest.Resources[*api.Pod] {
	return rest.NewResources(env.Client, rest.Pods, decode.Typed[api.Pod]()).InNamespace(env.Namespace)
}

func services(env *Env) *rest.Resources[*api.Service] {
	return rest.NewResources(env.Client, rest.Services, decode.Typed[api.Service]()).InNamespace(env.Namespace)
}

// running reports whether the pod has been scheduled, given an IP and made
// Ready by kwok.
func running(p *api.Pod) bool {
	return p != nil && p.Spec.NodeName != "" && p.Status.PodIP != "" && api.IsPodReady(p)
}

// markUnready writes the pod's Ready and ContainersReady conditions False,
// as a kubelet does when a readiness probe starts failing.
func markUnready(ctx context.Context, pc *rest.Resources[*api.Pod], name string) error {
	now := time.Now().UTC().Format(time.RFC3339)
	patch := fmt.Sprintf(`{"status":{"conditions":[`+
		`{"type":"Ready","status":"False","lastTransitionTime":%q},`+
		`{"type":"ContainersReady","status":"False","lastTransitionTime":%q}]}}`, now, now)
	if _, err := pc.Patch(ctx, name, rest.StrategicMergePatch, []byte(patch), rest.PatchOptions{}, "status"); err != nil {
		return fmt.Errorf("difftest: mark pod %s unready: %w", name, err)
	}
	return nil
}

// release removes the pod's finalizers, so that a terminating pod goes.
func release(ctx context.Context, pc *rest.Resources[*api.Pod], name string) error {
	_, err := pc.Patch(ctx, name, rest.MergePatch, []byte(`{"metadata":{"finalizers":null}}`), rest.PatchOptions{})
	if err != nil && !rest.IsNotFound(err) {
		return fmt.Errorf("difftest: release pod %s: %w", name, err)
	}
	return nil
}

// The Services of EndpointsScenario, what their Endpoints must list once
// the scenario has settled (pod → ready), and which pods their slices
// must hold (terminating ones included).
var (
	webPods = map[string]bool{"web-0": true, "web-1": true, "web-2": false, "web-4": true}
	dbPods  = map[string]bool{"db-0": true, "db-1": false, "db-2": true}
	// publishNotReadyAddresses lists every pod ready, terminating ones
	// included (Kubernetes' ShouldPodBeInEndpoints with includeTerminating).
	webPodsPublished = map[string]bool{"web-0": true, "web-1": true, "web-2": true, "web-3": true, "web-4": true}
	endpointsWant    = map[string]map[string]bool{
		"web-named": webPods, "web-numeric": webPods, "web-dual": webPods, "web-pnra": webPodsPublished,
		"db": dbPods, "db-noports": dbPods,
		"external":      {"192.0.2.10": true, "192.0.2.11": true},
		"spread-close":  spreadWant(),
		"spread-auto":   spreadWant(),
		"spread-hinted": spreadWant(),
	}
)

// spreadPods are the pods of the topology Services, two per zone.
const spreadPods = 6

func spreadWant() map[string]bool {
	m := map[string]bool{}
	for i := range spreadPods {
		m[fmt.Sprintf("spread-%d", i)] = true
	}
	return m
}

// EndpointsScenario creates pods across three zones, turns some of them
// unready or terminating, then creates Services of every kind the
// endpoints controllers treat differently:
//
//   - web-named (targetPort "http", a name web-1 numbers 9090 and the
//     others 8080, so two subsets), web-numeric (targetPort 8080),
//     web-dual (ports http and metrics; web-4 has no metrics port) and
//     web-pnra (publishNotReadyAddresses) select web-0..web-4: web-0,
//     web-1 and web-4 Ready, web-2 unready, web-3 terminating (held by a
//     finalizer);
//   - db is headless over db-0..db-2 with hostnames: db-0 and db-1 in
//     subdomain "db" (their hostnames are published), db-2 in "other";
//     db-1 is unready; db-noports is the same without ports;
//   - external has no selector and an Endpoints of the user's, which the
//     controller must leave alone (and the mirroring controller, when
//     compared, mirrors into slices);
//   - spread-close (trafficDistribution PreferClose), spread-auto
//     (service.kubernetes.io/topology-mode: Auto) and spread-hinted (the
//     deprecated service.kubernetes.io/topology-aware-hints: auto) select
//     six pods, two per zone on nodes of equal CPU: their slices carry
//     zone hints, which are compared.
//
// It waits until every Endpoints lists exactly the pods Kubernetes puts
// there, and, with slices, every Service's slices hold its pods with the
// right ready condition. The pods reach their final state before the
// Services exist, so that each controller writes each object once, from
// one sync that sees everything: had the pods changed while the Services
// existed, how those changes fell into syncs would depend on timing, and
// with it the slices' generation and whether the last write carried a
// last-change-trigger-time (a sync that sees no newer Ready transition
// clears it). Pod changes under a Service are EndpointsRollingScenario's
// and the takeover test's, one change at a time.
func EndpointsScenario(withSlices, withMirroring bool) Scenario {
	return Scenario{
		Name:    "endpoints",
		Record:  endpointResources(withSlices),
		Timeout: 2 * time.Minute,
		Run: func(ctx context.Context, env *Env) error {
			pc := pods(env)
			http, metrics := "http", "metrics"
			web := map[string]string{"app": "web"}
			db := map[string]string{"app": "db"}
			specs := []podSpec{
				{name: "web-0", node: "node-a", labels: web, ports: []api.ContainerPort{tcpPort(http, 8080), tcpPort(metrics, 9100)}},
				{name: "web-1", node: "node-b", labels: web, ports: []api.ContainerPort{tcpPort(http, 9090), tcpPort(metrics, 9100)}},
				{name: "web-2", node: "node-c", labels: web, ports: []api.ContainerPort{tcpPort(http, 8080), tcpPort(metrics, 9100)}},
				{name: "web-3", node: "node-a", labels: web, ports: []api.ContainerPort{tcpPort(http, 8080), tcpPort(metrics, 9100)}, hold: true},
				{name: "web-4", node: "node-b", labels: web, ports: []api.ContainerPort{tcpPort(http, 8080)}},
				{name: "db-0", node: "node-a", labels: db, ports: []api.ContainerPort{tcpPort("pg", 5432)}, hostname: "db-0", subdomain: "db"},
				{name: "db-1", node: "node-b", labels: db, ports: []api.ContainerPort{tcpPort("pg", 5432)}, hostname: "db-1", subdomain: "db"},
				{name: "db-2", node: "node-c", labels: db, ports: []api.ContainerPort{tcpPort("pg", 5432)}, hostname: "db-2", subdomain: "other"},
			}
			for i := range spreadPods {
				specs = append(specs, podSpec{name: fmt.Sprintf("spread-%d", i), node: EndpointNodes()[i%3].Name,
					labels: map[string]string{"app": "spread"}, ports: []api.ContainerPort{tcpPort(http, 8080)}})
			}
			for _, s := range specs {
				if _, err := pc.Create(ctx, s.pod()); err != nil {
					return fmt.Errorf("create pod %s: %w", s.name, err)
				}
			}
			if err := env.Observer.WaitFor(ctx, "every pod running on its node", func(v View) bool {
				for _, s := range specs {
					if !running(v.Pods[s.name]) {
						return false
					}
				}
				return true
			}); err != nil {
				return err
			}
			for _, n := range []string{"web-2", "db-1"} {
				if err := markUnready(ctx, pc, n); err != nil {
					return err
				}
			}
			if err := pc.Delete(ctx, "web-3", rest.DeleteOptions{}); err != nil {
				return fmt.Errorf("delete pod web-3: %w", err)
			}
			if err := env.Observer.WaitFor(ctx, "web-2 and db-1 unready, web-3 terminating", func(v View) bool {
				return !api.IsPodReady(v.Pods["web-2"]) && !api.IsPodReady(v.Pods["db-1"]) &&
					v.Pods["web-3"] != nil && v.Pods["web-3"].DeletionTimestamp != nil
			}); err != nil {
				return err
			}
			ew, err := WatchEndpoints(ctx, env.Client, env.Namespace, withSlices)
			if err != nil {
				return err
			}
			defer ew.Stop()
			if err := createEndpointServices(ctx, env); err != nil {
				return err
			}
			return ew.WaitFor(ctx, "every Endpoints (and the slices) to list its pods", func(v EndpointsView) bool {
				for svc, want := range endpointsWant {
					if !maps.Equal(v.ServiceMembers(env.Namespace, svc), want) {
						return false
					}
					if withSlices && (svc != "external" || withMirroring) && !sliceReady(v.SliceMembers(env.Namespace, svc), sliceWant(svc, want)) {
						return false
					}
				}
				return true
			})
		},
	}
}

// sliceWant are the endpoints the slices of svc must hold, each with its
// ready condition: its Endpoints' members and, for the Services that
// leave terminating pods out of the Endpoints, the terminating web-3, not
// ready (EndpointSlices keep a terminating endpoint, with ready false,
// serving as its Ready condition, terminating true; publishNotReadyAddresses
// makes every endpoint ready).
func sliceWant(svc string, want map[string]bool) map[string]bool {
	out := maps.Clone(want)
	switch svc {
	case "web-named", "web-numeric", "web-dual":
		out["web-3"] = false
	}
	return out
}

// sliceReady: the slice members are exactly want's, each with the ready
// condition want gives it.
func sliceReady(got map[string]string, want map[string]bool) bool {
	if len(got) != len(want) {
		return false
	}
	for k, ready := range want {
		if !strings.HasPrefix(got[k], fmt.Sprintf("ready=%t ", ready)) {
			return false
		}
	}
	return true
}

// createEndpointServices creates EndpointsScenario's Services and the
// user's Endpoints of "external".
func createEndpointServices(ctx context.Context, env *Env) error {
	web := map[string]string{"app": "web"}
	db := map[string]string{"app": "db"}
	named, num := api.IntOrStringFromString("http"), api.IntOrStringFromInt(8080)
	metrics, pg := api.IntOrStringFromString("metrics"), api.IntOrStringFromInt(5432)
	spread, preferClose := map[string]string{"app": "spread"}, "PreferClose"
	svcs := []*api.Service{
		{ObjectMeta: api.ObjectMeta{Name: "web-named", Labels: map[string]string{"tier": "front"}},
			Spec: api.ServiceSpec{Selector: web, Ports: []api.ServicePort{servicePort("http", 80, named)}}},
		{ObjectMeta: api.ObjectMeta{Name: "web-numeric"},
			Spec: api.ServiceSpec{Selector: web, Ports: []api.ServicePort{servicePort("", 80, num)}}},
		{ObjectMeta: api.ObjectMeta{Name: "web-dual"},
			Spec: api.ServiceSpec{Selector: web, Ports: []api.ServicePort{servicePort("http", 80, named), servicePort("metrics", 9100, metrics)}}},
		{ObjectMeta: api.ObjectMeta{Name: "web-pnra"},
			Spec: api.ServiceSpec{Selector: web, PublishNotReadyAddresses: true, Ports: []api.ServicePort{servicePort("http", 80, named)}}},
		{ObjectMeta: api.ObjectMeta{Name: "db"},
			Spec: api.ServiceSpec{Selector: db, ClusterIP: api.ClusterIPNone, Ports: []api.ServicePort{servicePort("pg", 5432, pg)}}},
		{ObjectMeta: api.ObjectMeta{Name: "db-noports"},
			Spec: api.ServiceSpec{Selector: db, ClusterIP: api.ClusterIPNone}},
		{ObjectMeta: api.ObjectMeta{Name: "spread-close"},
			Spec: api.ServiceSpec{Selector: spread, TrafficDistribution: &preferClose, Ports: []api.ServicePort{servicePort("http", 80, named)}}},
		{ObjectMeta: api.ObjectMeta{Name: "spread-auto", Annotations: map[string]string{"service.kubernetes.io/topology-mode": "Auto"}},
			Spec: api.ServiceSpec{Selector: spread, Ports: []api.ServicePort{servicePort("http", 80, named)}}},
		{ObjectMeta: api.ObjectMeta{Name: "spread-hinted", Annotations: map[string]string{"service.kubernetes.io/topology-aware-hints": "auto"}},
			Spec: api.ServiceSpec{Selector: spread, Ports: []api.ServicePort{servicePort("http", 80, named)}}},
	}
	sc := services(env)
	for _, s := range svcs {
		if _, err := sc.Create(ctx, s); err != nil {
			return fmt.Errorf("create Service %s: %w", s.Name, err)
		}
	}
	return createExternal(ctx, env)
}

// createExternal creates the Service "external", which has no selector,
// and the user's Endpoints for it: two addresses, port 8080.
func createExternal(ctx context.Context, env *Env) error {
	svc := &api.Service{ObjectMeta: api.ObjectMeta{Name: "external"},
		Spec: api.ServiceSpec{Ports: []api.ServicePort{servicePort("http", 80, api.IntOrStringFromInt(8080))}}}
	if _, err := services(env).Create(ctx, svc); err != nil {
		return fmt.Errorf("create Service external: %w", err)
	}
	user := &api.Endpoints{
		ObjectMeta: api.ObjectMeta{Name: "external", Labels: map[string]string{"owner": "user"}},
		Subsets: []api.EndpointSubset{{
			Addresses: []api.EndpointAddress{{IP: "192.0.2.10"}, {IP: "192.0.2.11"}},
			Ports:     []api.EndpointPort{{Name: "http", Port: 8080, Protocol: "TCP"}},
		}},
	}
	eps := rest.NewResources(env.Client, rest.Endpoints, decode.Typed[api.Endpoints]()).InNamespace(env.Namespace)
	if _, err := eps.Create(ctx, user); err != nil {
		return fmt.Errorf("create the user's Endpoints external: %w", err)
	}
	return nil
}
