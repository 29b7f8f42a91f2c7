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
func BenchmarkQueue(b *testing.B) {
	keys := queueKeys()
	for _, w := range []int{1, 4, 16} {
		b.Run(fmt.Sprintf("AddGetDone/workers=%d", w), func(b *testing.B) {
			for _, engine := range queueEngines {
				b.Run(engine, func(b *testing.B) { benchAddGetDone(b, bench.Queues()[engine](), w, keys) })
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
					for i := range b.N {
						q.AddAfter(keys[i&mode.mask], time.Hour)
					}
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
	for i := range b.N {
		q.Add(keys[i&keyMask])
	}
	q.ShutDown()
	wg.Wait()
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
