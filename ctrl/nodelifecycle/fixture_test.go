package nodelifecycle

import (
	"context"
	"fmt"
	"slices"
	"testing"
	"time"

	"github.com/rs/zerolog"

	"github.com/kcmlab/kcm/clock"
	"github.com/kcmlab/kcm/informer"
	"github.com/kcmlab/kcm/internal/testing/resttest"
	"github.com/kcmlab/kcm/kube/api"
	"github.com/kcmlab/kcm/kube/rest"
)

// fixture runs the controller's passes on the recording fake apiserver
// with a fake clock. Before each pass the listers are reloaded from the
// server: the informers caught up with every write.
type fixture struct {
	t      *testing.T
	clock  *clock.Fake
	api    *resttest.Server
	events *resttest.Events
	c      *Controller
}

// testConfig: --node-monitor-grace-period 40s, startup 60s, the default
// rates and thresholds.
func testConfig() Config {
	cfg := DefaultConfig()
	cfg.MonitorGracePeriod = 40 * time.Second
	return cfg
}

func newFixture(t *testing.T, cfg Config) *fixture {
	f := &fixture{t: t, clock: clock.NewFake(t0), events: &resttest.Events{}}
	f.api = resttest.New(t, resttest.Options{Clock: f.clock})
	cfg.Clock, cfg.Logger, cfg.Recorder = f.clock, zerolog.Nop(), f.events
	f.c = NewController(informer.NodeLister{Lister: resttest.Lister[*api.Node]("nodes")},
		informer.LeaseLister{Lister: resttest.Lister[*api.Lease]("leases")},
		informer.PodLister{Lister: resttest.Lister[*api.Pod]("pods")}, f.api.Client(), cfg)
	return f
}

// kubeletNode is a node as a kubelet posts it: Ready True with its
// heartbeat now, in zone (region "r"), its Lease renewed now.
func (f *fixture) kubeletNode(name, zone string) {
	now := f.clock.Now().Sub(t0)
	resttest.Add(f.api, rest.Nodes, testNode(name, zone, readyCond(api.ConditionTrue, now, 0)))
	f.renew(name)
}

// renew renews the node's Lease now (the kubelet's heartbeat).
func (f *fixture) renew(names ...string) {
	for _, name := range names {
		l := testLease(name, f.clock.Now().Sub(t0))
		l.ResourceVersion = ""
		resttest.Add(f.api, rest.Leases, l)
	}
}

// postReady is the kubelet posting its Ready condition now with status.
func (f *fixture) postReady(name string, status api.ConditionStatus) {
	n := f.node(name)
	now := f.clock.Now().Sub(t0)
	c := getCondition(&n.Status, ConditionReady)
	transition := c.LastTransitionTime
	if c.Status != status {
		transition = at(now)
	}
	*c = api.NodeCondition{Type: ConditionReady, Status: status, LastHeartbeatTime: at(now), LastTransitionTime: transition}
	n.ResourceVersion = ""
	resttest.Add(f.api, rest.Nodes, n)
}

// pod adds a pod bound to node with Ready True.
func (f *fixture) pod(name, node string) {
	p := &api.Pod{ObjectMeta: api.ObjectMeta{Namespace: "ns", Name: name, UID: "uid-" + name}}
	p.Spec.NodeName = node
	p.Status.Conditions = []api.PodCondition{{Type: api.PodReady, Status: api.ConditionTrue}}
	resttest.Add(f.api, rest.Pods, p)
}

func (f *fixture) refresh() {
	f.c.nodeLister = informer.NodeLister{Lister: resttest.ListerFrom[*api.Node](f.api, rest.Nodes)}
	f.c.leaseLister = informer.LeaseLister{Lister: resttest.ListerFrom[*api.Lease](f.api, rest.Leases)}
	f.c.podLister = informer.PodLister{Lister: resttest.ListerFrom[*api.Pod](f.api, rest.Pods)}
}

// monitor runs one monitor pass after step.
func (f *fixture) monitor(step time.Duration) {
	f.t.Helper()
	f.clock.Step(step)
	f.refresh()
	if err := f.c.monitorNodeHealth(context.Background()); err != nil {
		f.t.Fatal(err)
	}
}

// taint runs one NoExecute tainting pass after step.
func (f *fixture) taint(step time.Duration) {
	f.clock.Step(step)
	f.refresh()
	f.c.noExecuteTaintingPass(context.Background())
}

// noSchedule runs the node loop's sync for each node.
func (f *fixture) noSchedule(names ...string) {
	f.t.Helper()
	f.refresh()
	for _, n := range names {
		if _, err := f.c.noScheduleSync(context.Background(), n); err != nil {
			f.t.Fatalf("noScheduleSync(%s): %v", n, err)
		}
	}
}

func (f *fixture) node(name string) *api.Node {
	f.t.Helper()
	n, ok := resttest.Get[*api.Node](f.api, rest.Nodes, "", name)
	if !ok {
		f.t.Fatalf("node %s not on the server", name)
	}
	return n
}

// taints returns the node's taints as "key:effect".
func (f *fixture) taints(name string) []string {
	var out []string
	for _, t := range f.node(name).Spec.Taints {
		out = append(out, t.Key+":"+t.Effect)
	}
	slices.Sort(out)
	return out
}

// ready is the node's Ready status on the server.
func (f *fixture) ready(name string) api.ConditionStatus {
	if c := getCondition(&f.node(name).Status, ConditionReady); c != nil {
		return c.Status
	}
	return ""
}

// podReady is the pod's Ready status on the server.
func (f *fixture) podReady(name string) api.ConditionStatus {
	p, ok := resttest.Get[*api.Pod](f.api, rest.Pods, "ns", name)
	if !ok {
		f.t.Fatalf("pod %s not on the server", name)
	}
	for _, c := range p.Status.Conditions {
		if c.Type == api.PodReady {
			return c.Status
		}
	}
	return ""
}

// tainted lists the nodes carrying a NoExecute taint of the controller.
func (f *fixture) tainted(names ...string) []string {
	var out []string
	for _, n := range names {
		for _, t := range f.node(n).Spec.Taints {
			if t.Effect == api.TaintEffectNoExecute {
				out = append(out, fmt.Sprintf("%s=%s", n, t.Key))
			}
		}
	}
	return out
}

func (f *fixture) zoneState(zone string) ZoneState {
	f.c.evictorMu.Lock()
	defer f.c.evictorMu.Unlock()
	return f.c.zoneStates["r:\x00:"+zone]
}
