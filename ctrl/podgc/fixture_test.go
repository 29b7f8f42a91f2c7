package podgc

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/rs/zerolog"

	"github.com/kcmlab/kcm/clock"
	"github.com/kcmlab/kcm/informer"
	"github.com/kcmlab/kcm/internal/testing/resttest"
	"github.com/kcmlab/kcm/kube/api"
	"github.com/kcmlab/kcm/kube/rest"
)

// t0 is the fake clock's start; pods are created relative to it.
var t0 = time.Date(2026, 12, 6, 12, 0, 0, 0, time.UTC)

// fixture is a controller on the recording fake apiserver with a fake
// clock and its own metrics registry. The server holds the objects; each
// pass reloads the listers from it (an informer that caught up), so that
// several passes see the deletions of the earlier ones, and the
// quarantine record lives on in the controller between them.
type fixture struct {
	t     *testing.T
	clock *clock.Fake
	api   *resttest.Server
	reg   *prometheus.Registry
	c     *Controller
	// cachedNodes, when not nil, is what the node cache holds instead of
	// the server's nodes (a cache that lags the apiserver).
	cachedNodes []*api.Node
}

func newFixture(t *testing.T, cfg Config, pods []*api.Pod, nodes []*api.Node) *fixture {
	t.Helper()
	f := &fixture{t: t, clock: clock.NewFake(t0), reg: prometheus.NewRegistry()}
	f.api = resttest.New(t, resttest.Options{Clock: f.clock})
	resttest.Add(f.api, rest.Pods, pods...)
	resttest.Add(f.api, rest.Nodes, nodes...)
	m, err := NewMetrics(f.reg)
	if err != nil {
		t.Fatal(err)
	}
	cfg.Clock, cfg.Metrics, cfg.Logger = f.clock, m, zerolog.Nop()
	f.c = NewController(informer.PodLister{Lister: resttest.Lister[*api.Pod]("pods")},
		informer.NodeLister{Lister: resttest.Lister[*api.Node]("nodes")}, f.api.Client(), cfg)
	return f
}

// pass loads the listers from the server, runs one pass and returns the
// requests it made.
func (f *fixture) pass() []string {
	f.t.Helper()
	return f.passCtx(context.Background())
}

// passCtx is pass under ctx.
func (f *fixture) passCtx(ctx context.Context) []string {
	f.t.Helper()
	f.c.pods = informer.PodLister{Lister: resttest.ListerFrom[*api.Pod](f.api, rest.Pods)}
	f.c.nodes = informer.NodeLister{Lister: resttest.ListerFrom[*api.Node](f.api, rest.Nodes)}
	if f.cachedNodes != nil {
		f.c.nodes = informer.NodeLister{Lister: resttest.Lister("nodes", f.cachedNodes...)}
	}
	f.api.Take()
	f.c.Pass(ctx)
	return resttest.Lines(f.api.Take())
}

// remaining names the pods the server still holds, by namespace/name.
func (f *fixture) remaining() []string {
	var names []string
	for _, p := range resttest.List[*api.Pod](f.api, rest.Pods, "") {
		names = append(names, p.Namespace+"/"+p.Name)
	}
	return names
}

// pod builds a pod of namespace ns created age before t0, changed by opts.
func pod(name string, age time.Duration, opts ...func(*api.Pod)) *api.Pod {
	p := &api.Pod{ObjectMeta: api.ObjectMeta{Namespace: "ns", Name: name, UID: "uid-" + name, Generation: 1,
		CreationTimestamp: api.NewTime(t0.Add(-age))},
		Spec:   api.PodSpec{Containers: []api.Container{{Name: "c", Image: "i"}}},
		Status: api.PodStatus{Phase: api.PodRunning, ObservedGeneration: 1}}
	for _, o := range opts {
		o(p)
	}
	return p
}

func phase(ph api.PodPhase) func(*api.Pod) { return func(p *api.Pod) { p.Status.Phase = ph } }

func evicted(p *api.Pod) { p.Status.Phase, p.Status.Reason = api.PodFailed, "Evicted" }

func onNode(n string) func(*api.Pod) { return func(p *api.Pod) { p.Spec.NodeName = n } }

func inNamespace(ns string) func(*api.Pod) { return func(p *api.Pod) { p.Namespace = ns } }

// terminating gives the pod a deletionTimestamp and grace period: it is
// being deleted, gracefully.
func terminating(p *api.Pod) {
	ts, grace := api.NewTime(t0.Add(30*time.Second)), int64(30)
	p.DeletionTimestamp, p.DeletionGracePeriodSeconds = &ts, &grace
}

// node builds a node whose Ready condition is ready ("" for none), with
// taints of the given keys (effect NoExecute).
func node(name string, ready api.ConditionStatus, taintKeys ...string) *api.Node {
	n := &api.Node{ObjectMeta: api.ObjectMeta{Name: name, UID: "uid-" + name}}
	if ready != "" {
		n.Status.Conditions = []api.NodeCondition{{Type: "Ready", Status: ready}}
	}
	for _, k := range taintKeys {
		n.Spec.Taints = append(n.Spec.Taints, api.Taint{Key: k, Effect: api.TaintEffectNoExecute})
	}
	return n
}

const (
	outOfService = api.TaintNodeOutOfService
	// failedPatch is the status patch of a pod that is not yet Succeeded or
	// Failed, without a condition (ns/<name> and its uid are filled in).
	failedPatch = `{"metadata":{"uid":"uid-%s"},"status":{"phase":"Failed"}}`
)

func deleteLine(name string) string { return "delete pods ns/" + name + " grace=0" }

func patchLine(name string) string {
	return "patch pods/status ns/" + name + " strategic " + fmt.Sprintf(failedPatch, name)
}
