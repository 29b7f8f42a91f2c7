package managerbench

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"
)

// SyncResult is one run of the sync benchmark: a manager started on the
// populated cluster, until it has synced its caches and shown that it
// acts, then left to settle.
type SyncResult struct {
	Manager string
	Run     int
	// LogSynced is when the manager's own "caches synced" line was last
	// printed, counted from the process start (kcm prints it once;
	// kube-controller-manager once per controller, so the last one is
	// when every controller's caches had synced). Zero if never printed.
	LogSynced     time.Duration
	LogSyncedSeen int
	// Probe is when the pod of the probe Deployment appeared, counted from
	// the process start: the same criterion for both managers — caches
	// synced, workers running, and the Deployment and ReplicaSet
	// controllers have each acted once.
	Probe time.Duration
	// GCSynced is when the garbage collector printed that its resource
	// monitors had synced (Manager.GCSyncedLine), counted from the process
	// start; zero when it does not run.
	GCSynced time.Duration
	// AtProbe is memory and CPU at the probe or, when the garbage
	// collector runs, once its monitors have synced, whichever is later:
	// every cache synced.
	AtProbe Sample
	// Heap is kcm's heap profile (--profiling's /debug/pprof/heap), read
	// right after the probe's sample, as of the last collection then;
	// HeapSettled is read after the settle period's sample, with a
	// collection forced first (gc=1): the exact live heap. Both are nil
	// for kube-controller-manager, which runs here without the kubeconfigs
	// its port would need to authorize anyone (see the package doc).
	Heap        *HeapProfile
	HeapSettled *HeapProfile
	Settled     Sample // after the settle period
	// GoHeap holds GoHeapMetrics from kcm's /metrics after the settle
	// period (none for kube-controller-manager, for the same reason).
	GoHeap map[string]float64
	// Writes counts watch events on the populated Deployments, ReplicaSets
	// and pods while the manager ran: its writes to a settled cluster.
	Writes map[string]int
}

// runSync measures one manager on the populated cluster.
func (b *bench) runSync(ctx context.Context, m Manager, run int) (SyncResult, error) {
	r := SyncResult{Manager: m.Label, Run: run}
	ns := fmt.Sprintf("probe-sync-%d-%s", run, slug(m.Label))
	rv, err := b.c.probeNamespace(ctx, ns)
	if err != nil {
		return r, err
	}
	wctx, stopWatches := context.WithCancel(ctx)
	defer stopWatches()
	pods := startPodCounter(wctx, b.c, ns, rv)
	changes := startChangeCounter(wctx, b.c, rv, func(ns string) bool { return strings.HasPrefix(ns, benchPrefix) })

	proc, err := b.start(m, fmt.Sprintf("sync-%d", run), b.cfg.QPS, b.cfg.Burst)
	if err != nil {
		return r, err
	}
	defer proc.Stop(10 * time.Second)
	pctx, cancel := context.WithTimeout(ctx, b.cfg.Timeout)
	defer cancel()
	_, at, err := pods.Wait(pctx, "probe", 1)
	if err != nil {
		return r, fmt.Errorf("managerbench: %s: the probe pod: %w", m.Label, err)
	}
	r.Probe = at.Sub(proc.Started)
	if line := m.GCSyncedLine(); line != "" {
		// The first sample waits for the garbage collector's monitors
		// too: until then a manager has not synced all its caches.
		mark, err := proc.WaitLine(pctx, line)
		if err != nil {
			return r, fmt.Errorf("managerbench: %s: the garbage collector's monitors: %w", m.Label, err)
		}
		r.GCSynced = mark.First.Sub(proc.Started)
	}
	if r.AtProbe, err = proc.Sample(); err != nil {
		return r, err
	}
	if m.Kind == KCM {
		hp, err := fetchHeapProfile(ctx, proc.ClientTLS, proc.HeapURL, filepath.Join(b.dir, fmt.Sprintf("sync-%d-%s-heap.txt", run, slug(m.Label))))
		if err != nil {
			return r, err
		}
		r.Heap = &hp
	}
	if err := sleep(ctx, proc, b.cfg.Settle); err != nil {
		return r, err
	}
	if r.Settled, err = proc.Sample(); err != nil {
		return r, err
	}
	if m.Kind == KCM {
		if r.GoHeap, err = scrapeGoHeap(ctx, proc.ClientTLS, proc.MetricsURL); err != nil {
			return r, err
		}
		hp, err := fetchHeapProfile(ctx, proc.ClientTLS, proc.HeapURL+"&gc=1",
			filepath.Join(b.dir, fmt.Sprintf("sync-%d-%s-heap-settled.txt", run, slug(m.Label))))
		if err != nil {
			return r, err
		}
		r.HeapSettled = &hp
	}
	if lm := proc.Log.Marks(m.SyncedLine()); lm.Count > 0 {
		r.LogSynced, r.LogSyncedSeen = lm.Last.Sub(proc.Started), lm.Count
	}
	if err := proc.Stop(10 * time.Second); err != nil {
		return r, err
	}
	if r.Writes, err = changes.Stop(); err != nil {
		return r, err
	}
	return r, nil
}

// start runs m against the bench cluster with the given QPS and burst,
// its log under the work directory.
func (b *bench) start(m Manager, what string, qps, burst int) (*Proc, error) {
	port, err := freePort()
	if err != nil {
		return nil, err
	}
	base := fmt.Sprintf("%s-%s", what, slug(m.Label))
	certDir := filepath.Join(b.dir, base+"-certs")
	if err := os.MkdirAll(certDir, 0o700); err != nil {
		return nil, fmt.Errorf("managerbench: %w", err)
	}
	watch := []string{m.SyncedLine()}
	if l := m.GCSyncedLine(); l != "" {
		watch = append(watch, l)
	}
	p, err := StartProc(m.Label, m.Binary, m.Args(b.c.kubeconfig, port, certDir, qps, burst),
		filepath.Join(b.dir, base+".log"), watch...)
	if err != nil {
		return nil, err
	}
	p.MetricsURL = fmt.Sprintf("https://127.0.0.1:%d/metrics", port)
	p.HeapURL = fmt.Sprintf("https://127.0.0.1:%d/debug/pprof/heap?debug=1", port)
	p.ClientTLS = b.c.scrapeTLS
	return p, nil
}

// sleep waits d unless ctx ends or the process exits first. The settle
// period is part of what is measured (memory and CPU after a quiet
// while), not a wait for some condition.
func sleep(ctx context.Context, proc *Proc, d time.Duration) error {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-ctx.Done():
		return ctx.Err()
	case <-proc.Exited():
		return proc.exitErr()
	case <-t.C:
		return nil
	}
}

// slug makes a label usable in object and file names: lower-case
// letters, digits and single dashes.
func slug(s string) string {
	var b strings.Builder
	dash := true
	for _, r := range strings.ToLower(s) {
		if (r >= 'a' && r <= 'z') || (r >= '0' && r <= '9') {
			b.WriteRune(r)
			dash = false
		} else if !dash {
			b.WriteByte('-')
			dash = true
		}
	}
	return strings.TrimSuffix(b.String(), "-")
}
