package managerbench

import (
	"context"
	"fmt"
	"strings"
	"sync"
	"time"

	"github.com/kcmlab/kcm/kube/api"
	"github.com/kcmlab/kcm/kube/api/decode"
	"github.com/kcmlab/kcm/kube/rest"
	"github.com/kcmlab/kcm/testenv"
)

// StatefulSetsResult is one run of the StatefulSet benchmark: a manager
// with the statefulset-controller alone on its own fresh cluster of kwok
// nodes, while the workload's StatefulSets arrive and their pods become
// Ready, then while every set rolls to a new image.
type StatefulSetsResult struct {
	Manager     string
	Run         int
	Controllers []string // the --controllers it ran with
	Workload    STSWorkload
	Nodes       int
	Load        [2]LoadAvg // before and after the run (cluster start to stop)

	// Probe is from the process start to the probe set (one replica)
	// reporting its pod ready: caches synced, workers running.
	Probe   time.Duration
	AtProbe Sample
	// The fill counts from the first create request: when the last create
	// returned, when the last pod turned Ready (kwok), when the last status
	// was written, and when every set first reported all its replicas
	// ready with all its pods Ready. The last status write is taken after
	// the settle period, so a write made after the state was complete
	// counts.
	Created, LastReady, LastStatus, Converged time.Duration
	Fill                                      STSCounts // events during the fill and its settle period
	AfterFill                                 Sample    // after the fill's settle period

	// The rollout counts from the first patch request: when every set
	// first reported its update revision current on all replicas, all
	// ready; Rollout is the events from the first patch to the end of the
	// settle period after it.
	Rolled  time.Duration
	Rollout STSCounts
	AtEnd   Sample // after the rollout's settle period
}

// StatusLag is the time from the last pod turning Ready to the moment
// every set reported it (Converged − LastReady).
func (r StatefulSetsResult) StatusLag() time.Duration { return r.Converged - r.LastReady }

// kcmHas reports whether the kcm binary has controller, read from its
// --help.
func kcmHas(ctx context.Context, bin, controller string) error {
	has, err := kcmControllerList(ctx, bin)
	if err != nil {
		return err
	}
	if !contains(has, controller) {
		return fmt.Errorf("managerbench: %s has no %s (its --help lists %q)", bin, controller, has)
	}
	return nil
}

// runStatefulSets measures manager m on a fresh cluster of its own.
func (b *bench) runStatefulSets(ctx context.Context, cfg Config, m Manager, run int) (StatefulSetsResult, error) {
	w := cfg.STSWorkload
	r := StatefulSetsResult{Manager: m.Label, Run: run, Controllers: m.Controllers, Workload: w, Nodes: w.Nodes()}
	err := b.withCluster(ctx, cfg, testenv.Options{}, func() error { return b.statefulSetsScenario(ctx, m, run, &r) }, &r.Load)
	return r, err
}

// statefulSetsScenario is runStatefulSets on the cluster b holds.
func (b *bench) statefulSetsScenario(ctx context.Context, m Manager, run int, r *StatefulSetsResult) error {
	w := r.Workload
	nodes, rv, err := b.populateNodesAndNamespaces(ctx, r.Nodes, stsPrefix, w.Namespaces(), stsProbeNamespace)
	if err != nil {
		return err
	}
	wctx, stopWatches := context.WithCancel(ctx)
	tr := newSTSTracker(func(ns string) bool { return strings.HasPrefix(ns, stsPrefix) })
	var wg sync.WaitGroup
	defer wg.Wait()
	defer stopWatches()
	startSTSWatches(wctx, b.c, rv, tr, &wg)

	sc := newSTSClients(b.c)
	probe := stsSetObject(stsProbeNamespace, "probe", nodes[0], 1, w.Policy())
	if _, err := sc.sets.InNamespace(stsProbeNamespace).Create(ctx, probe); err != nil {
		return fmt.Errorf("managerbench: create the probe StatefulSet: %w", err)
	}

	proc, err := b.start(m, fmt.Sprintf("statefulsets-%d", run), b.cfg.QPS, b.cfg.Burst)
	if err != nil {
		return err
	}
	defer proc.Stop(10 * time.Second)
	tctx, cancel := context.WithTimeout(ctx, b.cfg.Timeout)
	defer cancel()
	probeKeys := []string{stsProbeNamespace + "/probe"}
	if err := tr.Wait(tctx, "the probe StatefulSet", func(v STSView) bool {
		return stsConverged(v, probeKeys, 1, 1, false)
	}); err != nil {
		return fmt.Errorf("managerbench: %s: %w", m.Label, err)
	}
	r.Probe = time.Since(proc.Started)
	if r.AtProbe, err = proc.Sample(); err != nil {
		return err
	}

	keys, want := stsSetKeys(w), int32(w.Replicas)
	base, began := tr.Totals(), time.Now()
	if err := createSTSWorkload(tctx, sc, w, nodes); err != nil {
		return err
	}
	r.Created = time.Since(began)
	if err := tr.Wait(tctx, fmt.Sprintf("%d StatefulSets Ready", len(keys)), func(v STSView) bool {
		return stsConverged(v, keys, want, 1, false)
	}); err != nil {
		return fmt.Errorf("managerbench: %s: %w (%s)", m.Label, err, tr.Progress(keys, want, 1, false))
	}
	r.Converged = time.Since(began)
	if err := sleep(ctx, proc, b.cfg.Settle); err != nil {
		return err
	}
	t := tr.Times()
	r.LastReady, r.LastStatus = since(t.LastReady, began), since(t.LastStatus, began)
	r.Fill = tr.Totals().Sub(base)
	if r.AfterFill, err = proc.Sample(); err != nil {
		return err
	}

	base, rolled := tr.Totals(), time.Now()
	if err := rolloutSTSWorkload(tctx, sc, w); err != nil {
		return err
	}
	// The patch is each set's second generation: a set seen at it has been
	// patched, so its old, complete status no longer counts.
	if err := tr.Wait(tctx, fmt.Sprintf("%d StatefulSets rolled", len(keys)), func(v STSView) bool {
		return stsConverged(v, keys, want, 2, true)
	}); err != nil {
		return fmt.Errorf("managerbench: %s: %w (%s)", m.Label, err, tr.Progress(keys, want, 2, true))
	}
	r.Rolled = time.Since(rolled)
	if err := sleep(ctx, proc, b.cfg.Settle); err != nil {
		return err
	}
	r.Rollout = tr.Totals().Sub(base)
	if r.AtEnd, err = proc.Sample(); err != nil {
		return err
	}
	return proc.Stop(10 * time.Second)
}

// startSTSWatches feeds tr from watches of pods, StatefulSets and
// ControllerRevisions after rv until ctx ends; a watch that fails ends
// tr's waits with its error.
func startSTSWatches(ctx context.Context, c *cluster, rv string, tr *stsTracker, wg *sync.WaitGroup) {
	run := func(f func() error) { tr.goWatch(wg, f) }
	run(func() error {
		return watchEvents(ctx, rest.NewResources(c.client, rest.Pods, decode.Typed[api.Pod]()), rv, tr.observePod)
	})
	run(func() error {
		return watchEvents(ctx, rest.NewResources(c.client, rest.StatefulSets, decode.Typed[api.StatefulSet]()), rv, tr.observeSet)
	})
	run(func() error {
		return watchEvents(ctx, rest.NewResources(c.client, rest.ControllerRevisions, decode.Typed[api.ControllerRevision]()), rv,
			tr.observeRevision)
	})
}
