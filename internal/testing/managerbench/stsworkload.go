package managerbench

import (
	"context"
	"fmt"
	"time"

	"golang.org/x/sync/errgroup"

	"github.com/kcmlab/kcm/kube/api"
	"github.com/kcmlab/kcm/kube/api/decode"
	"github.com/kcmlab/kcm/kube/rest"
)

// StatefulSetController is the controller of the StatefulSet benchmark,
// with kube-controller-manager v1.37's name (kcm accepts the same).
const StatefulSetController = "statefulset-controller"

// STSWorkload is the StatefulSet benchmark's workload: Sets StatefulSets
// (sts-NNNN, 100 per namespace sts-NN) of Replicas pods each, every set's
// pods bound to one kwok node (its template names the node), the sets
// spread round-robin over nodes in three zones.
type STSWorkload struct {
	Sets, Replicas int
	// Parallel selects podManagementPolicy Parallel; the default is
	// OrderedReady (the API's default: one pod at a time, each waiting for
	// its predecessor to be Running and Ready).
	Parallel bool
	// Rate paces the creation: StatefulSets per second; 0 creates them as
	// fast as writers concurrent requests go.
	Rate float64
}

// Per-namespace and per-node sizes of the workload.
const (
	stsSetsPerNamespace = 100
	// stsPodsPerNode stays below what a kwok node's pod range holds (a
	// /24: 254 addresses).
	stsPodsPerNode = 200
)

// stsPrefix starts the StatefulSet benchmark's namespaces' names (the
// probe's too).
const stsPrefix = "sts-"

// stsProbeNamespace holds the probe StatefulSet of one replica.
const stsProbeNamespace = stsPrefix + "probe"

// stsImages are the images of the fill and of the rollout: the rollout
// changes the template's image, a new revision.
const (
	stsImage        = Image
	stsRolloutImage = "registry.k8s.io/pause:3.9"
)

// Pods is the number of pods of the workload.
func (w STSWorkload) Pods() int { return w.Sets * w.Replicas }

// Namespaces is the number of namespaces the sets are spread over.
func (w STSWorkload) Namespaces() int { return ceilDiv(w.Sets, stsSetsPerNamespace) }

// Nodes is the number of kwok nodes: at most stsPodsPerNode pods each, at
// least esMinNodes (one per zone), at most what a testenv cluster holds.
func (w STSWorkload) Nodes() int { return min(max(ceilDiv(w.Pods(), stsPodsPerNode), esMinNodes), 255) }

// Policy is the sets' podManagementPolicy.
func (w STSWorkload) Policy() api.PodManagementPolicyType {
	if w.Parallel {
		return api.ParallelPodManagement
	}
	return api.OrderedReadyPodManagement
}

// stsSetKey is the namespace and name of the i-th StatefulSet.
func stsSetKey(i int) (ns, name string) {
	return fmt.Sprintf("%s%02d", stsPrefix, i/stsSetsPerNamespace), fmt.Sprintf("sts-%04d", i)
}

// stsSetKeys lists the workload's sets as namespace/name.
func stsSetKeys(w STSWorkload) []string {
	keys := make([]string, w.Sets)
	for i := range keys {
		ns, name := stsSetKey(i)
		keys[i] = ns + "/" + name
	}
	return keys
}

// stsSetObject is a StatefulSet of replicas pods labelled app=name, with
// the other benchmarks' pod spec, bound to node (no scheduler runs: the
// template names the node, kwok runs the pods). Its serviceName names a
// headless Service that is not created: the controller only copies it
// into the pods' subdomain.
func stsSetObject(ns, name, node string, replicas int32, policy api.PodManagementPolicyType) *api.StatefulSet {
	tmpl := newDeployment(ns, name, 1).Spec.Template
	tmpl.Spec.NodeName = node
	return &api.StatefulSet{
		ObjectMeta: api.ObjectMeta{Name: name, Namespace: ns, Labels: map[string]string{labelApp: name}},
		Spec: api.StatefulSetSpec{
			Replicas:            &replicas,
			Selector:            &api.LabelSelector{MatchLabels: map[string]string{labelApp: name}},
			Template:            tmpl,
			ServiceName:         name,
			PodManagementPolicy: policy,
		},
	}
}

// stsClients are the typed clients the StatefulSet benchmark adds to
// cluster's.
type stsClients struct {
	sets      *rest.Resources[*api.StatefulSet]
	revisions *rest.Resources[*api.ControllerRevision]
}

func newSTSClients(c *cluster) stsClients {
	return stsClients{
		sets:      rest.NewResources(c.client, rest.StatefulSets, decode.Typed[api.StatefulSet]()),
		revisions: rest.NewResources(c.client, rest.ControllerRevisions, decode.Typed[api.ControllerRevision]()),
	}
}

// createSTSWorkload creates the workload's StatefulSets, writers at a
// time, set i on node i mod len(nodes). With w.Rate > 0 set i starts at
// began + i/Rate.
func createSTSWorkload(ctx context.Context, sc stsClients, w STSWorkload, nodes []string) error {
	g, gctx := errgroup.WithContext(ctx)
	g.SetLimit(writers)
	began := time.Now()
	for i := range w.Sets {
		if w.Rate > 0 {
			if err := sleepUntil(gctx, began.Add(paceOffset(i, w.Rate))); err != nil {
				_ = g.Wait()
				return err
			}
		}
		g.Go(func() error {
			ns, name := stsSetKey(i)
			set := stsSetObject(ns, name, nodes[i%len(nodes)], int32(w.Replicas), w.Policy())
			if _, err := sc.sets.InNamespace(ns).Create(gctx, set); err != nil {
				return fmt.Errorf("managerbench: create StatefulSet %s/%s: %w", ns, name, err)
			}
			return nil
		})
	}
	return g.Wait()
}

// rolloutSTSWorkload changes the image of every set's template, writers
// at a time (a strategic merge patch of the one container, by name): each set gets a new
// revision and replaces its pods from the highest ordinal down.
func rolloutSTSWorkload(ctx context.Context, sc stsClients, w STSWorkload) error {
	patch := fmt.Appendf(nil, `{"spec":{"template":{"spec":{"containers":[{"name":"app","image":%q}]}}}}`, stsRolloutImage)
	g, gctx := errgroup.WithContext(ctx)
	g.SetLimit(writers)
	for i := range w.Sets {
		g.Go(func() error {
			ns, name := stsSetKey(i)
			if _, err := sc.sets.InNamespace(ns).Patch(gctx, name, rest.StrategicMergePatch, patch, rest.PatchOptions{}); err != nil {
				return fmt.Errorf("managerbench: roll StatefulSet %s/%s: %w", ns, name, err)
			}
			return nil
		})
	}
	return g.Wait()
}
