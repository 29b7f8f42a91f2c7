package bench_test

import (
	"context"
	"fmt"
	"runtime"
	"testing"
	"time"

	"github.com/kcmlab/kcm/bench"
)

// benchTimeout bounds one sync or one event stream.
const benchTimeout = 5 * time.Minute

func sizes(b *testing.B) []int {
	b.Helper()
	s, err := bench.Sizes()
	if err != nil {
		b.Fatal(err)
	}
	return s
}

// BenchmarkSync: a fresh informer lists n pods and fills its cache until
// HasSynced and its handler has seen every pod. One op is one whole sync;
// objects/s is n per op.
func BenchmarkSync(b *testing.B) {
	for _, n := range sizes(b) {
		b.Run(fmt.Sprintf("pods=%d", n), func(b *testing.B) {
			srv := server(n, 0)
			for _, e := range engines(b, srv.URL) {
				b.Run(e.Name(), func(b *testing.B) { benchSync(b, e, n) })
			}
			b.Run(bench.Floor, func(b *testing.B) { benchFloorList(b, srv.URL, n, true) })
			b.Run(bench.FloorRead, func(b *testing.B) { benchFloorList(b, srv.URL, n, false) })
		})
	}
}

func benchSync(b *testing.B, e bench.Engine, n int) {
	b.ReportAllocs()
	var took, cpu time.Duration
	for range b.N {
		b.StopTimer()
		runtime.GC() // the last op's cache is garbage now: do not bill it to this one
		c := bench.NewCounter(n, 0)
		ctx, cancel := context.WithTimeout(context.Background(), benchTimeout)
		b.StartTimer()
		start, cpu0 := time.Now(), bench.CPUTime()
		r, err := e.Start(c)
		if err != nil {
			b.Fatal(err)
		}
		err = bench.WaitSynced(ctx, r, c)
		took += time.Since(start)
		cpu += bench.CPUTime() - cpu0
		b.StopTimer()
		cancel()
		if err == nil && r.Len() != n {
			err = fmt.Errorf("cached %d pods, want %d", r.Len(), n)
		}
		r.Stop()
		if err != nil {
			b.Fatal(err)
		}
		b.StartTimer()
	}
	reportRate(b, n, took, cpu, "objects/s")
}

// reportRate reports per items per op: the rate over wall time and the CPU
// time per op (all threads of the process, the in-process server's
// included).
func reportRate(b *testing.B, items int, wall, cpu time.Duration, unit string) {
	b.ReportMetric(float64(items)*float64(b.N)/wall.Seconds(), unit)
	b.ReportMetric(cpu.Seconds()*1000/float64(b.N), "cpu-ms/op")
}

func benchFloorList(b *testing.B, host string, n int, scan bool) {
	b.ReportAllocs()
	f := bench.NewFloorClient(host)
	defer f.Close()
	start, cpu0 := time.Now(), bench.CPUTime()
	for range b.N {
		got, err := f.List(context.Background(), scan)
		if err != nil {
			b.Fatal(err)
		}
		if scan && got != n {
			b.Fatalf("scanned %d items, want %d", got, n)
		}
	}
	reportRate(b, n, time.Since(start), bench.CPUTime()-cpu0, "objects/s")
}

// Watch benchmark shape: events MODIFIED events over a cache of pods pods.
const (
	watchPods   = 10000
	watchEvents = 20000
)

// BenchmarkWatch: after a sync (not timed), the server releases a stream
// of MODIFIED events; one op is the whole stream, from release until the
// handler has seen the last event. events/s is the figure to compare.
func BenchmarkWatch(b *testing.B) {
	b.Run(fmt.Sprintf("pods=%d/events=%d", watchPods, watchEvents), func(b *testing.B) {
		srv := server(watchPods, watchEvents)
		for _, e := range engines(b, srv.URL) {
			b.Run(e.Name(), func(b *testing.B) { benchWatch(b, srv, e) })
		}
		b.Run(bench.Floor, func(b *testing.B) { benchFloorWatch(b, srv, true) })
		b.Run(bench.FloorRead, func(b *testing.B) { benchFloorWatch(b, srv, false) })
	})
}

func benchWatch(b *testing.B, srv *served, e bench.Engine) {
	b.ReportAllocs()
	var took, cpu time.Duration
	for range b.N {
		b.StopTimer()
		runtime.GC()
		ctx, cancel := context.WithTimeout(context.Background(), benchTimeout)
		c := bench.NewCounter(watchPods, watchEvents)
		r, err := e.Start(c)
		if err != nil {
			b.Fatal(err)
		}
		if err := bench.WaitSynced(ctx, r, c); err != nil {
			b.Fatal(err)
		}
		runtime.GC()
		b.StartTimer()
		select {
		case srv.gate <- struct{}{}: // blocks until the watch waits at the gate
		case <-ctx.Done():
			b.Fatal("the watch never reached the server")
		}
		start, cpu0 := time.Now(), bench.CPUTime()
		err = bench.WaitUpdates(ctx, c)
		took += c.LastUpdate().Sub(start)
		cpu += bench.CPUTime() - cpu0
		b.StopTimer()
		cancel()
		r.Stop()
		if err != nil {
			b.Fatal(err)
		}
		b.StartTimer()
	}
	reportRate(b, watchEvents, took, cpu, "events/s")
}

func benchFloorWatch(b *testing.B, srv *served, scan bool) {
	b.ReportAllocs()
	f := bench.NewFloorClient(srv.URL)
	defer f.Close()
	var took time.Duration
	release := func() { srv.gate <- struct{}{} }
	cpu0 := bench.CPUTime()
	for range b.N {
		d, err := f.Watch(context.Background(), srv.ListRV(), watchEvents, release, scan)
		if err != nil {
			b.Fatal(err)
		}
		took += d
	}
	reportRate(b, watchEvents, took, bench.CPUTime()-cpu0, "events/s")
}

// BenchmarkHeap: the live heap an informer holds once synced, per pod, and
// the peak during the sync over that steady heap. The heap before the
// informer starts (after a GC) is subtracted, so the figures are the
// informer's own: its cache, indexes, buffers and client. Sampling runs
// with GOGC=10 (see bench.HeapPeak), so op times here are not sync times.
func BenchmarkHeap(b *testing.B) {
	for _, n := range sizes(b) {
		b.Run(fmt.Sprintf("pods=%d", n), func(b *testing.B) {
			srv := server(n, 0)
			for _, e := range engines(b, srv.URL) {
				b.Run(e.Name(), func(b *testing.B) { benchHeap(b, e, n) })
			}
		})
	}
}

func benchHeap(b *testing.B, e bench.Engine, n int) {
	var steady, peakLive, peakInUse float64
	for range b.N {
		base := bench.LiveHeap()
		ctx, cancel := context.WithTimeout(context.Background(), benchTimeout)
		c := bench.NewCounter(n, 0)
		peak := bench.StartHeapPeak(time.Millisecond)
		r, err := e.Start(c)
		if err != nil {
			b.Fatal(err)
		}
		err = bench.WaitSynced(ctx, r, c)
		maxLive, maxInUse := peak.Stop()
		cancel()
		if err != nil {
			r.Stop()
			b.Fatal(err)
		}
		held := bench.LiveHeap()
		runtime.KeepAlive(r)
		r.Stop()
		s := float64(held) - float64(base)
		steady += s
		peakLive += (float64(max(maxLive, held)) - float64(base)) / s
		peakInUse += (float64(max(maxInUse, held)) - float64(base)) / s
	}
	N := float64(b.N)
	b.ReportMetric(steady/N/float64(n), "B/pod")
	b.ReportMetric(peakLive/N, "peak-live/steady")
	b.ReportMetric(peakInUse/N, "peak-inuse/steady")
}
