package managerbench

import (
	"context"
	"fmt"
	"time"
)

// ScaleResult is one run of the scale benchmark: a Deployment of many
// replicas created on a manager that runs at the client rate kube-
// controller-manager has by default, until all its pods exist.
type ScaleResult struct {
	Manager string
	Run     int
	Ready   time.Duration // process start → the probe pod (as in SyncResult)
	// FirstPod and AllPods count from the Deployment's create request.
	FirstPod, AllPods time.Duration
	AtEnd             Sample
}

// runScale measures one manager creating cfg.ScaleReplicas pods in a
// fresh namespace of the scale cluster, and removes them afterwards.
func (b *bench) runScale(ctx context.Context, m Manager, run int) (ScaleResult, error) {
	r := ScaleResult{Manager: m.Label, Run: run}
	ns := fmt.Sprintf("scale-%d-%s", run, slug(m.Label))
	rv, err := b.c.probeNamespace(ctx, ns)
	if err != nil {
		return r, err
	}
	wctx, stopWatch := context.WithCancel(ctx)
	defer stopWatch()
	pods := startPodCounter(wctx, b.c, ns, rv)

	proc, err := b.start(m, fmt.Sprintf("scale-%d", run), b.cfg.QPS, b.cfg.Burst)
	if err != nil {
		return r, err
	}
	defer proc.Stop(10 * time.Second)
	tctx, cancel := context.WithTimeout(ctx, b.cfg.Timeout)
	defer cancel()
	_, at, err := pods.Wait(tctx, "probe", 1)
	if err != nil {
		return r, fmt.Errorf("managerbench: %s: the probe pod: %w", m.Label, err)
	}
	r.Ready = at.Sub(proc.Started)

	created := time.Now()
	if _, err := b.c.deployments.InNamespace(ns).Create(ctx, newDeployment(ns, "scale", int32(b.cfg.ScaleReplicas))); err != nil {
		return r, fmt.Errorf("managerbench: create the scale Deployment: %w", err)
	}
	first, all, err := pods.Wait(tctx, "scale", b.cfg.ScaleReplicas)
	if err != nil {
		return r, fmt.Errorf("managerbench: %s: %w", m.Label, err)
	}
	r.FirstPod, r.AllPods = first.Sub(created), all.Sub(created)
	if r.AtEnd, err = proc.Sample(); err != nil {
		return r, err
	}
	if err := proc.Stop(10 * time.Second); err != nil {
		return r, err
	}
	stopWatch()
	return r, b.c.deleteWorkload(ctx, ns)
}
