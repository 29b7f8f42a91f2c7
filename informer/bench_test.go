package informer_test

// Engine benchmarks: LIST + sync, watch throughput and heap per cached pod,
// each for the RawObject cache and the typed Pod cache (both stripped of
// managedFields, the Factory's default), over podgen's loopback apiserver.
// They never touch the shared test cluster.
//
//	go test ./informer -run '^$' -bench . -benchtime 3x

import (
	"context"
	"fmt"
	"runtime"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/kcmlab/kcm/informer"
	"github.com/kcmlab/kcm/internal/testing/podgen"
	"github.com/kcmlab/kcm/kube/api"
	"github.com/kcmlab/kcm/kube/rest"
	"github.com/kcmlab/kcm/processor"
)

// processCPU returns the CPU time (user + system, all threads) the process
// used so far. On a shared machine CPU time per operation is a steadier
// figure than wall time; note that it includes the loopback server's work.
func processCPU() time.Duration {
	var ru syscall.Rusage
	_ = syscall.Getrusage(syscall.RUSAGE_SELF, &ru)
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// cache is one way of caching pods under test.
type cache struct {
	name string
	// start runs an informer for pods against url and returns once its
	// initial list has been applied and handed to h.
	start func(b *testing.B, url string, h *counters) *running
}

var caches = []cache{
	{"raw", func(b *testing.B, url string, h *counters) *running {
		return startInformer(b, url, informer.ForRaw, h)
	}},
	{"typed", func(b *testing.B, url string, h *counters) *running {
		return startInformer(b, url, informer.For[api.Pod], h)
	}},
}

// counters are what the benchmark's handler counts; each channel is
// closed when its count reaches the wanted number.
type counters struct {
	adds, updates         atomic.Int64
	wantAdds, wantUpdates int64
	added, updated        chan struct{}
}

func newCounters(wantAdds, wantUpdates int) *counters {
	h := &counters{wantAdds: int64(wantAdds), wantUpdates: int64(wantUpdates),
		added: make(chan struct{}), updated: make(chan struct{})}
	if wantAdds == 0 {
		close(h.added)
	}
	return h
}

// running is a started informer; stop shuts it down and waits.
type running struct {
	stop func()
	keep any // the informer, kept reachable for heap measurements
}

func startInformer[T api.Object](b *testing.B, url string, get func(*informer.Factory, rest.Resource) *informer.Informer[T], h *counters) *running {
	b.Helper()
	client, err := rest.NewClient(&rest.Config{Host: url, QPS: -1})
	if err != nil {
		b.Fatal(err)
	}
	f := informer.NewFactory(client, informer.FactoryOptions{})
	inf := get(f, rest.Pods)
	_, err = inf.AddEventHandler(processor.HandlerFuncs[T]{
		AddFunc: func(T, bool) {
			if h.adds.Add(1) == h.wantAdds {
				close(h.added)
			}
		},
		UpdateFunc: func(_, _ T) {
			if h.updates.Add(1) == h.wantUpdates {
				close(h.updated)
			}
		},
	}, processor.HandlerOptions{Name: "count"})
	if err != nil {
		b.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	f.Start(ctx)
	// Synced: the handler saw every pod, then HasSynced turns true (it
	// latches when the batch holding the last item has been applied, just
	// after the handler was given it). Poll finely: WaitForCacheSync's
	// 100 ms period would dominate a small sync.
	select {
	case <-h.added:
	case <-ctx.Done():
		b.Fatalf("informer saw %d adds of %d: %v", h.adds.Load(), h.wantAdds, ctx.Err())
	}
	for !inf.HasSynced() {
		if ctx.Err() != nil {
			b.Fatalf("informer did not sync: %v", ctx.Err())
		}
		time.Sleep(100 * time.Microsecond)
	}
	return &running{keep: inf, stop: func() { cancel(); f.Shutdown() }}
}

// servers hands out one podgen server per size, built on first use, so a
// -bench filter that skips a size never pays for generating it.
type servers struct {
	m    map[podgen.ServerOptions]*podgen.Server
	gate chan struct{}
}

func newServers() *servers {
	return &servers{m: map[podgen.ServerOptions]*podgen.Server{}, gate: make(chan struct{})}
}

func (s *servers) get(o podgen.ServerOptions) *podgen.Server {
	if srv, ok := s.m[o]; ok {
		return srv
	}
	srv := podgen.NewServer(o)
	s.m[o] = srv
	return srv
}

func (s *servers) close() {
	for _, srv := range s.m {
		srv.Close()
	}
}

// BenchmarkListSync times an informer from Start to HasSynced over a
// paginated LIST (pages of 500) of n pods.
func BenchmarkListSync(b *testing.B) {
	srvs := newServers()
	defer srvs.close()
	for _, n := range []int{1000, 10000, 50000} {
		for _, c := range caches {
			b.Run(fmt.Sprintf("n=%d/%s", n, c.name), func(b *testing.B) {
				srv := srvs.get(podgen.ServerOptions{Pods: n})
				var cpu time.Duration
				b.ResetTimer()
				for range b.N {
					h := newCounters(n, 0)
					cpu0 := processCPU()
					r := c.start(b, srv.URL, h)
					cpu += processCPU() - cpu0
					b.StopTimer()
					r.stop()
					if got := h.adds.Load(); got != int64(n) {
						b.Fatalf("handler saw %d adds, want %d", got, n)
					}
					b.StartTimer()
				}
				b.ReportMetric(float64(n)*float64(b.N)/b.Elapsed().Seconds(), "objects/s")
				b.ReportMetric(float64(cpu.Microseconds())/1000/float64(b.N), "cpu-ms/op")
			})
		}
	}
}

// BenchmarkWatchThroughput times events MODIFIED events through
// reflector → fifo → store → handler, after an untimed sync of 1000 pods
// (each pod is modified events/1000 times).
func BenchmarkWatchThroughput(b *testing.B) {
	const pods, events = 1000, 20000
	srvs := newServers()
	defer srvs.close()
	for _, c := range caches {
		b.Run(c.name, func(b *testing.B) {
			srv := srvs.get(podgen.ServerOptions{Pods: pods, Events: events, EventsGate: srvs.gate})
			var cpu time.Duration
			b.ResetTimer()
			for range b.N {
				b.StopTimer()
				h := newCounters(pods, events)
				r := c.start(b, srv.URL, h)
				b.StartTimer()
				cpu0 := processCPU()
				srvs.gate <- struct{}{} // the watch is waiting: release its events
				<-h.updated
				cpu += processCPU() - cpu0
				b.StopTimer()
				r.stop()
				b.StartTimer()
			}
			b.ReportMetric(float64(events)*float64(b.N)/b.Elapsed().Seconds(), "events/s")
			b.ReportMetric(float64(cpu.Nanoseconds())/float64(events*b.N), "cpu-ns/event")
		})
	}
}

// liveHeap collects garbage and returns the bytes of live heap objects.
func liveHeap() uint64 {
	runtime.GC()
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	return ms.HeapAlloc
}

// BenchmarkHeapPerPod syncs 50000 pods and reports the live heap each
// cached pod costs (the heap of an informer synced over an empty
// collection subtracted), and the peak heap during the sync over the
// steady heap after it (both above the heap before the informer started).
// The server's bytes live off the Go heap, so they count in neither.
func BenchmarkHeapPerPod(b *testing.B) {
	const n = 50000
	srvs := newServers()
	defer srvs.close()
	for _, c := range caches {
		b.Run(c.name, func(b *testing.B) {
			empty, full := srvs.get(podgen.ServerOptions{}), srvs.get(podgen.ServerOptions{Pods: n})
			base := liveHeap()
			r := c.start(b, empty.URL, newCounters(0, 0))
			overhead := int64(liveHeap()) - int64(base)
			runtime.KeepAlive(r.keep)
			r.stop()
			var perPod, ratio, steadyMB float64
			b.ResetTimer()
			for range b.N {
				b.StopTimer()
				before := liveHeap()
				b.StartTimer()
				stopSampling := informer.HeapPeak()
				r := c.start(b, full.URL, newCounters(n, 0))
				peak := stopSampling()
				b.StopTimer()
				steady := liveHeap()
				runtime.KeepAlive(r.keep)
				r.stop()
				grown := float64(steady) - float64(before)
				perPod += (grown - float64(overhead)) / n
				ratio += (float64(peak) - float64(before)) / grown
				steadyMB += grown / (1 << 20)
				b.StartTimer()
			}
			b.ReportMetric(perPod/float64(b.N), "B/pod")
			b.ReportMetric(ratio/float64(b.N), "peak/steady")
			b.ReportMetric(steadyMB/float64(b.N), "steady-MiB")
		})
	}
}
