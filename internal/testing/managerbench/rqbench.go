package managerbench

import (
	"context"
	"fmt"
	"sync"
	"time"

	"github.com/kcmlab/kcm/kube/api/resource"
	"github.com/kcmlab/kcm/testenv"
)

// QuotasResult is one run of the quotas benchmark: a manager with the
// resourcequota-controller alone on its own fresh cluster, while one
// ResourceQuota arrives in each of the workload's namespaces (their pods
// already there), then while pods are deleted.
type QuotasResult struct {
	Manager     string
	Run         int
	Controllers []string // the --controllers it ran with
	Workload    RQWorkload
	Load        [2]LoadAvg // before and after the run (cluster start to stop)

	// Populated is how long the harness took to create the namespaces and
	// pods, before the manager started.
	Populated time.Duration
	// Probe is from the process start to the probe quota reporting its
	// usage: caches synced, workers running.
	Probe   time.Duration
	AtProbe Sample
	// The fill counts from the first quota create request: when the last
	// create returned, when the first and the last quota reported the
	// usage of its namespace's pods (all correct then). FillWrites are
	// the quotas' writes from the first create to the end of the settle
	// period after the last was correct.
	Created, FirstCorrect, AllCorrect time.Duration
	FillWrites                        int
	AfterFill                         Sample // after the fill's settle period

	// The deletion counts from the first pod delete request: when the
	// last delete returned, when the first and the last quota reported the
	// smaller usage. DeleteWrites as FillWrites.
	Deleted, FirstCorrected, AllCorrected time.Duration
	DeleteWrites                          int
	AtEnd                                 Sample // after the deletion's settle period
}

// eachRun calls fn for every run and manager, the managers' order
// alternating between runs (order).
func eachRun(runs int, ms []Manager, fn func(m Manager, run int) error) error {
	for run := range runs {
		for _, m := range order(ms, run) {
			if err := fn(m, run+1); err != nil {
				return err
			}
		}
	}
	return nil
}

// runQuotasAll runs the quotas benchmark: each run, each manager with the
// resourcequota-controller alone on a cluster of its own.
func (b *bench) runQuotasAll(ctx context.Context, cfg Config, kcm, kube Manager, rep *Report) error {
	w := cfg.RQWorkload
	if err := w.Validate(); err != nil {
		return err
	}
	if err := kcmHas(ctx, kcm.Binary, QuotaController); err != nil {
		return err
	}
	kcm.Controllers, kube.Controllers = []string{QuotaController}, []string{QuotaController}
	return eachRun(cfg.Runs, []Manager{kcm, kube}, func(m Manager, run int) error {
		cfg.Log.Info().Str("manager", m.Label).Int("run", run).Int("namespaces", w.Namespaces).
			Int("pods", w.Pods()).Int("deletes", w.Deletes()).Msg("quotas benchmark")
		r := QuotasResult{Manager: m.Label, Run: run, Controllers: m.Controllers, Workload: w}
		err := b.withCluster(ctx, cfg, testenv.Options{}, func() error { return b.quotasScenario(ctx, m, &r) }, &r.Load)
		if err != nil {
			return err
		}
		cfg.Log.Info().Str("manager", m.Label).Stringer("all correct", r.AllCorrect).
			Stringer("all corrected", r.AllCorrected).Int64("rss MiB", r.AtEnd.RSS>>20).Msg("quotas run done")
		rep.Quotas = append(rep.Quotas, r)
		return nil
	})
}

// quotasScenario is one run on the cluster b holds.
func (b *bench) quotasScenario(ctx context.Context, m Manager, r *QuotasResult) error {
	w := r.Workload
	tctx, cancel := context.WithTimeout(ctx, b.cfg.Timeout)
	defer cancel()
	began := time.Now()
	if err := createRQPopulation(tctx, b.c, w); err != nil {
		return err
	}
	r.Populated = time.Since(began)

	rv, err := b.c.currentRV(ctx)
	if err != nil {
		return err
	}
	wctx, stopWatch := context.WithCancel(ctx)
	tr := newRQTracker()
	var wg sync.WaitGroup
	defer wg.Wait()
	defer stopWatch()
	tr.goWatch(&wg, func() error { return watchEvents(wctx, rqClient(b.c), rv, tr.observeQuota) })

	probeKeys := []string{rqProbeNamespace + "/" + rqProbeName}
	tr.expect(map[string]resource.List{rqProbeNamespace: {"pods": {}}}, time.Now())
	probe := rqQuota(rqProbeNamespace, rqProbeName, rqProbeHard)
	if _, err := rqClient(b.c).InNamespace(rqProbeNamespace).Create(ctx, probe); err != nil {
		return fmt.Errorf("managerbench: create the probe ResourceQuota: %w", err)
	}

	proc, err := b.start(m, fmt.Sprintf("quotas-%d", r.Run), b.cfg.QPS, b.cfg.Burst)
	if err != nil {
		return err
	}
	defer proc.Stop(10 * time.Second)
	pctx, cancelProbe := context.WithTimeout(ctx, b.cfg.Timeout)
	defer cancelProbe()
	if err := tr.Wait(pctx, "the probe quota", func(v RQView) bool { return v.AllCorrect(probeKeys) }); err != nil {
		return fmt.Errorf("managerbench: %s: %w (%s)", m.Label, err, tr.Progress(probeKeys))
	}
	r.Probe = time.Since(proc.Started)
	if r.AtProbe, err = proc.Sample(); err != nil {
		return err
	}

	keys := rqQuotaKeys(w)
	// phase states the usage expected with podsLeft pods per namespace,
	// runs act and waits until every quota reports that usage, then for
	// the settle period.
	phase := func(podsLeft int, act func(context.Context) error) (took, first, last time.Duration, writes int, err error) {
		tctx, cancel := context.WithTimeout(ctx, b.cfg.Timeout)
		defer cancel()
		want, err := rqExpect(w, podsLeft)
		if err != nil {
			return 0, 0, 0, 0, err
		}
		base, start := tr.Writes(), time.Now()
		tr.expect(want, start)
		if err := act(tctx); err != nil {
			return 0, 0, 0, 0, err
		}
		took = time.Since(start)
		what := fmt.Sprintf("%d quotas to report %d pods each", len(keys), podsLeft)
		if err := tr.Wait(tctx, what, func(v RQView) bool { return v.AllCorrect(keys) }); err != nil {
			return 0, 0, 0, 0, fmt.Errorf("managerbench: %s: %w (%s)", m.Label, err, tr.Progress(keys))
		}
		f, l := tr.Times(keys)
		if err := sleep(ctx, proc, b.cfg.Settle); err != nil {
			return 0, 0, 0, 0, err
		}
		return took, since(f, start), since(l, start), tr.Writes() - base, nil
	}

	r.Created, r.FirstCorrect, r.AllCorrect, r.FillWrites, err = phase(w.PodsPerNamespace, func(ctx context.Context) error {
		return createRQQuotas(ctx, b.c, w)
	})
	if err != nil {
		return err
	}
	if r.AfterFill, err = proc.Sample(); err != nil {
		return err
	}
	r.Deleted, r.FirstCorrected, r.AllCorrected, r.DeleteWrites, err = phase(w.PodsPerNamespace-w.DeletePerNamespace,
		func(ctx context.Context) error { return deleteRQPods(ctx, b.c, w) })
	if err != nil {
		return err
	}
	if r.AtEnd, err = proc.Sample(); err != nil {
		return err
	}
	return proc.Stop(10 * time.Second)
}
