package managerbench

import (
	"context"
	"fmt"
	"strings"
	"time"

	"golang.org/x/sync/errgroup"

	"github.com/kcmlab/kcm/kube/api"
	"github.com/kcmlab/kcm/kube/api/decode"
	"github.com/kcmlab/kcm/kube/rest"
	"github.com/kcmlab/kcm/testenv"
)

// EndpointControllers are the controllers of the endpoints benchmark,
// with kube-controller-manager v1.37's names (all three on by default
// there). kcm runs those of them it has (KnownControllers).
var EndpointControllers = []string{EndpointsController, EndpointSliceController, "endpointslice-mirroring-controller"}

// The controllers whose writes the endpoints benchmark times.
const (
	EndpointsController     = "endpoints-controller"
	EndpointSliceController = "endpointslice-controller"
)

// ESWorkload is the endpoints benchmark's workload: Services Services
// (svc-NNNN, 100 per namespace es-NN), each selecting PodsPerService
// pods placed round-robin on kwok nodes in three zones.
type ESWorkload struct {
	Services, PodsPerService int
	// Rate paces the creation: Services per second; 0 creates them as fast
	// as writers concurrent requests go.
	Rate float64
}

// Per-namespace and per-node sizes of the workload.
const (
	esServicesPerNamespace = 100
	// esPodsPerNode stays below what a kwok node's pod range holds (a /24:
	// 254 addresses), with room for the rolling update's extra pods.
	esPodsPerNode = 200
	esMinNodes    = 3
	// esServiceCIDR replaces testenv's /24, which holds 254 ClusterIPs.
	esServiceCIDR = "10.96.0.0/16"
)

// esPrefix starts the benchmark's namespaces' names (the probe's too).
const esPrefix = "es-"

// esProbeNamespace holds the probe Service and its one pod.
const esProbeNamespace = esPrefix + "probe"

// Pods is the number of pods of the workload.
func (w ESWorkload) Pods() int { return w.Services * w.PodsPerService }

// Namespaces is the number of namespaces the Services are spread over.
func (w ESWorkload) Namespaces() int { return ceilDiv(w.Services, esServicesPerNamespace) }

// Nodes is the number of kwok nodes the pods are spread over: at most
// esPodsPerNode each, at least esMinNodes (one per zone), at most what a
// testenv cluster holds.
func (w ESWorkload) Nodes() int { return min(max(ceilDiv(w.Pods(), esPodsPerNode), esMinNodes), 255) }

func ceilDiv(a, b int) int { return (a + b - 1) / b }

// esService is the key (namespace/name) of the i-th Service.
func esServiceKey(i int) (ns, name string) {
	return fmt.Sprintf("%s%02d", esPrefix, i/esServicesPerNamespace), fmt.Sprintf("svc-%04d", i)
}

// esNodes are the kwok nodes of the workload, in zones zone-a, zone-b and
// zone-c in turn.
func esNodes(n int) []testenv.NodeSpec {
	nodes := make([]testenv.NodeSpec, n)
	for i := range nodes {
		nodes[i] = testenv.NodeSpec{Name: fmt.Sprintf("kwok-%03d", i), Zone: "zone-" + string(rune('a'+i%3)), Pods: "250"}
	}
	return nodes
}

// esServiceObject is a ClusterIP Service selecting app=name, its port 80
// forwarded to the pods' port named http.
func esServiceObject(ns, name string) *api.Service {
	return &api.Service{
		ObjectMeta: api.ObjectMeta{Name: name, Namespace: ns},
		Spec: api.ServiceSpec{
			Selector: map[string]string{labelApp: name},
			Ports:    []api.ServicePort{{Name: "http", Protocol: "TCP", Port: 80, TargetPort: api.IntOrStringFromString("http")}},
		},
	}
}

// esPod is a pod of the Service svc bound to node (no scheduler runs:
// the harness places the pods, kwok runs them), with the same spec as the
// other benchmarks' pods.
func esPod(ns, svc, name, node string) *api.Pod {
	tmpl := newDeployment(ns, svc, 1).Spec.Template
	p := &api.Pod{ObjectMeta: api.ObjectMeta{Name: name, Namespace: ns, Labels: tmpl.Labels, Annotations: tmpl.Annotations},
		Spec: tmpl.Spec}
	p.Spec.NodeName = node
	return p
}

// esClients are the typed clients the endpoints benchmark adds to
// cluster's.
type esClients struct {
	services *rest.Resources[*api.Service]
}

func newESClients(c *cluster) esClients {
	return esClients{services: rest.NewResources(c.client, rest.Services, decode.Typed[api.Service]())}
}

// createESWorkload creates the namespaces' Services and their pods,
// writers at a time: each Service, then its pods, the i-th pod of all on
// node i mod len(nodes).
//
// With w.Rate > 0 the Services start at that many per second (Service i
// at began + i/Rate), so that the pods arrive at a steady pace instead of
// as fast as the apiserver takes them.
func createESWorkload(ctx context.Context, c *cluster, es esClients, w ESWorkload, nodes []string) error {
	g, gctx := errgroup.WithContext(ctx)
	g.SetLimit(writers)
	began := time.Now()
	for i := range w.Services {
		if w.Rate > 0 {
			if err := sleepUntil(gctx, began.Add(paceOffset(i, w.Rate))); err != nil {
				_ = g.Wait()
				return err
			}
		}
		g.Go(func() error {
			ns, name := esServiceKey(i)
			if _, err := es.services.InNamespace(ns).Create(gctx, esServiceObject(ns, name)); err != nil {
				return fmt.Errorf("managerbench: create Service %s/%s: %w", ns, name, err)
			}
			for j := range w.PodsPerService {
				node := nodes[(i*w.PodsPerService+j)%len(nodes)]
				p := esPod(ns, name, fmt.Sprintf("%s-%d", name, j), node)
				if _, err := c.pods.InNamespace(ns).Create(gctx, p); err != nil {
					return fmt.Errorf("managerbench: create pod %s/%s: %w", ns, p.Name, err)
				}
			}
			return nil
		})
	}
	return g.Wait()
}

// paceOffset is when the i-th Service starts, counted from the first, at
// rate Services per second.
func paceOffset(i int, rate float64) time.Duration {
	return time.Duration(float64(i) / rate * float64(time.Second))
}

// sleepUntil waits until t or the end of ctx. Pacing the workload is
// part of the scenario, not a wait for a condition.
func sleepUntil(ctx context.Context, t time.Time) error {
	d := time.Until(t)
	if d <= 0 {
		return ctx.Err()
	}
	tm := time.NewTimer(d)
	defer tm.Stop()
	select {
	case <-ctx.Done():
		return fmt.Errorf("managerbench: pacing the workload: %w", ctx.Err())
	case <-tm.C:
		return nil
	}
}

// rollout replaces the pods of Service i one at a time, as a Deployment
// with maxSurge 1 and maxUnavailable 0 does: a new pod, on another node;
// once kwok has made it Ready, the deletion of an old one (with the
// default grace period: it is terminating until kwok deletes it); once it
// is gone, the next.
func rollout(ctx context.Context, c *cluster, tr *esTracker, w ESWorkload, i int, nodes []string) error {
	ns, name := esServiceKey(i)
	for j := range w.PodsPerService {
		node := nodes[(i*w.PodsPerService+j+1)%len(nodes)]
		p := esPod(ns, name, fmt.Sprintf("%s-v2-%d", name, j), node)
		if _, err := c.pods.InNamespace(ns).Create(ctx, p); err != nil {
			return fmt.Errorf("managerbench: rollout: create pod %s/%s: %w", ns, p.Name, err)
		}
		if err := tr.Wait(ctx, "pod "+p.Name+" Ready", func(v ESView) bool { return v.PodReady(ns + "/" + p.Name) }); err != nil {
			return err
		}
		old := fmt.Sprintf("%s-%d", name, j)
		if err := c.pods.InNamespace(ns).Delete(ctx, old, rest.DeleteOptions{}); err != nil {
			return fmt.Errorf("managerbench: rollout: delete pod %s/%s: %w", ns, old, err)
		}
		if err := tr.Wait(ctx, "pod "+old+" gone", func(v ESView) bool { return v.PodGone(ns + "/" + old) }); err != nil {
			return err
		}
	}
	return nil
}

// esConverged reports whether every Service of keys has, in its Endpoints
// and (with slices) in its EndpointSlices, exactly want endpoints, all
// ready.
func esConverged(v ESView, keys []string, want int, slices bool) bool {
	for _, k := range keys {
		if v.Endpoints(k) != (EndpointCounts{Ready: want}) {
			return false
		}
		if c, _ := v.Slices(k); slices && c != (EndpointCounts{Ready: want}) {
			return false
		}
	}
	return true
}

// esProgress says how many Services of keys have their Endpoints and
// (with slices) their slices complete, for a wait that timed out.
func esProgress(v ESView, keys []string, want int, slices bool) string {
	ep, sl := 0, 0
	for _, k := range keys {
		if v.Endpoints(k) == (EndpointCounts{Ready: want}) {
			ep++
		}
		if c, _ := v.Slices(k); c == (EndpointCounts{Ready: want}) {
			sl++
		}
	}
	if !slices {
		return fmt.Sprintf("%d of %d Services' Endpoints complete", ep, len(keys))
	}
	return fmt.Sprintf("%d of %d Services' Endpoints and %d of their slices complete", ep, len(keys), sl)
}

// esServiceKeys lists the workload's Services as namespace/name.
func esServiceKeys(w ESWorkload) []string {
	keys := make([]string, w.Services)
	for i := range keys {
		ns, name := esServiceKey(i)
		keys[i] = ns + "/" + name
	}
	return keys
}

// KnownControllers reads the controllers a kcm binary has from its --help
// text: the names after "All controllers:", up to "Disabled-by-default".
func KnownControllers(help string) []string {
	_, rest, ok := strings.Cut(help, "All controllers:")
	if !ok {
		return nil
	}
	rest, _, _ = strings.Cut(rest, "Disabled-by-default")
	return strings.FieldsFunc(rest, func(r rune) bool { return r == ',' || r == ' ' || r == '\n' || r == '\t' })
}

// intersect is the names of want that have lists, in want's order.
func intersect(want, has []string) []string {
	var out []string
	for _, n := range want {
		if contains(has, n) {
			out = append(out, n)
		}
	}
	return out
}

// populateNodesAndNamespaces is the set-up the endpoints and StatefulSet
// scenarios share: n kwok nodes (esNodes), count namespaces
// <prefix>00, <prefix>01, … and the probe namespace. It returns the
// nodes' names and the resourceVersion the scenario's watches start at.
func (b *bench) populateNodesAndNamespaces(ctx context.Context, n int, prefix string, count int, probe string) (nodes []string, rv string, err error) {
	specs := esNodes(n)
	if err := b.tc.AddNodes(ctx, specs...); err != nil {
		return nil, "", err
	}
	nodes = make([]string, len(specs))
	for i, s := range specs {
		nodes[i] = s.Name
	}
	for i := range count {
		if err := b.c.createNamespace(ctx, fmt.Sprintf("%s%02d", prefix, i)); err != nil {
			return nil, "", err
		}
	}
	if err := b.c.createNamespace(ctx, probe); err != nil {
		return nil, "", err
	}
	rv, err = b.c.currentRV(ctx)
	return nodes, rv, err
}
