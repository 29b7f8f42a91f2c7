package managerbench

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/rs/zerolog"
	"golang.org/x/sync/errgroup"

	"github.com/kcmlab/kcm/kube/rest"
)

// Population is the workload of the sync benchmark: Namespaces namespaces
// named bench-NN, each with Deployments Deployments app-NN of Replicas
// pods.
type Population struct {
	Namespaces, Deployments, Replicas int
}

// Pods is the number of pods the population holds.
func (p Population) Pods() int { return p.Namespaces * p.Deployments * p.Replicas }

// benchPrefix starts the populated namespaces' names.
const benchPrefix = "bench-"

// PopulateTimes says how long each step of populating took, and how big
// one of the pods is.
type PopulateTimes struct {
	Create, Ready, Settle, Total time.Duration
	// PodBytes and PodBytesNoManagedFields are the JSON size of the first
	// populated pod as kube-apiserver serves it, and without
	// metadata.managedFields (which both managers drop from their caches).
	PodBytes, PodBytesNoManagedFields int
}

// populate fills the cluster with p using a populating manager started
// with a high QPS (the workload is then exactly what a controller-manager
// makes: ReplicaSets named by their pod-template-hash, pods with their
// ownerReferences, revision annotations, statuses), marks every pod Ready
// as a kubelet would, waits until every Deployment reports all its pods
// available, and stops the manager. Afterwards the cluster is at rest: a
// manager that starts on it has nothing to do.
func populate(ctx context.Context, c *cluster, m Manager, p Population, dir string, log zerolog.Logger) (PopulateTimes, error) {
	var t PopulateTimes
	began := time.Now()
	port, err := freePort()
	if err != nil {
		return t, err
	}
	certDir, err := os.MkdirTemp(dir, "populator-certs-")
	if err != nil {
		return t, fmt.Errorf("managerbench: %w", err)
	}
	args := append(m.Args(c.kubeconfig, port, certDir, 2000, 4000),
		"--concurrent-replicaset-syncs=20", "--concurrent-deployment-syncs=20")
	proc, err := StartProc("populator "+m.Label, m.Binary, args, filepath.Join(dir, "populator.log"))
	if err != nil {
		return t, err
	}
	defer proc.Stop(10 * time.Second)

	g, gctx := errgroup.WithContext(ctx)
	g.SetLimit(writers)
	for i := range p.Namespaces {
		ns := fmt.Sprintf("%s%02d", benchPrefix, i)
		if err := c.createNamespace(ctx, ns); err != nil {
			return t, err
		}
		for j := range p.Deployments {
			d := newDeployment(ns, fmt.Sprintf("app-%02d", j), int32(p.Replicas))
			g.Go(func() error {
				if _, err := c.deployments.InNamespace(ns).Create(gctx, d); err != nil {
					return fmt.Errorf("managerbench: create Deployment %s/%s: %w", ns, d.Name, err)
				}
				return nil
			})
		}
	}
	if err := g.Wait(); err != nil {
		return t, err
	}
	if err := poll(ctx, proc, 2*time.Second, func() (bool, string, error) {
		n, err := c.countPods(ctx, "", "tier=backend")
		return n >= p.Pods(), fmt.Sprintf("%d of %d pods", n, p.Pods()), err
	}, log); err != nil {
		return t, err
	}
	t.Create = time.Since(began)

	readyBegan := time.Now()
	if err := markAllReady(ctx, c, log); err != nil {
		return t, err
	}
	t.Ready = time.Since(readyBegan)

	settleBegan := time.Now()
	if err := poll(ctx, proc, 2*time.Second, func() (bool, string, error) {
		return deploymentsAvailable(ctx, c, p)
	}, log); err != nil {
		return t, err
	}
	t.Settle = time.Since(settleBegan)
	if err := proc.Stop(10 * time.Second); err != nil {
		return t, err
	}
	if t.PodBytes, t.PodBytesNoManagedFields, err = podSize(ctx, c); err != nil {
		return t, err
	}
	t.Total = time.Since(began)
	return t, nil
}

// markAllReady marks every pod of the bench namespaces Ready, writers at a
// time.
func markAllReady(ctx context.Context, c *cluster, log zerolog.Logger) error {
	g, gctx := errgroup.WithContext(ctx)
	g.SetLimit(writers)
	n := 0
	opts := rest.ListOptions{LabelSelector: "tier=backend", Limit: 500}
	for {
		page, err := c.pods.List(ctx, opts)
		if err != nil {
			return fmt.Errorf("managerbench: list pods: %w", err)
		}
		for _, pod := range page.Items {
			ns, name := pod.Namespace, pod.Name
			g.Go(func() error { return c.markReady(gctx, ns, name) })
			if n++; n%2000 == 0 {
				log.Info().Int("pods", n).Msg("marking pods Ready")
			}
		}
		if page.Continue == "" {
			break
		}
		opts.Continue = page.Continue
	}
	return g.Wait()
}

// deploymentsAvailable reports whether every populated Deployment has
// observed its spec and has all its pods updated and available, and every
// ReplicaSet counts all its pods ready.
func deploymentsAvailable(ctx context.Context, c *cluster, p Population) (bool, string, error) {
	ds, err := c.deployments.ListAll(ctx, rest.ListOptions{Limit: 500})
	if err != nil {
		return false, "", fmt.Errorf("managerbench: list Deployments: %w", err)
	}
	done := 0
	for _, d := range ds.Items {
		if !strings.HasPrefix(d.Namespace, benchPrefix) {
			continue
		}
		s, want := d.Status, int32(p.Replicas)
		if s.ObservedGeneration >= d.Generation && s.Replicas == want && s.UpdatedReplicas == want &&
			s.ReadyReplicas == want && s.AvailableReplicas == want {
			done++
		}
	}
	all := p.Namespaces * p.Deployments
	if done < all {
		return false, fmt.Sprintf("%d of %d Deployments available", done, all), nil
	}
	rss, err := c.replicasets.ListAll(ctx, rest.ListOptions{Limit: 500})
	if err != nil {
		return false, "", fmt.Errorf("managerbench: list ReplicaSets: %w", err)
	}
	for _, rs := range rss.Items {
		if strings.HasPrefix(rs.Namespace, benchPrefix) && (rs.Status.ObservedGeneration < rs.Generation ||
			rs.Status.ReadyReplicas != rs.Status.Replicas || rs.Status.AvailableReplicas != rs.Status.Replicas) {
			return false, fmt.Sprintf("ReplicaSet %s/%s not settled", rs.Namespace, rs.Name), nil
		}
	}
	return true, fmt.Sprintf("%d Deployments available", done), nil
}

// poll calls check every interval until it reports done, logging its
// progress every 10 s; it fails when check fails, proc exits or ctx ends.
func poll(ctx context.Context, proc *Proc, interval time.Duration, check func() (bool, string, error), log zerolog.Logger) error {
	tick := time.NewTicker(interval)
	defer tick.Stop()
	lastLog := time.Now()
	for {
		done, progress, err := check()
		if err != nil {
			return err
		}
		if done {
			log.Info().Msg(progress)
			return nil
		}
		if time.Since(lastLog) >= 10*time.Second {
			log.Info().Msg(progress)
			lastLog = time.Now()
		}
		select {
		case <-ctx.Done():
			return fmt.Errorf("managerbench: %s: %w", progress, ctx.Err())
		case <-proc.Exited():
			return proc.exitErr()
		case <-tick.C:
		}
	}
}

// podSize measures the JSON of one populated pod, with and without its
// managedFields.
func podSize(ctx context.Context, c *cluster) (withMF, withoutMF int, err error) {
	l, err := c.pods.InNamespace(benchPrefix+"00").List(ctx, rest.ListOptions{Limit: 1})
	if err != nil || len(l.Items) == 0 {
		return 0, 0, fmt.Errorf("managerbench: find a pod to measure: %d pods, %w", len(l.Items), err)
	}
	p := l.Items[0]
	raw, err := c.client.RawGet(ctx, rest.Pods.Path(p.Namespace, p.Name))
	if err != nil {
		return 0, 0, fmt.Errorf("managerbench: get pod %s/%s: %w", p.Namespace, p.Name, err)
	}
	var obj map[string]any
	if err := json.Unmarshal(raw, &obj); err != nil {
		return 0, 0, fmt.Errorf("managerbench: pod %s/%s: %w", p.Namespace, p.Name, err)
	}
	compact, err := json.Marshal(obj)
	if err != nil {
		return 0, 0, fmt.Errorf("managerbench: %w", err)
	}
	if md, ok := obj["metadata"].(map[string]any); ok {
		delete(md, "managedFields")
	}
	stripped, err := json.Marshal(obj)
	if err != nil {
		return 0, 0, fmt.Errorf("managerbench: %w", err)
	}
	return len(compact), len(stripped), nil
}
