package testenv

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"net/http"
	"time"
)

// NodeSpec describes one kwok fake node.
type NodeSpec struct {
	Name string
	// Zone sets the label topology.kubernetes.io/zone; empty: no zone.
	Zone string
	// Region sets topology.kubernetes.io/region. Empty means DefaultRegion
	// when Zone is set (cloud nodes carry both labels, and Kubernetes keys
	// a zone by both), no region label otherwise.
	Region string
	// CPU, Memory and Pods are the node's capacity and allocatable.
	// Empty: DefaultNodeCPU, DefaultNodeMemory, DefaultNodePods.
	CPU    string
	Memory string
	Pods   string
	// Labels are added to the node's labels; they win over testenv's.
	Labels map[string]string
}

// Defaults of NodeSpec: a large machine with the kubelet's default pod
// limit.
const (
	DefaultNodeCPU    = "32"
	DefaultNodeMemory = "256Gi"
	DefaultNodePods   = "110"
	DefaultRegion     = "region-1"
)

// Well-known node labels (k8s.io/api/core/v1 well_known_labels.go).
const (
	LabelZone     = "topology.kubernetes.io/zone"
	LabelRegion   = "topology.kubernetes.io/region"
	LabelHostname = "kubernetes.io/hostname"
)

// NodeLeaseNamespace holds one Lease per node, named after it, which the
// node's kubelet (here: kwok) renews: the heartbeat the node lifecycle
// controller watches.
const NodeLeaseNamespace = "kube-node-lease"

// maxNodes bounds the nodes of one cluster: node N gets the pod range
// 10.244.N.0/24.
const maxNodes = 255

// AddNodes starts kwok (StartKwok) if it is not running, creates a Node
// object for each spec, and returns once every one of them is Ready and
// has its Lease in kube-node-lease, or when ctx or the cluster's ready
// timeout ends.
//
// Each node is what a kubelet would register: the labels
// kubernetes.io/hostname, kubernetes.io/os=linux, kubernetes.io/arch=amd64
// and type=kwok, the zone and region labels, the annotation that hands it
// to kwok, status.capacity and allocatable from the spec, an InternalIP
// (172.18.0.N) and a Hostname address, and a pod range of its own,
// spec.podCIDR 10.244.N.0/24, from which kwok gives its pods their IPs.
// N counts the nodes added to the cluster, from 1; at most 255. Once a node
// is Ready, AddNodes removes the not-ready taint kube-apiserver gave it at
// creation (see waitNodeUp), so pods are scheduled to it.
func (c *Cluster) AddNodes(ctx context.Context, nodes ...NodeSpec) error {
	if err := c.createNodes(ctx, nodes); err != nil {
		return err
	}
	rctx, cancel := c.readyContext(ctx)
	defer cancel()
	began := time.Now()
	for _, n := range nodes {
		if err := c.waitNodeUp(rctx, n.Name); err != nil {
			return fmt.Errorf("testenv: node %s: %w", n.Name, c.withKwokLog(err))
		}
	}
	c.log.Info().Int("nodes", len(nodes)).Dur("took", time.Since(began)).Msg("nodes ready")
	return nil
}

// createNodes starts kwok and creates the Node objects, numbering them.
func (c *Cluster) createNodes(ctx context.Context, nodes []NodeSpec) error {
	c.helpers.Lock()
	defer c.helpers.Unlock()
	if err := c.startKwokLocked(ctx); err != nil {
		return err
	}
	for _, n := range nodes {
		if c.nodeCount >= maxNodes {
			return fmt.Errorf("testenv: node %s: a cluster has at most %d nodes", n.Name, maxNodes)
		}
		obj, err := nodeObject(n, c.nodeCount+1)
		if err != nil {
			return err
		}
		if err := c.client.do(ctx, http.MethodPost, "/api/v1/nodes", obj, nil); err != nil {
			return fmt.Errorf("testenv: create node %s: %w", n.Name, err)
		}
		c.nodeCount++
	}
	return nil
}

// ErrNoNodeName is returned for a NodeSpec without a name.
var ErrNoNodeName = errors.New("testenv: a node needs a name")

// nodeObject renders the Node for spec as the index-th node (from 1).
func nodeObject(spec NodeSpec, index int) (map[string]any, error) {
	if spec.Name == "" {
		return nil, ErrNoNodeName
	}
	labels := map[string]string{
		LabelHostname:      spec.Name,
		"kubernetes.io/os": "linux",
		// What kwok's own examples label their nodes with.
		"kubernetes.io/arch": "amd64",
		"type":               "kwok",
	}
	if spec.Zone != "" {
		labels[LabelZone] = spec.Zone
		region := spec.Region
		if region == "" {
			region = DefaultRegion
		}
		labels[LabelRegion] = region
	} else if spec.Region != "" {
		labels[LabelRegion] = spec.Region
	}
	maps.Copy(labels, spec.Labels)
	resources := map[string]string{
		"cpu":    orDefault(spec.CPU, DefaultNodeCPU),
		"memory": orDefault(spec.Memory, DefaultNodeMemory),
		"pods":   orDefault(spec.Pods, DefaultNodePods),
	}
	podCIDR := fmt.Sprintf("10.244.%d.0/24", index)
	return map[string]any{
		"apiVersion": "v1",
		"kind":       "Node",
		"metadata": map[string]any{
			"name":   spec.Name,
			"labels": labels,
			"annotations": map[string]string{
				KwokNodeAnnotation: KwokNodeAnnotationValue,
				// The kubelet's: how long others may cache objects for it.
				"node.alpha.kubernetes.io/ttl": "0",
			},
		},
		"spec": map[string]any{"podCIDR": podCIDR, "podCIDRs": []string{podCIDR}},
		// A node may be created with its status (the kubelet does so);
		// kwok's node-initialize stage keeps these and adds the rest.
		"status": map[string]any{
			"capacity":    resources,
			"allocatable": resources,
			"addresses": []map[string]string{
				{"type": "InternalIP", "address": fmt.Sprintf("172.18.%d.%d", index/256, index%256)},
				{"type": "Hostname", "address": spec.Name},
			},
			"nodeInfo": map[string]string{
				"architecture":    "amd64",
				"operatingSystem": "linux",
				"kubeletVersion":  KubernetesVersion,
			},
		},
	}, nil
}

func orDefault(v, def string) string {
	if v == "" {
		return def
	}
	return v
}

// nodeStatus is the part of a Node testenv reads.
type nodeStatus struct {
	Metadata struct {
		ResourceVersion string            `json:"resourceVersion"`
		Labels          map[string]string `json:"labels"`
	} `json:"metadata"`
	Spec struct {
		Taints []nodeTaint `json:"taints"`
	} `json:"spec"`
	Status struct {
		Conditions []struct {
			Type              string `json:"type"`
			Status            string `json:"status"`
			LastHeartbeatTime string `json:"lastHeartbeatTime"`
		} `json:"conditions"`
	} `json:"status"`
}

// nodeTaint is one of a node's spec.taints.
type nodeTaint struct {
	Key       string `json:"key"`
	Value     string `json:"value,omitempty"`
	Effect    string `json:"effect"`
	TimeAdded string `json:"timeAdded,omitempty"`
}

// TaintNodeNotReady is the taint kube-apiserver's TaintNodesByCondition
// admission plugin puts on every node it creates (with effect NoSchedule),
// and that the node lifecycle controller removes once the node is Ready.
const TaintNodeNotReady = "node.kubernetes.io/not-ready"

// withoutNotReady returns the taints without the NoSchedule not-ready
// one, and whether it was there.
func withoutNotReady(taints []nodeTaint) ([]nodeTaint, bool) {
	kept := make([]nodeTaint, 0, len(taints))
	found := false
	for _, t := range taints {
		if t.Key == TaintNodeNotReady && t.Effect == "NoSchedule" {
			found = true
			continue
		}
		kept = append(kept, t)
	}
	return kept, found
}

// ready returns the status of the node's Ready condition ("" if none).
func (n *nodeStatus) ready() string {
	for _, c := range n.Status.Conditions {
		if c.Type == "Ready" {
			return c.Status
		}
	}
	return ""
}

// leaseState is the part of a node's Lease testenv reads.
type leaseState struct {
	Metadata struct {
		ResourceVersion string            `json:"resourceVersion"`
		Annotations     map[string]string `json:"annotations"`
	} `json:"metadata"`
	Spec struct {
		HolderIdentity *string `json:"holderIdentity"`
		RenewTime      *string `json:"renewTime"`
	} `json:"spec"`
}

func (l *leaseState) renewTime() string {
	if l.Spec.RenewTime == nil {
		return ""
	}
	return *l.Spec.RenewTime
}

func nodePath(name string) string { return "/api/v1/nodes/" + name }
func leasePath(name string) string {
	return "/apis/coordination.k8s.io/v1/namespaces/" + NodeLeaseNamespace + "/leases/" + name
}

// getNode and getLease read the node's object and its Lease.
func (c *Cluster) getNode(ctx context.Context, name string) (*nodeStatus, error) {
	var n nodeStatus
	if err := c.client.do(ctx, http.MethodGet, nodePath(name), nil, &n); err != nil {
		return nil, err
	}
	return &n, nil
}

func (c *Cluster) getLease(ctx context.Context, name string) (*leaseState, error) {
	var l leaseState
	if err := c.client.do(ctx, http.MethodGet, leasePath(name), nil, &l); err != nil {
		return nil, err
	}
	return &l, nil
}

// waitNodeUp polls until the node is Ready and its Lease has been renewed,
// and then removes the not-ready taint the node was created with.
//
// The taint is kube-apiserver's doing (admission plugin
// TaintNodesByCondition), and removing it once Ready is the node lifecycle
// controller's (kube-controller-manager's nodelifecycle, which no test
// cluster runs by default). Without that step no pod without a toleration
// would ever be scheduled. testenv does it once, per node, here; a node
// lifecycle controller that runs later does its own tainting.
func (c *Cluster) waitNodeUp(ctx context.Context, name string) error {
	return c.poll(ctx, func(ctx context.Context) error {
		n, err := c.getNode(ctx, name)
		if err != nil {
			return err
		}
		if r := n.ready(); r != "True" {
			return fmt.Errorf("Ready is %q", r)
		}
		if kept, found := withoutNotReady(n.Spec.Taints); found {
			// The resourceVersion makes the patch conditional: if kwok
			// wrote the node meanwhile, the next poll reads it again.
			patch := map[string]any{
				"metadata": map[string]any{"resourceVersion": n.Metadata.ResourceVersion},
				"spec":     map[string]any{"taints": kept},
			}
			if err := c.client.mergePatch(ctx, nodePath(name), patch, nil); err != nil {
				return fmt.Errorf("remove the %s taint: %w", TaintNodeNotReady, err)
			}
		}
		l, err := c.getLease(ctx, name)
		if err != nil {
			return fmt.Errorf("lease: %w", err)
		}
		if l.renewTime() == "" {
			return errors.New("lease not renewed yet")
		}
		return nil
	})
}

// poll calls check every readyPollInterval until it returns nil, ctx ends
// or kwok exits; the error then says what the last check saw.
func (c *Cluster) poll(ctx context.Context, check func(context.Context) error) error {
	var kwok *process
	var kwokExited <-chan struct{} // nil (never ready) without kwok
	c.mu.Lock()
	if c.kwok != nil {
		kwok, kwokExited = c.kwok.proc, c.kwok.proc.exited
	}
	c.mu.Unlock()
	t := time.NewTicker(readyPollInterval)
	defer t.Stop()
	var last error
	for {
		cctx, cancel := context.WithTimeout(ctx, 5*time.Second)
		err := check(cctx)
		cancel()
		if err == nil {
			return nil
		}
		if last == nil || ctx.Err() == nil { // keep what the check saw, not the deadline cutting it
			last = err
		}
		select {
		case <-ctx.Done():
			return fmt.Errorf("%w: %w; last check: %v", ErrNotReady, ctx.Err(), last)
		case <-kwokExited:
			return fmt.Errorf("%w; last check: %v", kwok.exitError(), last)
		case <-t.C:
		}
	}
}

// withKwokLog adds the tail of kwok's log to a timeout (an exit's error
// has it already).
func (c *Cluster) withKwokLog(err error) error {
	c.mu.Lock()
	d := c.kwok
	c.mu.Unlock()
	if d == nil || !errors.Is(err, ErrNotReady) {
		return err
	}
	return fmt.Errorf("%w\nlast lines of %s:\n%s", err, d.proc.logPath, fileTail(d.proc.logPath, 30))
}
