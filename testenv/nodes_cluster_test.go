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
		PodCIDR string      `json:"podCIDR"`
		Taints  []nodeTaint `json:"taints"`
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
		if _, tainted := withoutNotReady(n.Spec.Taints); tainted {
			t.Errorf("%s: still has the %s taint: %v", names[i], TaintNodeNotReady, n.Spec.Taints)
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

// waitBound bounds each wait of the node tests for something kwok or
// kube-scheduler does (they act within a second; the bound is for a
// loaded machine).
const waitBound = 2 * time.Minute

// waitPod polls the pod until ok accepts it.
func waitPod(t *testing.T, ctx context.Context, c *Cluster, path string, ok func(*podObj, error) error) {
	t.Helper()
	ctx, cancel := context.WithTimeout(ctx, waitBound)
	defer cancel()
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
	c.mu.Lock()
	schedPID, kwokPID := c.scheduler.proc.pid(), c.kwok.proc.pid()
	c.mu.Unlock()
	if err := c.StartScheduler(ctx); err != nil { // idempotent
		t.Fatal(err)
	}
	if err := c.StartKwok(ctx); err != nil {
		t.Fatal(err)
	}
	c.mu.Lock()
	if c.scheduler.proc.pid() != schedPID || c.kwok.proc.pid() != kwokPID {
		t.Errorf("a second start replaced the running kube-scheduler (%d, was %d) or kwok (%d, was %d)",
			c.scheduler.proc.pid(), schedPID, c.kwok.proc.pid(), kwokPID)
	}
	c.mu.Unlock()
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
