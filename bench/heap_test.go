package bench_test

import (
	"context"
	"runtime"
	"testing"
	"time"

	"github.com/kcmlab/kcm/bench"
)

// heapPods is how many pods TestHeapPerPod caches: enough for the tables
// of shared values to be a small part, few enough for a test.
const heapPods = 3000

// TestHeapPerPod pins the memory claim of the typed cache (issue 13): a
// synced informer.For[api.Pod] holds at most half the live heap per pod
// of client-go's informer with managedFields stripped. Heap bytes after a
// collection do not depend on the machine's load, so the check is
// deterministic; the margin is generous (measured here: 0.41, one-time
// costs such as the decoders' caches included; 0.39 at 10k pods in
// RESULTS.md).
func TestHeapPerPod(t *testing.T) {
	srv := server(heapPods, 0)
	perPod := map[string]float64{}
	for _, e := range engines(t, srv.URL) {
		switch e.Name() {
		case bench.KCMTyped, bench.ClientGoStrip:
			perPod[e.Name()] = steadyHeapPerPod(t, e, heapPods)
		}
	}
	typed, cg := perPod[bench.KCMTyped], perPod[bench.ClientGoStrip]
	t.Logf("heap per pod: kcm-typed %.0f B, client-go-strip %.0f B: %.2f×", typed, cg, typed/cg)
	if typed > 0.5*cg {
		t.Errorf("kcm-typed holds %.0f B per pod, %.2f× client-go-strip's %.0f B; the target is ≤ 0.5×", typed, typed/cg, cg)
	}
}

// steadyHeapPerPod syncs e over n pods and returns the live heap it holds
// per pod (the heap before it started subtracted).
func steadyHeapPerPod(t *testing.T, e bench.Engine, n int) float64 {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	base := bench.LiveHeap()
	c := bench.NewCounter(n, 0)
	r, err := e.Start(c)
	if err != nil {
		t.Fatal(err)
	}
	defer r.Stop()
	if err := bench.WaitSynced(ctx, r, c); err != nil {
		t.Fatal(err)
	}
	held := bench.LiveHeap()
	runtime.KeepAlive(r)
	return (float64(held) - float64(base)) / float64(n)
}
