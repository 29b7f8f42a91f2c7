package managerbench

import (
	"context"
	"errors"
	"fmt"

	"golang.org/x/sync/errgroup"

	"github.com/kcmlab/kcm/kube/api"
	"github.com/kcmlab/kcm/kube/api/decode"
	"github.com/kcmlab/kcm/kube/api/resource"
	"github.com/kcmlab/kcm/kube/rest"
)

// QuotaController is the controller the quotas benchmark runs in both
// managers, alone.
const QuotaController = "resourcequota-controller"

// The quotas benchmark's names: the workload's namespaces are quota-0000,
// quota-0001, ...; each holds one ResourceQuota named quota and pods
// pod-000, pod-001, ...; the probe quota lives in a namespace of its own
// outside that prefix.
const (
	rqPrefix         = "quota-"
	rqQuotaName      = "quota"
	rqProbeNamespace = "probe-quota"
	rqProbeName      = "probe"
	// rqMaxNamespaces and rqMaxPods bound the sizes to what the names and
	// a testenv cluster hold.
	rqMaxNamespaces = 10000
	rqMaxPods       = 1000
)

// resourceQuotas is core/v1 resourcequotas, which the harness creates and
// watches.
var resourceQuotas = rest.Resource{Version: "v1", Resource: "resourcequotas", Kind: "ResourceQuota", Namespaced: true}

// rqHard is every workload quota's spec.hard: the pod count and the pods'
// compute requests, with room to spare (the status is what is measured,
// not admission).
var rqHard = api.ResourceList{"pods": "100000", "requests.cpu": "10k", "requests.memory": "100Ti"}

// rqProbeHard is the probe quota's spec.hard: in a namespace without pods
// its status.used is pods 0 once a manager has synced it.
var rqProbeHard = api.ResourceList{"pods": "1"}

// RQWorkload is the quotas benchmark's cluster: Namespaces namespaces of
// PodsPerNamespace pods each, created before the manager starts, then
// one ResourceQuota per namespace; then DeletePerNamespace pods of each
// namespace are deleted.
type RQWorkload struct {
	Namespaces, PodsPerNamespace, DeletePerNamespace int
}

// ErrRQWorkload is returned for a quotas workload that cannot run.
var ErrRQWorkload = errors.New("managerbench: invalid quotas workload")

// Validate checks the workload's sizes.
func (w RQWorkload) Validate() error {
	switch {
	case w.Namespaces < 1 || w.Namespaces > rqMaxNamespaces:
		return fmt.Errorf("%w: %d namespaces (1 to %d)", ErrRQWorkload, w.Namespaces, rqMaxNamespaces)
	case w.PodsPerNamespace < 1 || w.PodsPerNamespace > rqMaxPods:
		return fmt.Errorf("%w: %d pods per namespace (1 to %d)", ErrRQWorkload, w.PodsPerNamespace, rqMaxPods)
	case w.DeletePerNamespace < 1 || w.DeletePerNamespace > w.PodsPerNamespace:
		return fmt.Errorf("%w: %d pods deleted per namespace of %d", ErrRQWorkload, w.DeletePerNamespace, w.PodsPerNamespace)
	}
	return nil
}

// Pods is how many pods the workload creates.
func (w RQWorkload) Pods() int { return w.Namespaces * w.PodsPerNamespace }

// Deletes is how many pods the workload deletes.
func (w RQWorkload) Deletes() int { return w.Namespaces * w.DeletePerNamespace }

// rqNamespace is the i-th namespace of the workload.
func rqNamespace(i int) string { return fmt.Sprintf("%s%04d", rqPrefix, i) }

// rqPodName is the j-th pod of a namespace.
func rqPodName(j int) string { return fmt.Sprintf("pod-%03d", j) }

// rqQuotaKeys are the namespace/name keys of the workload's quotas.
func rqQuotaKeys(w RQWorkload) []string {
	keys := make([]string, w.Namespaces)
	for i := range keys {
		keys[i] = rqNamespace(i) + "/" + rqQuotaName
	}
	return keys
}

// rqPod is a workload pod: the other benchmarks' pod (newDeployment's
// template, one container requesting cpu and memory), never bound to a
// node. It stays Pending, which quota counts as it counts a running pod;
// deleted, it is gone at once (kube-apiserver deletes a pod that no
// kubelet runs without a grace period).
func rqPod(ns, name string) *api.Pod {
	tmpl := newDeployment(ns, "quota", 1).Spec.Template
	return &api.Pod{ObjectMeta: api.ObjectMeta{Name: name, Namespace: ns, Labels: tmpl.Labels, Annotations: tmpl.Annotations},
		Spec: tmpl.Spec}
}

// rqQuota is a ResourceQuota with the given hard limits and no status.
func rqQuota(ns, name string, hard api.ResourceList) *api.ResourceQuota {
	return &api.ResourceQuota{ObjectMeta: api.ObjectMeta{Name: name, Namespace: ns},
		Spec: api.ResourceQuotaSpec{Hard: hard}}
}

// rqUsage is the status.used a quota with rqHard reports for n pods like
// pod, which has no init containers, overhead or pod-level resources: the
// pod count, and n times the sum of its containers' cpu and memory
// requests (Kubernetes' pod evaluator, requests.* of a non-terminal pod).
func rqUsage(pod *api.Pod, n int) (resource.List, error) {
	per := resource.List{}
	for _, c := range pod.Spec.Containers {
		for _, name := range []string{"cpu", "memory"} {
			s, ok := c.Resources.Requests[name]
			if !ok {
				continue
			}
			q, err := resource.Parse(s)
			if err != nil {
				return nil, fmt.Errorf("managerbench: container %s requests %s: %w", c.Name, name, err)
			}
			per["requests."+name] = per["requests."+name].Add(q)
		}
	}
	used := resource.List{"pods": resource.NewQuantity(int64(n), resource.DecimalSI)}
	for name, q := range per {
		var sum resource.Quantity
		for range n {
			sum = sum.Add(q)
		}
		used[name] = sum
	}
	for name := range rqHard {
		if _, ok := used[name]; !ok {
			used[name] = resource.Quantity{}
		}
	}
	return used, nil
}

// rqExpect is the usage every workload namespace's quota should report
// with podsLeft pods in each.
func rqExpect(w RQWorkload, podsLeft int) (map[string]resource.List, error) {
	used, err := rqUsage(rqPod("", ""), podsLeft)
	if err != nil {
		return nil, err
	}
	want := make(map[string]resource.List, w.Namespaces)
	for i := range w.Namespaces {
		want[rqNamespace(i)] = used
	}
	return want, nil
}

// concurrently runs fn(0) … fn(n-1), writers at a time, and returns the
// first error (the others are cancelled through their context).
func concurrently(ctx context.Context, n int, fn func(ctx context.Context, i int) error) error {
	g, gctx := errgroup.WithContext(ctx)
	g.SetLimit(writers)
	for i := range n {
		g.Go(func() error { return fn(gctx, i) })
	}
	return g.Wait()
}

// rqClient is the harness's ResourceQuota client.
func rqClient(c *cluster) *rest.Resources[*api.ResourceQuota] {
	return rest.NewResources(c.client, resourceQuotas, decode.Typed[api.ResourceQuota]())
}

// createRQPopulation creates the workload's namespaces (with their
// default ServiceAccounts), then their pods, and the probe's namespace.
func createRQPopulation(ctx context.Context, c *cluster, w RQWorkload) error {
	if err := c.createNamespace(ctx, rqProbeNamespace); err != nil {
		return err
	}
	if err := concurrently(ctx, w.Namespaces, func(ctx context.Context, i int) error {
		return c.createNamespace(ctx, rqNamespace(i))
	}); err != nil {
		return err
	}
	return concurrently(ctx, w.Pods(), func(ctx context.Context, i int) error {
		ns, name := rqNamespace(i/w.PodsPerNamespace), rqPodName(i%w.PodsPerNamespace)
		if _, err := c.pods.InNamespace(ns).Create(ctx, rqPod(ns, name)); err != nil {
			return fmt.Errorf("managerbench: create pod %s/%s: %w", ns, name, err)
		}
		return nil
	})
}

// createRQQuotas creates one quota per workload namespace.
func createRQQuotas(ctx context.Context, c *cluster, w RQWorkload) error {
	rq := rqClient(c)
	return concurrently(ctx, w.Namespaces, func(ctx context.Context, i int) error {
		ns := rqNamespace(i)
		if _, err := rq.InNamespace(ns).Create(ctx, rqQuota(ns, rqQuotaName, rqHard)); err != nil {
			return fmt.Errorf("managerbench: create ResourceQuota %s/%s: %w", ns, rqQuotaName, err)
		}
		return nil
	})
}

// deleteRQPods deletes the first DeletePerNamespace pods of every
// workload namespace.
func deleteRQPods(ctx context.Context, c *cluster, w RQWorkload) error {
	return concurrently(ctx, w.Deletes(), func(ctx context.Context, i int) error {
		ns, name := rqNamespace(i/w.DeletePerNamespace), rqPodName(i%w.DeletePerNamespace)
		if err := c.pods.InNamespace(ns).Delete(ctx, name, rest.DeleteOptions{}); err != nil {
			return fmt.Errorf("managerbench: delete pod %s/%s: %w", ns, name, err)
		}
		return nil
	})
}
