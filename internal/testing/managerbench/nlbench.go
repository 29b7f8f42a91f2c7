package managerbench

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"time"

	"golang.org/x/sync/errgroup"

	"github.com/kcmlab/kcm/kube/api"
	"github.com/kcmlab/kcm/kube/api/decode"
	"github.com/kcmlab/kcm/kube/rest"
	"github.com/kcmlab/kcm/testenv"
)

// NodeLifecycleControllers are the controllers the nodes benchmark runs
// in both managers: the one that taints a silent node and marks its pods
// not Ready, and the one that would evict them.
var NodeLifecycleControllers = []string{"node-lifecycle-controller", "taint-eviction-controller"}

// nlNamespace holds the benchmark's pods.
const nlNamespace = "nl-bench"

// NLWorkload is the nodes benchmark's cluster and outage: Pods spread
// over Nodes kwok nodes (zones a, b, c in turn), then Silent of them stop
// heartbeating; both managers run with --node-monitor-grace-period Grace,
// and monitor the healthy cluster for Monitor before the outage.
type NLWorkload struct {
	Nodes, Pods, Silent int
	Grace, Monitor      time.Duration
}

// ErrNLWorkload is returned for a workload that cannot run.
var ErrNLWorkload = errors.New("managerbench: invalid nodes workload")

// Validate checks the workload's sizes.
func (w NLWorkload) Validate() error {
	switch {
	case w.Nodes < 1 || w.Nodes > 255:
		return fmt.Errorf("%w: %d nodes (1 to 255)", ErrNLWorkload, w.Nodes)
	case w.Silent < 1 || w.Silent > w.Nodes:
		return fmt.Errorf("%w: %d silent nodes of %d", ErrNLWorkload, w.Silent, w.Nodes)
	case w.Pods < 0:
		return fmt.Errorf("%w: %d pods", ErrNLWorkload, w.Pods)
	case w.Grace <= 0 || w.Monitor < 0:
		return fmt.Errorf("%w: grace period %s, monitor %s", ErrNLWorkload, w.Grace, w.Monitor)
	}
	return nil
}

// SilentNodes are the indexes of the nodes that stop heartbeating,
// spread evenly over the nodes (and so over the zones).
func (w NLWorkload) SilentNodes() []int {
	out := make([]int, w.Silent)
	for i := range out {
		out[i] = i * w.Nodes / w.Silent
	}
	return out
}

// NodesResult is one run of the nodes benchmark: a manager with
// NodeLifecycleControllers on its own fresh cluster.
type NodesResult struct {
	Manager  string
	Run      int
	Workload NLWorkload
	Load     [2]LoadAvg

	Created  time.Duration // from the first pod create to the last create returned
	AllReady time.Duration // from the first pod create to every pod Ready (kwok)
	Synced   time.Duration // process start to its caches-synced log line
	// Healthy is the process sampled right after it synced and after
	// Monitor on the healthy cluster; Outage at the pause and once the
	// outage was fully handled.
	Healthy [2]Sample
	Outage  [2]Sample
	// The outage counts from the first PauseHeartbeat call; PauseTook is
	// how long the calls took for all the silent nodes.
	PauseTook             time.Duration
	FirstTaint, LastTaint time.Duration
	FirstNotReady         time.Duration
	LastNotReady          time.Duration
	SilentPods            int // pods on the silent nodes
	Wrong                 int // healthy nodes tainted by the end
}

// CPUShare is the process's CPU time over the wall time between two
// samples, in percent of one core.
func CPUShare(s [2]Sample) float64 {
	wall := s[1].At.Sub(s[0].At)
	if wall <= 0 {
		return 0
	}
	return 100 * float64(s[1].CPU-s[0].CPU) / float64(wall)
}

// runNodesAll runs the nodes benchmark: each run, each manager on a
// cluster of its own, the order alternating.
func (b *bench) runNodesAll(ctx context.Context, cfg Config, kcm, kube Manager, rep *Report) error {
	w := cfg.NLWorkload
	if err := w.Validate(); err != nil {
		return err
	}
	grace := "--node-monitor-grace-period=" + w.Grace.String()
	kcm.Controllers, kube.Controllers = NodeLifecycleControllers, NodeLifecycleControllers
	kcm.ExtraArgs = append(append([]string(nil), kcm.ExtraArgs...), grace)
	kube.ExtraArgs = append(append([]string(nil), kube.ExtraArgs...), grace)
	for run := range cfg.Runs {
		for _, m := range order([]Manager{kcm, kube}, run) {
			cfg.Log.Info().Str("manager", m.Label).Int("run", run+1).Int("nodes", w.Nodes).Int("pods", w.Pods).
				Int("silent", w.Silent).Stringer("grace", w.Grace).Msg("nodes benchmark")
			r := NodesResult{Manager: m.Label, Run: run + 1, Workload: w}
			err := b.withCluster(ctx, cfg, testenv.Options{}, func() error { return b.nodesScenario(ctx, m, &r) }, &r.Load)
			if err != nil {
				return err
			}
			cfg.Log.Info().Str("manager", m.Label).Stringer("last taint", r.LastTaint).
				Stringer("last pod not ready", r.LastNotReady).Int64("rss MiB", r.Outage[1].RSS>>20).Msg("nodes run done")
			rep.Nodes = append(rep.Nodes, r)
		}
	}
	return nil
}

// nodesScenario is one run on the cluster b holds.
func (b *bench) nodesScenario(ctx context.Context, m Manager, r *NodesResult) error {
	w := r.Workload
	rv, err := b.c.currentRV(ctx)
	if err != nil {
		return err
	}
	wctx, stopWatches := context.WithCancel(ctx)
	tr := newNLTracker()
	var wg sync.WaitGroup
	defer wg.Wait()
	defer stopWatches()
	startNLWatches(wctx, b.c, rv, tr, &wg)

	specs := esNodes(w.Nodes)
	if err := b.tc.AddNodes(ctx, specs...); err != nil {
		return err
	}
	if err := b.c.createNamespace(ctx, nlNamespace); err != nil {
		return err
	}
	tctx, cancel := context.WithTimeout(ctx, b.cfg.Timeout)
	defer cancel()
	began := time.Now()
	if err := createNLPods(tctx, b.c, w, specs); err != nil {
		return err
	}
	r.Created = time.Since(began)
	if err := tr.Wait(tctx, fmt.Sprintf("%d pods Ready", w.Pods), func(v NLView) bool { return v.ReadyPods() == w.Pods }); err != nil {
		return err
	}
	r.AllReady = time.Since(began)

	proc, err := b.start(m, fmt.Sprintf("nodes-%d", r.Run), b.cfg.QPS, b.cfg.Burst)
	if err != nil {
		return err
	}
	defer proc.Stop(10 * time.Second)
	if _, err := proc.WaitLine(tctx, m.SyncedLine()); err != nil {
		return fmt.Errorf("managerbench: %s: %w", m.Label, err)
	}
	r.Synced = time.Since(proc.Started)
	if r.Healthy[0], err = proc.Sample(); err != nil {
		return err
	}
	if err := sleep(ctx, proc, w.Monitor); err != nil {
		return err
	}
	if r.Healthy[1], err = proc.Sample(); err != nil {
		return err
	}

	silent := make([]string, 0, w.Silent)
	for _, i := range w.SilentNodes() {
		silent = append(silent, specs[i].Name)
	}
	tr.pause(silent)
	if r.Outage[0], err = proc.Sample(); err != nil {
		return err
	}
	paused := time.Now()
	for _, n := range silent {
		if err := b.tc.PauseHeartbeat(tctx, n); err != nil {
			return err
		}
	}
	r.PauseTook = time.Since(paused)
	if err := tr.Wait(tctx, "the silent nodes tainted and their pods not Ready", NLView.Done); err != nil {
		return fmt.Errorf("managerbench: %s: %w (%s)", m.Label, err, tr.Progress())
	}
	if r.Outage[1], err = proc.Sample(); err != nil {
		return err
	}
	t := tr.Times()
	r.FirstTaint, r.LastTaint = since(t.FirstTaint, paused), since(t.LastTaint, paused)
	r.FirstNotReady, r.LastNotReady = since(t.FirstNotReady, paused), since(t.LastNotReady, paused)
	tr.mu.Lock()
	r.SilentPods, _ = NLView{tr}.SilentPods()
	r.Wrong = NLView{tr}.WronglyTainted()
	tr.mu.Unlock()
	return proc.Stop(10 * time.Second)
}

// createNLPods creates the workload's pods, writers at a time, the i-th
// on node i mod len(nodes) (no scheduler: the harness binds them, kwok
// runs them).
func createNLPods(ctx context.Context, c *cluster, w NLWorkload, nodes []testenv.NodeSpec) error {
	g, gctx := errgroup.WithContext(ctx)
	g.SetLimit(writers)
	for i := range w.Pods {
		g.Go(func() error {
			p := esPod(nlNamespace, "nl", fmt.Sprintf("nl-%05d", i), nodes[i%len(nodes)].Name)
			if _, err := c.pods.InNamespace(nlNamespace).Create(gctx, p); err != nil {
				return fmt.Errorf("managerbench: create pod %s: %w", p.Name, err)
			}
			return nil
		})
	}
	return g.Wait()
}

// startNLWatches feeds tr from watches of nodes and pods after rv until
// ctx ends; a watch that fails ends tr's waits with its error.
func startNLWatches(ctx context.Context, c *cluster, rv string, tr *nlTracker, wg *sync.WaitGroup) {
	run := func(f func() error) { tr.goWatch(wg, f) }
	run(func() error {
		return watchEvents(ctx, rest.NewResources(c.client, rest.Nodes, decode.Typed[api.Node]()), rv, tr.observeNode)
	})
	run(func() error {
		return watchEvents(ctx, rest.NewResources(c.client, rest.Pods, decode.Typed[api.Pod]()), rv, tr.observePod)
	})
}
