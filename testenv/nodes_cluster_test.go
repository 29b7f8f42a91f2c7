//go:build !nocluster

package testenv

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"testing"
	"time"

	"github.com/rs/zerolog"
)

// nodeTimeout bounds the node tests: a first build of kwok or
// kube-scheduler may happen inside them.
const nodeTimeout = buildTimeout

func nodeContext(t *testing.T) context.Context {
	ctx, cancel := context.WithTimeout(t.Context(), nodeTimeout)
	t.Cleanup(cancel)
	return ctx
}

// uniqueNames returns n node names unique to this test on a shared cluster.
func uniqueNames(t *testing.T, n int) []string {
	suffix, err := randomName(5)
	if err != nil {
		t.Fatal(err)
	}
	names := make([]string, n)
	for i := range names {
		names[i] = fmt.Sprintf("node-%s-%d", suffix, i)
	}
	return names
}

// nodeObj is what the node tests read of a Node.
type nodeObj struct {
	Metadata struct {
		Labels      map[string]string `json:"labels"`
		Annotations map[string]string `json:"annotations"`
	} `json:"metadata"`
	Spec struct {
		PodCIDR string `json:"podCIDR"`
	} `json:"spec"`
	Status struct {
		Capacity    map[string]string `json:"capacity"`
		Allocatable map[string]string `json:"allocatable"`
		Conditions  []struct {
			Type, Status, LastHeartbeatTime string
		} `json:"conditions"`
		Addresses []struct{ Type, Address string } `json:"addresses"`
	} `json:"status"`
}

func (n *nodeObj) condition(typ string) string {
	for _, c := range n.Status.Conditions {
		if c.Type == typ {
			return c.Status
		}
	}
	return ""
}

func (n *nodeObj) internalIP() string {
	for _, a := range n.Status.Addresses {
		if a.Type == "InternalIP" {
			return a.Address
		}
	}
	return ""
}

// TestAddNodesAreReadyWithZoneAndCapacity: AddNodes returns with each node
// Ready, carrying its zone, region, labels and capacity, and holding a
// Lease that kwok renews.
func TestAddNodesAreReadyWithZoneAndCapacity(t *testing.T) {
	c := Shared(t)
	ctx := nodeContext(t)
	names := uniqueNames(t, 2)
	began := time.Now()
	err := c.AddNodes(ctx,
		NodeSpec{Name: names[0], Zone: "zone-a", CPU: "8", Memory: "16Gi", Pods: "20", Labels: map[string]string{"pool": "a"}},
		NodeSpec{Name: names[1], Zone: "zone-b", Region: "region-2"},
	)
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("2 nodes Ready in %v (kwok built or cached, started)", time.Since(began))
	for i, want := range []struct {
		zone, region, cpu, memory, pods string
		extra                           map[string]string
	}{
		{"zone-a", DefaultRegion, "8", "16Gi", "20", map[string]string{"pool": "a"}},
		{"zone-b", "region-2", DefaultNodeCPU, DefaultNodeMemory, DefaultNodePods, nil},
	} {
		var n nodeObj
		if err := c.client.do(ctx, http.MethodGet, nodePath(names[i]), nil, &n); err != nil {
			t.Fatal(err)
		}
		if got := n.condition("Ready"); got != "True" {
			t.Errorf("%s: Ready = %q, want True", names[i], got)
		}
		l := n.Metadata.Labels
		if l[LabelZone] != want.zone || l[LabelRegion] != want.region || l[LabelHostname] != names[i] {
			t.Errorf("%s: labels %v, want zone %s region %s", names[i], l, want.zone, want.region)
		}
		for k, v := range want.extra {
			if l[k] != v {
				t.Errorf("%s: label %s = %q, want %q", names[i], k, l[k], v)
			}
		}
		for _, res := range []map[string]string{n.Status.Capacity, n.Status.Allocatable} {
			if res["cpu"] != want.cpu || res["memory"] != want.memory || res["pods"] != want.pods {
				t.Errorf("%s: capacity/allocatable %v, want cpu %s memory %s pods %s", names[i], res, want.cpu, want.memory, want.pods)
			}
		}
		lease, err := c.getLease(ctx, names[i])
		if err != nil {
			t.Fatalf("%s: lease: %v", names[i], err)
		}
		if lease.renewTime() == "" || lease.Spec.HolderIdentity == nil || *lease.Spec.HolderIdentity == "" {
			t.Errorf("%s: lease %+v is not held and renewed", names[i], lease.Spec)
		}
	}
	var se *StatusError
	if err := c.AddNodes(ctx, NodeSpec{Name: names[0]}); !errors.As(err, &se) || se.Code != http.StatusConflict {
		t.Errorf("adding %s again: %v, want HTTP 409", names[0], err)
	}
}

// podObj is what the pod tests read of a Pod.
type podObj struct {
	Metadata struct {
		DeletionTimestamp string `json:"deletionTimestamp"`
	} `json:"metadata"`
	Spec struct {
		NodeName string `json:"nodeName"`
	} `json:"spec"`
	Status struct {
		Phase      string                          `json:"phase"`
		PodIP      string                          `json:"podIP"`
		HostIP     string                          `json:"hostIP"`
		Conditions []struct{ Type, Status string } `json:"conditions"`
	} `json:"status"`
}

func (p *podObj) condition(typ string) string {
	for _, c := range p.Status.Conditions {
		if c.Type == typ {
			return c.Status
		}
	}
	return ""
}

// podManifest is a pod pinned (by nodeSelector) to the test's nodes.
func podManifest(name, pool string, owner map[string]any) map[string]any {
	meta := map[string]any{"name": name}
	if owner != nil {
		meta["ownerReferences"] = []any{owner}
	}
	return map[string]any{
		"apiVersion": "v1", "kind": "Pod", "metadata": meta,
		"spec": map[string]any{
			"nodeSelector":  map[string]string{"pool": pool},
			"restartPolicy": "Never",
			"containers":    []any{map[string]any{"name": "c", "image": "registry.k8s.io/pause:3.10"}},
		},
	}
}

// waitPod polls the pod until ok accepts it.
func waitPod(t *testing.T, ctx context.Context, c *Cluster, path string, ok func(*podObj, error) error) {
	t.Helper()
	if err := c.poll(ctx, func(ctx context.Context) error {
		var p podObj
		err := c.client.do(ctx, http.MethodGet, path, nil, &p)
		return ok(&p, err)
	}); err != nil {
		t.Fatalf("%s: %v", path, err)
	}
}

// TestPodsAreScheduledAndRunOnNodes: with kube-scheduler and kwok, a pod
// is bound to one of the nodes, gets an IP from that node's podCIDR and
// its hostIP, becomes Running and Ready; a Job's pod completes; a deleted
// pod goes away.
func TestPodsAreScheduledAndRunOnNodes(t *testing.T) {
	c := Shared(t)
	ctx := nodeContext(t)
	pool, err := randomName(6)
	if err != nil {
		t.Fatal(err)
	}
	names := uniqueNames(t, 2)
	specs := []NodeSpec{
		{Name: names[0], Zone: "zone-a", Labels: map[string]string{"pool": pool}},
		{Name: names[1], Zone: "zone-b", Labels: map[string]string{"pool": pool}},
	}
	if err := c.AddNodes(ctx, specs...); err != nil {
		t.Fatal(err)
	}
	began := time.Now()
	if err := c.StartScheduler(ctx); err != nil {
		t.Fatal(err)
	}
	t.Logf("kube-scheduler ready in %v (built or cached, started)", time.Since(began))
	if err := c.StartScheduler(ctx); err != nil { // idempotent
		t.Fatal(err)
	}
	ns := c.Namespace(t)
	podsPath := "/api/v1/namespaces/" + ns + "/pods"

	nodes := map[string]*nodeObj{}
	for _, n := range names {
		var obj nodeObj
		if err := c.client.do(ctx, http.MethodGet, nodePath(n), nil, &obj); err != nil {
			t.Fatal(err)
		}
		nodes[n] = &obj
	}
	for i := range 3 {
		name := fmt.Sprintf("web-%d", i)
		if err := c.client.do(ctx, http.MethodPost, podsPath, podManifest(name, pool, nil), nil); err != nil {
			t.Fatal(err)
		}
		var running podObj
		waitPod(t, ctx, c, podsPath+"/"+name, func(p *podObj, err error) error {
			if err != nil {
				return err
			}
			if p.Spec.NodeName == "" || p.Status.Phase != "Running" || p.condition("Ready") != "True" || p.Status.PodIP == "" {
				return fmt.Errorf("node %q phase %q Ready %q IP %q", p.Spec.NodeName, p.Status.Phase, p.condition("Ready"), p.Status.PodIP)
			}
			running = *p
			return nil
		})
		node, ok := nodes[running.Spec.NodeName]
		if !ok {
			t.Fatalf("%s scheduled to %s, not to one of %v", name, running.Spec.NodeName, names)
		}
		_, cidr, err := net.ParseCIDR(node.Spec.PodCIDR)
		if err != nil {
			t.Fatal(err)
		}
		if ip := net.ParseIP(running.Status.PodIP); ip == nil || !cidr.Contains(ip) {
			t.Errorf("%s: pod IP %s is not in its node's podCIDR %s", name, running.Status.PodIP, node.Spec.PodCIDR)
		}
		if running.Status.HostIP != node.internalIP() {
			t.Errorf("%s: hostIP %s, want its node's InternalIP %s", name, running.Status.HostIP, node.internalIP())
		}
		for _, cond := range []string{"ContainersReady", "Initialized"} {
			if running.condition(cond) != "True" {
				t.Errorf("%s: %s = %q", name, cond, running.condition(cond))
			}
		}
	}

	// A pod owned by a Job runs to completion (kwok's pod-complete stage
	// looks only at the owner's kind; no Job needs to exist).
	job := map[string]any{"apiVersion": "batch/v1", "kind": "Job", "name": "j", "uid": "00000000-0000-0000-0000-000000000001", "controller": true}
	if err := c.client.do(ctx, http.MethodPost, podsPath, podManifest("job-pod", pool, job), nil); err != nil {
		t.Fatal(err)
	}
	waitPod(t, ctx, c, podsPath+"/job-pod", func(p *podObj, err error) error {
		if err != nil {
			return err
		}
		if p.Status.Phase != "Succeeded" {
			return fmt.Errorf("phase %q", p.Status.Phase)
		}
		return nil
	})

	// A deleted pod (default grace period) is removed by its "kubelet".
	if err := c.client.do(ctx, http.MethodDelete, podsPath+"/web-0", nil, nil); err != nil {
		t.Fatal(err)
	}
	waitPod(t, ctx, c, podsPath+"/web-0", func(p *podObj, err error) error {
		var se *StatusError
		if errors.As(err, &se) && se.Code == http.StatusNotFound {
			return nil
		}
		if err != nil {
			return err
		}
		return fmt.Errorf("still there (deletionTimestamp %q)", p.Metadata.DeletionTimestamp)
	})
}

// leaseWatch follows node Leases by polling: renewals counts the distinct
// renewTimes seen per node.
type leaseWatch struct {
	c        *Cluster
	last     map[string]string
	renewals map[string]int
}

func newLeaseWatch(c *Cluster) *leaseWatch {
	return &leaseWatch{c: c, last: map[string]string{}, renewals: map[string]int{}}
}

// until polls the nodes' Leases until done says the counts suffice.
func (w *leaseWatch) until(t *testing.T, ctx context.Context, nodes []string, done func() error) {
	t.Helper()
	err := w.c.poll(ctx, func(ctx context.Context) error {
		for _, n := range nodes {
			l, err := w.c.getLease(ctx, n)
			if err != nil {
				return err
			}
			if rt := l.renewTime(); rt != w.last[n] {
				if w.last[n] != "" {
					w.renewals[n]++
				}
				w.last[n] = rt
			}
		}
		return done()
	})
	if err != nil {
		t.Fatal(err)
	}
}

// setReady writes the node's Ready condition, as a node lifecycle
// controller does when the heartbeat is overdue.
func setReady(t *testing.T, ctx context.Context, c *Cluster, node, status string) {
	t.Helper()
	for {
		var n map[string]any
		if err := c.client.do(ctx, http.MethodGet, nodePath(node), nil, &n); err != nil {
			t.Fatal(err)
		}
		st := n["status"].(map[string]any)
		for _, cond := range st["conditions"].([]any) {
			if m := cond.(map[string]any); m["type"] == "Ready" {
				m["status"], m["reason"] = status, "NodeStatusUnknown"
			}
		}
		err := c.client.do(ctx, http.MethodPut, nodePath(node)+"/status", n, nil)
		var se *StatusError
		if errors.As(err, &se) && se.Code == http.StatusConflict {
			continue
		}
		if err != nil {
			t.Fatal(err)
		}
		return
	}
}

func (c *Cluster) nodeReady(ctx context.Context, node string) (string, error) {
	n, err := c.getNode(ctx, node)
	if err != nil {
		return "", err
	}
	return n.ready(), nil
}

// TestPauseAndResumeHeartbeat runs its own cluster, started with Options
// asking for nodes, with 4 s node leases (kwok renews every second). The
// node "steady" is the clock: while it is renewed three times, the paused
// node's Lease keeps its renewTime and holder, and a Ready=Unknown written
// on it (as the node lifecycle controller would) stays, whereas on steady
// kwok sets Ready back to True at once. After ResumeHeartbeat the paused
// node's Lease is renewed again, repeatedly, and it is Ready. Stop ends
// kwok and kube-scheduler.
//
// The node "fenced" checks PauseHeartbeat's second step on its own: kwok
// still manages it, but leaves its Lease alone once it names another
// holder.
func TestPauseAndResumeHeartbeat(t *testing.T) {
	ctx := nodeContext(t)
	began := time.Now()
	c, err := Start(ctx, Options{
		Logger:                   zerolog.New(zerolog.NewTestWriter(t)),
		NodeLeaseDurationSeconds: 4,
		Nodes:                    []NodeSpec{{Name: "steady", Zone: "zone-a"}, {Name: "paused", Zone: "zone-b"}, {Name: "fenced"}},
	})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(c.Stop)
	t.Logf("cluster with kube-scheduler, kwok and 2 nodes ready in %v", time.Since(began))
	all := []string{"steady", "paused", "fenced"}

	if err := c.PauseHeartbeat(ctx, "paused"); err != nil {
		t.Fatal(err)
	}
	if err := c.PauseHeartbeat(ctx, "paused"); err != nil { // idempotent
		t.Fatal(err)
	}
	frozen, err := c.getLease(ctx, "paused")
	if err != nil {
		t.Fatal(err)
	}
	if err := c.fenceLease(ctx, "fenced"); err != nil {
		t.Fatal(err)
	}
	fenced, err := c.getLease(ctx, "fenced")
	if err != nil {
		t.Fatal(err)
	}
	setReady(t, ctx, c, "paused", "Unknown")
	setReady(t, ctx, c, "steady", "Unknown")

	w := newLeaseWatch(c)
	w.until(t, ctx, all, func() error {
		if w.renewals["steady"] < 3 {
			return fmt.Errorf("steady renewed %d times", w.renewals["steady"])
		}
		if r, err := c.nodeReady(ctx, "steady"); err != nil || r != "True" {
			return fmt.Errorf("steady: Ready %q, %v", r, err)
		}
		return nil
	})
	if w.renewals["paused"] != 0 || w.last["paused"] != frozen.renewTime() {
		t.Errorf("paused node's Lease renewed %d times (renewTime %s, frozen at %s) while steady's was renewed %d times",
			w.renewals["paused"], w.last["paused"], frozen.renewTime(), w.renewals["steady"])
	}
	if w.renewals["fenced"] != 0 || w.last["fenced"] != fenced.renewTime() {
		t.Errorf("fenced Lease renewed %d times (renewTime %s, frozen at %s)", w.renewals["fenced"], w.last["fenced"], fenced.renewTime())
	}
	if r, err := c.nodeReady(ctx, "paused"); err != nil || r != "Unknown" {
		t.Errorf("paused node: Ready = %q, %v; want the Unknown written during the pause to stay", r, err)
	}
	if l, err := c.getLease(ctx, "paused"); err != nil || l.Spec.HolderIdentity == nil || *l.Spec.HolderIdentity != pausedHolder {
		t.Errorf("paused node's Lease: %+v, %v; want holder %s", l, err, pausedHolder)
	}

	if err := c.ResumeHeartbeat(ctx, "paused"); err != nil {
		t.Fatal(err)
	}
	if r, err := c.nodeReady(ctx, "paused"); err != nil || r != "True" {
		t.Errorf("after resume: Ready = %q, %v", r, err)
	}
	steady, err := c.getLease(ctx, "steady")
	if err != nil {
		t.Fatal(err)
	}
	resumed, err := c.getLease(ctx, "paused")
	if err != nil {
		t.Fatal(err)
	}
	if *resumed.Spec.HolderIdentity != *steady.Spec.HolderIdentity || resumed.Metadata.Annotations[pausedHolderAnnotation] != "" {
		t.Errorf("resumed Lease held by %q (annotations %v), want kwok's %q", *resumed.Spec.HolderIdentity,
			resumed.Metadata.Annotations, *steady.Spec.HolderIdentity)
	}
	w = newLeaseWatch(c)
	w.until(t, ctx, []string{"paused"}, func() error {
		if w.renewals["paused"] < 2 {
			return fmt.Errorf("paused node renewed %d times since the resume", w.renewals["paused"])
		}
		return nil
	})
	if err := c.ResumeHeartbeat(ctx, "steady"); err != nil { // not paused: a no-op
		t.Fatal(err)
	}

	c.mu.Lock()
	pids := []int{c.kwok.proc.pid(), c.scheduler.proc.pid()}
	c.mu.Unlock()
	c.Stop()
	for _, pid := range pids {
		if !pidGone(pid) {
			t.Errorf("process %d (kwok or kube-scheduler) survived Stop", pid)
		}
	}
}
