package informer

// BenchmarkRelistHeap measures what a relist costs in memory: an informer
// synced over n pods relists them (its watch answers 410 Gone) while the
// heap is sampled; peak/steady is the peak heap during the relist over the
// steady heap after the initial sync, both above the heap before the
// informer started, with the collector at GOGC=10 so that the peak is
// close to what is live. "unchanged": the relist lists every pod at the
// version the cache holds; "changed": every pod at a new version. atomic
// is the relist kcm does (one swap); atomic=false streams it into the
// store as kcm did before issue 27, on the same code otherwise.
//
//	go test ./informer -run '^$' -bench RelistHeap -benchtime 3x

import (
	"context"
	"fmt"
	"runtime"
	"runtime/debug"
	"runtime/metrics"
	"strconv"
	"sync/atomic"
	"testing"
	"time"

	"github.com/kcmlab/kcm/deltafifo"
	"github.com/kcmlab/kcm/internal/testing/podgen"
	"github.com/kcmlab/kcm/kube/api"
	"github.com/kcmlab/kcm/kube/api/decode"
	"github.com/kcmlab/kcm/kube/rest"
	"github.com/kcmlab/kcm/processor"
	"github.com/kcmlab/kcm/reflector"
)

// relistLW lists n pods decoded one by one from fresh JSON (as the REST
// client streams a LIST), at version 0 for the first list and at version
// v of each later one; its first watch ends with 410 Gone once gate is
// closed, later ones stay silent.
type relistLW struct {
	n       int
	v       int
	lists   atomic.Int32
	watches atomic.Int32
	codec   decode.Codec[*api.RawObject]
	gate    chan struct{}
}

func (l *relistLW) ListEach(_ context.Context, _ rest.ListOptions, fn func(*api.RawObject) error) (rest.ListMeta, error) {
	v := 0
	if l.lists.Add(1) > 1 {
		v = l.v
	}
	for i := range l.n {
		rv := strconv.Itoa(podgen.BaseResourceVersion + i + v*l.n)
		obj, err := l.codec.Decode(podgen.PodVersion(i, v, rv))
		if err != nil {
			return rest.ListMeta{}, err
		}
		if err := fn(obj); err != nil {
			return rest.ListMeta{}, err
		}
	}
	return rest.ListMeta{ResourceVersion: strconv.Itoa(podgen.BaseResourceVersion + (v+1)*l.n)}, nil
}

func (l *relistLW) Watch(ctx context.Context, o rest.WatchOptions) (reflector.Watch[*api.RawObject], error) {
	if o.SendInitialEvents != nil {
		return nil, fmt.Errorf("relistLW: %w", rest.ErrBadRequest)
	}
	if l.watches.Add(1) == 1 {
		return goneWatch{ctx: ctx, gate: l.gate}, nil
	}
	return &silentRawWatch{ctx: ctx}, nil
}

// goneWatch answers 410 Gone once gate is closed.
type goneWatch struct {
	ctx  context.Context
	gate chan struct{}
}

func (w goneWatch) Next() (rest.WatchEvent[*api.RawObject], error) {
	select {
	case <-w.gate:
	case <-w.ctx.Done():
		return rest.WatchEvent[*api.RawObject]{}, w.ctx.Err()
	}
	return rest.WatchEvent[*api.RawObject]{}, &rest.StatusError{Status: rest.Status{Code: 410, Reason: "Expired"}}
}
func (goneWatch) Close() error { return nil }

type silentRawWatch struct{ ctx context.Context }

func (w *silentRawWatch) Next() (rest.WatchEvent[*api.RawObject], error) {
	<-w.ctx.Done()
	return rest.WatchEvent[*api.RawObject]{}, w.ctx.Err()
}
func (w *silentRawWatch) Close() error { return nil }

func BenchmarkRelistHeap(b *testing.B) {
	const n = 20000
	// Collect at 10 % growth instead of 100 %: the relist makes garbage
	// (JSON, decoding), which at the default would let the heap reach
	// twice the live data whatever the design; at 10 % the peak is close
	// to what is live.
	defer debug.SetGCPercent(debug.SetGCPercent(10))
	for _, whole := range []bool{true, false} {
		for _, c := range []struct {
			name string
			v    int
		}{{"unchanged", 0}, {"changed", 1}} {
			b.Run(fmt.Sprintf("atomic=%v/%s", whole, c.name), func(b *testing.B) {
				var ratio float64
				for range b.N {
					ratio += relistPeakOverSteady(b, n, c.v, whole)
				}
				b.ReportMetric(ratio/float64(b.N), "peak/steady")
			})
		}
	}
}

// relistPeakOverSteady runs one informer over a relistLW and returns the
// relist's peak heap over the steady heap (both above the heap before).
// whole false streams the relist into the store instead (the FIFO
// without AtomicReplaces, as kcm did before), for comparison.
func relistPeakOverSteady(b *testing.B, n, v int, whole bool) float64 {
	b.Helper()
	gate := make(chan struct{}) // holds the relist until the steady heap is measured
	lw := &relistLW{n: n, v: v, codec: decode.StrippingManagedFields(decode.Raw()), gate: gate}
	before := heapLive()
	inf, err := New[*api.RawObject](lw, Options[*api.RawObject]{Name: "pods",
		Reflector: reflector.Options{Backoff: &reflector.Backoff{}}})
	if err != nil {
		b.Fatal(err)
	}
	var updates atomic.Int64
	relisted := make(chan struct{})
	synced := make(chan struct{})
	var adds atomic.Int64
	if _, err := inf.AddEventHandler(processor.HandlerFuncs[*api.RawObject]{
		AddFunc: func(*api.RawObject, bool) {
			if adds.Add(1) == int64(n) {
				close(synced)
			}
		},
		UpdateFunc: func(_, _ *api.RawObject) {
			if updates.Add(1) == int64(n) {
				close(relisted)
			}
		},
	}, processor.HandlerOptions{Name: "count"}); err != nil {
		b.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	inf.fifo = deltafifo.New(deltafifo.Options[*api.RawObject]{Known: knownObjects[*api.RawObject]{inf.store.View()},
		GatherReplaces: true, Bookmarks: true, AtomicReplaces: whole})
	inf.refl = reflector.New[*api.RawObject](lw, reflector.Sink[*api.RawObject](fifoSink[*api.RawObject]{f: inf.fifo}),
		reflector.Options{Name: "pods", Backoff: &reflector.Backoff{}, Logger: inf.log})
	done := make(chan struct{})
	go func() { defer close(done); _ = inf.Run(ctx) }()
	select {
	case <-synced:
	case <-ctx.Done():
		b.Fatal("no sync")
	}
	for !inf.HasSynced() {
		runtime.Gosched()
	}
	steady := heapLive()
	stop := HeapPeak()
	close(gate)
	select {
	case <-relisted:
	case <-ctx.Done():
		b.Fatal("no relist")
	}
	peak := stop()
	cancel()
	<-done
	runtime.KeepAlive(inf)
	return (float64(peak) - float64(before)) / (float64(steady) - float64(before))
}

func heapLive() uint64 {
	runtime.GC()
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	return ms.HeapAlloc
}

// HeapPeak samples the bytes in heap objects (live or not yet swept:
// what the heap holds right now) every 2 ms until the returned func is
// called, which returns the highest value seen. Exported for the external
// test package's benchmarks; it exists only in test builds.
func HeapPeak() (stop func() uint64) {
	done, out := make(chan struct{}), make(chan uint64)
	go func() {
		s := []metrics.Sample{{Name: "/memory/classes/heap/objects:bytes"}}
		var peak uint64
		t := time.NewTicker(2 * time.Millisecond)
		defer t.Stop()
		for {
			metrics.Read(s)
			peak = max(peak, s[0].Value.Uint64())
			select {
			case <-done:
				out <- peak
				return
			case <-t.C:
			}
		}
	}()
	return func() uint64 { close(done); return <-out }
}
