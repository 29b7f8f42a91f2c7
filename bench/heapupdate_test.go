package bench_test

import (
	"context"
	"fmt"
	"runtime"
	"testing"

	"github.com/kcmlab/kcm/bench"
)

// The shape of BenchmarkHeapUpdated: every pod is updated twice through
// the watch, the second update relabelling it (podgen's Relabel).
const (
	updatedPods   = 10000
	updatedEvents = 2 * updatedPods
)

// BenchmarkHeapUpdated: the live heap an informer holds per pod once
// synced ("synced-B/pod") and after a burst of updates ("B/pod"): every
// pod changed twice — a container restart, then another restart that
// also relabels it — as the watch delivers them. A cache whose savings
// rest on sharing what siblings have in common must keep them when the
// objects change: updates arrive one pod at a time, in no useful order.
func BenchmarkHeapUpdated(b *testing.B) {
	srv := relabeledServer(updatedPods, updatedEvents)
	b.Run(fmt.Sprintf("pods=%d/events=%d", updatedPods, updatedEvents), func(b *testing.B) {
		for _, e := range engines(b, srv.URL) {
			b.Run(e.Name(), func(b *testing.B) {
				var synced, updated float64
				for range b.N {
					s, u := heapAfterUpdates(b, srv, e, updatedPods, updatedEvents)
					synced += s
					updated += u
				}
				b.ReportMetric(updated/float64(b.N), "B/pod")
				b.ReportMetric(synced/float64(b.N), "synced-B/pod")
			})
		}
	})
}

// heapAfterUpdates syncs e over the server's pods, then releases the
// server's events and waits until e's handler saw every one, and returns
// the live heap e holds per pod at both moments (the live heap before it
// started subtracted).
func heapAfterUpdates(tb testing.TB, srv *served, e bench.Engine, pods, events int) (synced, updated float64) {
	tb.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), benchTimeout)
	defer cancel()
	base := bench.LiveHeap()
	c := bench.NewCounter(pods, events)
	r, err := e.Start(c)
	if err != nil {
		tb.Fatal(err)
	}
	defer r.Stop()
	if err := bench.WaitSynced(ctx, r, c); err != nil {
		tb.Fatal(err)
	}
	held := bench.LiveHeap()
	select {
	case srv.gate <- struct{}{}:
	case <-ctx.Done():
		tb.Fatal("the watch never reached the server")
	}
	if err := bench.WaitUpdates(ctx, c); err != nil {
		tb.Fatal(err)
	}
	after := bench.LiveHeap()
	runtime.KeepAlive(r)
	return (float64(held) - float64(base)) / float64(pods), (float64(after) - float64(base)) / float64(pods)
}

// TestRawHeapPerPod pins the memory claim of the RawObject cache (issue
// 13): a synced informer.ForRaw holds at most 0.4× the live heap per pod
// of client-go's informer with managedFields stripped, and still does
// after every pod was updated twice through the watch, the second update
// relabelling it. Heap bytes after a collection do not depend on the
// machine's load, so the check is deterministic (to a few bytes per pod).
func TestRawHeapPerPod(t *testing.T) {
	srv := relabeledServer(heapPods, heapEvents)
	type figures struct{ synced, updated float64 }
	perPod := map[string]figures{}
	for _, e := range engines(t, srv.URL) {
		switch e.Name() {
		case bench.KCM, bench.ClientGoStrip:
			s, u := heapAfterUpdates(t, srv, e, heapPods, heapEvents)
			perPod[e.Name()] = figures{s, u}
		}
	}
	raw, cg := perPod[bench.KCM], perPod[bench.ClientGoStrip]
	for _, c := range []struct {
		when    string
		raw, cg float64
	}{{"synced", raw.synced, cg.synced}, {"after the updates", raw.updated, cg.updated}} {
		t.Logf("heap per pod %s: kcm %.0f B, client-go-strip %.0f B: %.2f×", c.when, c.raw, c.cg, c.raw/c.cg)
		if c.raw > 0.4*c.cg {
			t.Errorf("%s kcm (RawObject) holds %.0f B per pod, %.2f× client-go-strip's %.0f B; the target is ≤ 0.4×",
				c.when, c.raw, c.raw/c.cg, c.cg)
		}
	}
}
