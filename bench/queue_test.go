package bench_test

import (
	"fmt"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/kcmlab/kcm/bench"
)

// queueEngines are the queues compared, in table order.
var queueEngines = []string{bench.KCM, bench.ClientGo}

// queueKeys are distinct keys shaped like controller keys; benchmarks
// take key i&keyMask.
const keyMask = 1<<20 - 1

var queueKeys = sync.OnceValue(func() []string {
	keys := make([]string, keyMask+1)
	for i := range keys {
		keys[i] = fmt.Sprintf("team-%d-prod/app-%d-7c9d8f6b5-%05d", i%50, i%18, i)
	}
	return keys
})

// BenchmarkQueue compares the work queues.
//
//   - AddGetDone/workers=W: one producer adds distinct keys while W
//     workers Get and Done them; ns/op is per key, through the drain.
//   - Parallel: GOMAXPROCS goroutines each Add a key, Get one, Done it.
//   - AddAfter/new: delay distinct keys by an hour (the heap grows).
//   - AddAfter/repeat: delay the same 1000 keys again and again (a steady
//     population, as a controller's retries are); allocs/op is the figure.
//   - Controller: the shape of a controller under an informer: 4 producer
//     goroutines (event handlers) add keys drawn from a fixed population of
//     10 000 objects while 4 workers Get and Done them, so duplicates of
//     pending keys and adds of keys a worker holds happen all the time;
//     ns/op is per Add, through the drain.
//   - Retry: the Controller shape where every 8th key a worker takes
//     fails (AddRateLimited, the default controller rate limiter) and the
//     others succeed (Forget), so the delay heap, its timer and the rate
//     limiter work beside the queue.
//
// Every shape also reports cpu-ns/op: the process's CPU time (all threads:
// the queue's own goroutine and the runtime's included) per op, which the
// machine's other load stretches less than wall time.
func BenchmarkQueue(b *testing.B) {
	keys := queueKeys()
	for _, w := range []int{1, 4, 16} {
		b.Run(fmt.Sprintf("AddGetDone/workers=%d", w), func(b *testing.B) {
			for _, engine := range queueEngines {
				b.Run(engine, func(b *testing.B) { benchAddGetDone(b, bench.Queues()[engine](), w, keys) })
			}
		})
	}
	for _, shape := range []struct {
		name      string
		failEvery int
	}{{"Controller", 0}, {"Retry", 8}} {
		b.Run(shape.name, func(b *testing.B) {
			for _, engine := range queueEngines {
				b.Run(engine, func(b *testing.B) {
					benchController(b, bench.Queues()[engine](), keys[:controllerKeys], shape.failEvery)
				})
			}
		})
	}
	b.Run("Parallel", func(b *testing.B) {
		for _, engine := range queueEngines {
			b.Run(engine, func(b *testing.B) { benchQueueParallel(b, bench.Queues()[engine](), keys) })
		}
	})
	for _, mode := range []struct {
		name string
		mask int
	}{{"new", keyMask}, {"repeat", 1023}} {
		b.Run("AddAfter/"+mode.name, func(b *testing.B) {
			for _, engine := range queueEngines {
				b.Run(engine, func(b *testing.B) {
					q := bench.Queues()[engine]()
					defer q.ShutDown()
					b.ReportAllocs()
					b.ResetTimer()
					cpu := startCPU()
					for i := range b.N {
						q.AddAfter(keys[i&mode.mask], time.Hour)
					}
					cpu.report(b)
					b.StopTimer()
				})
			}
		})
	}
}

func benchAddGetDone(b *testing.B, q bench.Queue, workers int, keys []string) {
	var got atomic.Int64
	var wg sync.WaitGroup
	for range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			n := int64(0)
			for {
				k, ok := q.Get()
				if !ok {
					got.Add(n)
					return
				}
				q.Done(k)
				n++
			}
		}()
	}
	b.ReportAllocs()
	b.ResetTimer()
	cpu := startCPU()
	for i := range b.N {
		q.Add(keys[i&keyMask])
	}
	q.ShutDown()
	wg.Wait()
	cpu.report(b)
	b.StopTimer()
	if got.Load() == 0 {
		b.Fatal("no key was handed out")
	}
}

func benchQueueParallel(b *testing.B, q bench.Queue, keys []string) {
	defer q.ShutDown()
	var seq atomic.Int64
	b.ReportAllocs()
	b.ResetTimer()
	cpu := startCPU()
	defer cpu.report(b)
	b.RunParallel(func(pb *testing.PB) {
		base := int(seq.Add(1)) << 16
		for i := 0; pb.Next(); i++ {
			q.Add(keys[(base+i&0xffff)&keyMask])
			k, ok := q.Get()
			if !ok {
				b.Error("queue shut down early")
				return
			}
			q.Done(k)
		}
	})
}

// cpuStart is the process CPU time at the start of a timed loop.
type cpuStart time.Duration

func startCPU() cpuStart { return cpuStart(bench.CPUTime()) }

// report records the CPU time since start per op, in ns.
func (c cpuStart) report(b *testing.B) {
	b.ReportMetric(float64(bench.CPUTime()-time.Duration(c))/float64(b.N), "cpu-ns/op")
}

// controllerKeys is the object population of the Controller and Retry
// shapes; controllerProducers and controllerWorkers their goroutines.
const (
	controllerKeys      = 10_000
	controllerProducers = 4
	controllerWorkers   = 4
)

// benchController runs the Controller shape (failEvery 0) or the Retry
// shape: b.N adds in all, spread over the producers, each producer walking
// the population with its own stride so that the four hit the same keys in
// different orders.
func benchController(b *testing.B, q bench.Queue, keys []string, failEvery int) {
	var handed atomic.Int64
	var workers sync.WaitGroup
	for range controllerWorkers {
		workers.Add(1)
		go func() {
			defer workers.Done()
			n := 0
			for {
				k, ok := q.Get()
				if !ok {
					handed.Add(int64(n))
					return
				}
				n++
				if failEvery > 0 && n%failEvery == 0 {
					q.AddRateLimited(k)
				} else if failEvery > 0 {
					q.Forget(k)
				}
				q.Done(k)
			}
		}()
	}
	b.ReportAllocs()
	b.ResetTimer()
	cpu := startCPU()
	var producers sync.WaitGroup
	for p := range controllerProducers {
		producers.Add(1)
		go func() {
			defer producers.Done()
			stride := []int{1, 7, 13, 31}[p]
			i := p * 2500
			for j := p; j < b.N; j += controllerProducers {
				q.Add(keys[i])
				i += stride
				if i >= len(keys) {
					i -= len(keys)
				}
			}
		}()
	}
	producers.Wait()
	q.ShutDown()
	workers.Wait()
	cpu.report(b)
	b.StopTimer()
	if handed.Load() == 0 {
		b.Fatal("no key was handed out")
	}
	// How many adds a worker saw: the rest were merged into a pending key.
	b.ReportMetric(float64(handed.Load())/float64(b.N), "gets/add")
}
