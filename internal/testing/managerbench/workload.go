package managerbench

import (
	"context"
	"crypto/tls"
	"fmt"
	"time"

	"golang.org/x/sync/errgroup"

	"github.com/kcmlab/kcm/kube/api"
	"github.com/kcmlab/kcm/kube/api/decode"
	"github.com/kcmlab/kcm/kube/rest"
)

// Image is the image of every benchmark pod. No kubelet runs, so it is
// never pulled; it only has to be a valid reference.
const Image = "registry.k8s.io/pause:3.10"

// writers bounds the harness's concurrent writes while it populates a
// cluster: enough to keep kube-apiserver busy on two cores without
// piling up requests it answers with 429.
const writers = 32

// cluster is the harness's view of the cluster: typed clients on one
// unthrottled rest.Client (the harness is not what is measured).
type cluster struct {
	client      *rest.Client
	kubeconfig  string
	scrapeTLS   *tls.Config // reads kcm's secure port as system:masters
	namespaces  *rest.Resources[*api.Namespace]
	sas         *rest.Resources[*api.ServiceAccount]
	deployments *rest.Resources[*api.Deployment]
	replicasets *rest.Resources[*api.ReplicaSet]
	pods        *rest.Resources[*api.Pod]
}

func newCluster(c *rest.Client, kubeconfig string, scrapeTLS *tls.Config) *cluster {
	return &cluster{
		client:      c,
		kubeconfig:  kubeconfig,
		scrapeTLS:   scrapeTLS,
		namespaces:  rest.NewResources(c, rest.Namespaces, decode.Typed[api.Namespace]()),
		sas:         rest.NewResources(c, rest.ServiceAccounts, decode.Typed[api.ServiceAccount]()),
		deployments: rest.NewResources(c, rest.Deployments, decode.Typed[api.Deployment]()),
		replicasets: rest.NewResources(c, rest.ReplicaSets, decode.Typed[api.ReplicaSet]()),
		pods:        rest.NewResources(c, rest.Pods, decode.Typed[api.Pod]()),
	}
}

// createNamespace creates a namespace and its "default" ServiceAccount,
// without which kube-apiserver admits no pod there. The harness creates
// the ServiceAccount itself so that no run waits on the serviceaccount
// controller before its pods can be made (both managers' serviceaccount
// controllers find it and do nothing).
func (c *cluster) createNamespace(ctx context.Context, name string) error {
	if _, err := c.namespaces.Create(ctx, &api.Namespace{ObjectMeta: api.ObjectMeta{Name: name}}); err != nil {
		return fmt.Errorf("managerbench: create namespace %s: %w", name, err)
	}
	sa := &api.ServiceAccount{ObjectMeta: api.ObjectMeta{Name: "default", Namespace: name}}
	if _, err := c.sas.InNamespace(name).Create(ctx, sa); err != nil && !rest.IsAlreadyExists(err) {
		return fmt.Errorf("managerbench: create ServiceAccount %s/default: %w", name, err)
	}
	return nil
}

// newDeployment is a Deployment whose pods look like an ordinary web
// service's: one container with a port, a few environment variables,
// requests and limits, and probes; labels app and tier, one annotation.
// What it carries matters: both managers cache every pod, and the cost of
// a cached pod grows with its spec.
func newDeployment(ns, name string, replicas int32) *api.Deployment {
	labels := map[string]string{"app": name, "tier": "backend"}
	probe := &api.Probe{HTTPGet: &api.HTTPGetAction{Path: "/healthz", Port: api.IntOrStringFromInt(8080)},
		PeriodSeconds: 10}
	return &api.Deployment{
		ObjectMeta: api.ObjectMeta{Name: name, Namespace: ns, Labels: map[string]string{"app": name}},
		Spec: api.DeploymentSpec{
			Replicas: &replicas,
			Selector: &api.LabelSelector{MatchLabels: map[string]string{"app": name}},
			Template: api.PodTemplateSpec{
				ObjectMeta: api.ObjectMeta{Labels: labels, Annotations: map[string]string{"kcm.bench/owner": "managerbench"}},
				Spec: api.PodSpec{Containers: []api.Container{{
					Name:  "app",
					Image: Image,
					Ports: []api.ContainerPort{{Name: "http", ContainerPort: 8080, Protocol: "TCP"}},
					Env: []api.EnvVar{
						{Name: "LOG_LEVEL", Value: "info"},
						{Name: "LISTEN_ADDR", Value: ":8080"},
						{Name: "POD_NAME", ValueFrom: &api.EnvVarSource{FieldRef: &api.ObjectFieldSelector{FieldPath: "metadata.name"}}},
					},
					Resources: api.ResourceRequirements{
						Requests: api.ResourceList{"cpu": "100m", "memory": "128Mi"},
						Limits:   api.ResourceList{"memory": "256Mi"},
					},
					ReadinessProbe: probe,
					LivenessProbe:  probe,
				}}},
			},
		},
	}
}

// markReady sets a pod Running with Ready and ContainersReady True, as a
// kubelet would once its containers pass their readiness probes (no
// kubelet runs here). A pod already gone is not an error.
func (c *cluster) markReady(ctx context.Context, ns, name string) error {
	now := time.Now().UTC().Format(time.RFC3339)
	patch := fmt.Sprintf(`{"status":{"phase":"Running","conditions":[`+
		`{"type":"Ready","status":"True","lastTransitionTime":%q},`+
		`{"type":"ContainersReady","status":"True","lastTransitionTime":%q}]}}`, now, now)
	_, err := c.pods.InNamespace(ns).Patch(ctx, name, rest.MergePatch, []byte(patch), rest.PatchOptions{}, "status")
	if err != nil && !rest.IsNotFound(err) {
		return fmt.Errorf("managerbench: mark pod %s/%s Ready: %w", ns, name, err)
	}
	return nil
}

// countPods counts the pods matching selector in ns ("" = all), listing
// in pages of 500 so that a large cluster is never held in memory at once.
func (c *cluster) countPods(ctx context.Context, ns, selector string) (int, error) {
	n := 0
	opts := rest.ListOptions{LabelSelector: selector, Limit: 500}
	for {
		page, err := c.pods.InNamespace(ns).List(ctx, opts)
		if err != nil {
			return 0, fmt.Errorf("managerbench: count pods: %w", err)
		}
		n += len(page.Items)
		if page.Continue == "" {
			return n, nil
		}
		opts.Continue = page.Continue
	}
}

// deleteWorkload removes what a scenario left in ns (Deployments,
// ReplicaSets, pods) with no garbage collector running: each collection
// is deleted directly. Pods never bound to a node are removed at once.
func (c *cluster) deleteWorkload(ctx context.Context, ns string) error {
	g, ctx := errgroup.WithContext(ctx)
	g.Go(func() error {
		return c.deployments.InNamespace(ns).DeleteCollection(ctx, rest.DeleteOptions{}, rest.ListOptions{})
	})
	g.Go(func() error {
		return c.replicasets.InNamespace(ns).DeleteCollection(ctx, rest.DeleteOptions{}, rest.ListOptions{})
	})
	g.Go(func() error {
		return c.pods.InNamespace(ns).DeleteCollection(ctx, rest.DeleteOptions{}, rest.ListOptions{})
	})
	if err := g.Wait(); err != nil {
		return fmt.Errorf("managerbench: delete the workload in %s: %w", ns, err)
	}
	return nil
}

// currentRV is the cluster's resourceVersion now (a one-item pod list),
// from which a watch sees only what happens next.
func (c *cluster) currentRV(ctx context.Context) (string, error) {
	l, err := c.pods.List(ctx, rest.ListOptions{Limit: 1})
	if err != nil {
		return "", fmt.Errorf("managerbench: resourceVersion: %w", err)
	}
	return l.ResourceVersion, nil
}

// probeNamespace creates namespace ns holding the probe: a 1-replica
// Deployment whose pod appears once a manager started after it has synced
// its caches and run its controllers. It returns the resourceVersion to
// watch from, taken after the probe was written.
func (c *cluster) probeNamespace(ctx context.Context, ns string) (string, error) {
	if err := c.createNamespace(ctx, ns); err != nil {
		return "", err
	}
	if _, err := c.deployments.InNamespace(ns).Create(ctx, newDeployment(ns, "probe", 1)); err != nil {
		return "", fmt.Errorf("managerbench: create the probe Deployment: %w", err)
	}
	return c.currentRV(ctx)
}
