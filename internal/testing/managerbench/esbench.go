package managerbench

import (
	"context"
	"fmt"
	"os/exec"
	"strings"
	"sync"
	"time"

	"github.com/kcmlab/kcm/kube/api"
	"github.com/kcmlab/kcm/kube/api/decode"
	"github.com/kcmlab/kcm/kube/rest"
	"github.com/kcmlab/kcm/testenv"
)

// EndpointsResult is one run of the endpoints benchmark: a manager with
// the endpoint controllers on its own fresh cluster of kwok nodes, while
// the workload's Services and pods arrive and become Ready, then during a
// rolling update of one Service's pods.
type EndpointsResult struct {
	Manager     string
	Run         int
	Controllers []string // the --controllers it ran with
	Slices      bool     // it runs an endpointslice-controller
	Workload    ESWorkload
	Nodes       int
	Load        [2]LoadAvg // before and after the run (cluster start to stop)

	// Probe is from the process start to the probe Service's Endpoints
	// (and slice) listing its one pod: caches synced, workers running.
	Probe   time.Duration
	AtProbe Sample
	// Fill counts from the first create request of the workload: when the
	// last create returned, when the last pod turned Ready (kwok), when
	// the last Endpoints object and slice were written (zero: none), and
	// when every Service's Endpoints (and slices) first listed all its pods
	// ready. The last writes are taken after the settle period, so a write
	// made after the state was complete counts.
	Created, LastReady, LastEndpoints, LastSlice, Converged time.Duration
	Fill                                                    WriteCounts // events during the fill and its settle period
	AfterFill                                               Sample      // after the fill's settle period

	// Rollout is the events of the rolled Service during its rolling
	// update and the settle period after it; RolloutTook from its first
	// create to its last old pod gone.
	Rollout     WriteCounts
	RolloutTook time.Duration
	AtEnd       Sample // after the rollout's settle period
}

// EndpointsLag is the time from the last pod turning Ready to the last
// Endpoints write; SliceLag the same for slices. ok is false when nothing
// was written.
func (r EndpointsResult) EndpointsLag() (time.Duration, bool) {
	return lag(r.LastEndpoints, r.LastReady)
}

// SliceLag is EndpointsLag for EndpointSlices.
func (r EndpointsResult) SliceLag() (time.Duration, bool) { return lag(r.LastSlice, r.LastReady) }

func lag(lastWrite, lastReady time.Duration) (time.Duration, bool) {
	if lastWrite == 0 {
		return 0, false
	}
	return lastWrite - lastReady, true
}

// kcmControllers is the endpoint controllers the kcm binary has, read
// from its --help.
func kcmControllers(ctx context.Context, bin string) ([]string, error) {
	all, err := kcmControllerList(ctx, bin)
	if err != nil {
		return nil, err
	}
	has := intersect(EndpointControllers, all)
	if !contains(has, EndpointsController) {
		return nil, fmt.Errorf("managerbench: %s has no %s (its --help lists %q)", bin, EndpointsController, all)
	}
	return has, nil
}

// kcmControllerList is every controller the kcm binary has, read from its
// --help.
func kcmControllerList(ctx context.Context, bin string) ([]string, error) {
	out, err := exec.CommandContext(ctx, bin, "--help").CombinedOutput()
	if err != nil {
		return nil, fmt.Errorf("managerbench: %s --help: %w", bin, err)
	}
	return KnownControllers(string(out)), nil
}

// runEndpoints measures manager m on a fresh cluster of its own.
func (b *bench) runEndpoints(ctx context.Context, cfg Config, m Manager, run int) (EndpointsResult, error) {
	w := cfg.ESWorkload
	r := EndpointsResult{Manager: m.Label, Run: run, Controllers: m.Controllers,
		Slices: contains(m.Controllers, EndpointSliceController), Workload: w, Nodes: w.Nodes()}
	opts := testenv.Options{APIServerFlags: []string{"--service-cluster-ip-range=" + esServiceCIDR}}
	err := b.withCluster(ctx, cfg, opts, func() error { return b.endpointsScenario(ctx, m, run, &r) }, &r.Load)
	return r, err
}

// endpointsScenario is runEndpoints on the cluster b holds.
func (b *bench) endpointsScenario(ctx context.Context, m Manager, run int, r *EndpointsResult) error {
	w := r.Workload
	nodes, rv, err := b.populateNodesAndNamespaces(ctx, r.Nodes, esPrefix, w.Namespaces(), esProbeNamespace)
	if err != nil {
		return err
	}
	wctx, stopWatches := context.WithCancel(ctx)
	tr := newESTracker(func(ns string) bool { return strings.HasPrefix(ns, esPrefix) })
	var wg sync.WaitGroup
	defer wg.Wait()
	defer stopWatches()
	startESWatches(wctx, b.c, rv, tr, &wg)

	es := newESClients(b.c)
	if _, err := es.services.InNamespace(esProbeNamespace).Create(ctx, esServiceObject(esProbeNamespace, "probe")); err != nil {
		return fmt.Errorf("managerbench: create the probe Service: %w", err)
	}
	if _, err := b.c.pods.InNamespace(esProbeNamespace).Create(ctx, esPod(esProbeNamespace, "probe", "probe-0", nodes[0])); err != nil {
		return fmt.Errorf("managerbench: create the probe pod: %w", err)
	}

	proc, err := b.start(m, fmt.Sprintf("endpoints-%d", run), b.cfg.QPS, b.cfg.Burst)
	if err != nil {
		return err
	}
	defer proc.Stop(10 * time.Second)
	tctx, cancel := context.WithTimeout(ctx, b.cfg.Timeout)
	defer cancel()
	probeKeys := []string{esProbeNamespace + "/probe"}
	if err := tr.Wait(tctx, "the probe Service's endpoints", func(v ESView) bool {
		return esConverged(v, probeKeys, 1, r.Slices)
	}); err != nil {
		return fmt.Errorf("managerbench: %s: %w", m.Label, err)
	}
	r.Probe = time.Since(proc.Started)
	if r.AtProbe, err = proc.Sample(); err != nil {
		return err
	}

	base, began := tr.Totals(), time.Now()
	if err := createESWorkload(tctx, b.c, es, w, nodes); err != nil {
		return err
	}
	r.Created = time.Since(began)
	keys := esServiceKeys(w)
	if err := tr.Wait(tctx, fmt.Sprintf("the endpoints of %d Services", len(keys)), func(v ESView) bool {
		return esConverged(v, keys, w.PodsPerService, r.Slices)
	}); err != nil {
		return fmt.Errorf("managerbench: %s: %w (%s)", m.Label, err, tr.Progress(keys, w.PodsPerService, r.Slices))
	}
	r.Converged = time.Since(began)
	if err := sleep(ctx, proc, b.cfg.Settle); err != nil {
		return err
	}
	t := tr.Times()
	r.LastReady, r.LastEndpoints, r.LastSlice = since(t.LastReady, began), since(t.LastEndpoints, began), since(t.LastSlice, began)
	r.Fill = tr.Totals().Sub(base)
	if r.AfterFill, err = proc.Sample(); err != nil {
		return err
	}

	ns, name := esServiceKey(0)
	key := ns + "/" + name
	before, rolled := tr.Service(key), time.Now()
	if err := rollout(tctx, b.c, tr, w, 0, nodes); err != nil {
		return fmt.Errorf("managerbench: %s: %w", m.Label, err)
	}
	r.RolloutTook = time.Since(rolled)
	if err := tr.Wait(tctx, "the rolled Service's endpoints", func(v ESView) bool {
		return esConverged(v, []string{key}, w.PodsPerService, r.Slices)
	}); err != nil {
		return fmt.Errorf("managerbench: %s: %w", m.Label, err)
	}
	if err := sleep(ctx, proc, b.cfg.Settle); err != nil {
		return err
	}
	r.Rollout = tr.Service(key).Sub(before)
	if r.AtEnd, err = proc.Sample(); err != nil {
		return err
	}
	return proc.Stop(10 * time.Second)
}

// since is t − from, or zero for a zero t (never happened).
func since(t, from time.Time) time.Duration {
	if t.IsZero() {
		return 0
	}
	return t.Sub(from)
}

// startESWatches feeds tr from watches of pods, Endpoints and
// EndpointSlices after rv until ctx ends; a watch that fails ends tr's
// waits with its error.
func startESWatches(ctx context.Context, c *cluster, rv string, tr *esTracker, wg *sync.WaitGroup) {
	run := func(f func() error) { tr.goWatch(wg, f) }
	run(func() error {
		return watchEvents(ctx, rest.NewResources(c.client, rest.Pods, decode.Typed[api.Pod]()), rv, tr.observePod)
	})
	run(func() error {
		return watchEvents(ctx, rest.NewResources(c.client, rest.Endpoints, decode.Typed[api.Endpoints]()), rv, tr.observeEndpoints)
	})
	run(func() error {
		return watchEvents(ctx, rest.NewResources(c.client, rest.EndpointSlices, decode.Typed[api.EndpointSlice]()), rv, tr.observeSlice)
	})
}
