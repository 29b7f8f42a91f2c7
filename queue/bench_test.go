package queue_test

import (
	"context"
	"fmt"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/kcmlab/kcm/clock"
	"github.com/kcmlab/kcm/queue"
)

// BenchmarkAddGetDone: one producer adds b.N distinct keys while W workers
// Get and Done them; ns/op is per key through the whole cycle.
func BenchmarkAddGetDone(b *testing.B) {
	for _, w := range []int{1, 2, 4, 16} {
		b.Run(fmt.Sprintf("workers=%d", w), func(b *testing.B) {
			q := queue.New(queue.Config[int]{})
			defer q.ShutDown()
			ctx := context.Background()
			var left atomic.Int64
			left.Store(int64(b.N))
			var wg sync.WaitGroup
			b.ReportAllocs()
			b.ResetTimer()
			for range w {
				wg.Add(1)
				go func() {
					defer wg.Done()
					for left.Add(-1) >= 0 {
						k, err := q.Get(ctx)
						if err != nil {
							b.Error(err)
							return
						}
						q.Done(k)
					}
				}()
			}
			for i := range b.N {
				q.Add(i)
			}
			wg.Wait()
		})
	}
}

// BenchmarkAddGetDoneParallel: every goroutine adds its own key, takes a
// key and finishes it, GOMAXPROCS goroutines at once.
func BenchmarkAddGetDoneParallel(b *testing.B) {
	q := queue.New(queue.Config[int64]{})
	defer q.ShutDown()
	ctx := context.Background()
	var ids atomic.Int64
	b.ReportAllocs()
	b.RunParallel(func(pb *testing.PB) {
		base := ids.Add(1) << 40
		for i := int64(0); pb.Next(); i++ {
			q.Add(base + i)
			k, err := q.Get(ctx)
			if err != nil {
				b.Error(err)
				return
			}
			q.Done(k)
		}
	})
}

// BenchmarkAddDuplicate: adding a key that is already pending.
func BenchmarkAddDuplicate(b *testing.B) {
	q := queue.New(queue.Config[string]{})
	defer q.ShutDown()
	q.Add("ns/name")
	b.ReportAllocs()
	b.Run("serial", func(b *testing.B) {
		for range b.N {
			q.Add("ns/name")
		}
	})
	b.Run("parallel", func(b *testing.B) {
		b.RunParallel(func(pb *testing.PB) {
			for pb.Next() {
				q.Add("ns/name")
			}
		})
	})
}

// BenchmarkAddAfter: ns and allocations per delayed add.
//   - new-keys: every call a new key, an hour ahead (heap and index grow to
//     65536 keys; allocations are the amortised growth of slice and map);
//   - earlier: 4096 keys re-added with ever earlier deadlines, each one
//     becoming the new head (in-place update, timer re-armed);
//   - same: 4096 keys re-added with later deadlines (kept, nothing moves).
func BenchmarkAddAfter(b *testing.B) {
	t0 := time.Date(2025, 1, 1, 0, 0, 0, 0, time.UTC)
	// A fresh queue every 65536 keys keeps the population realistic; the
	// cost of growing the heap and index to that size is in ns/op.
	b.Run("new-keys/real-clock", func(b *testing.B) {
		var q *queue.Queue[int]
		b.ReportAllocs()
		for i := range b.N {
			if i%(1<<16) == 0 {
				b.StopTimer()
				if q != nil {
					q.ShutDown()
				}
				q = queue.New(queue.Config[int]{})
				b.StartTimer()
			}
			q.AddAfter(i, time.Hour)
		}
		q.ShutDown()
	})
	b.Run("earlier/fake-clock", func(b *testing.B) {
		q := queue.New(queue.Config[int]{Clock: clock.NewFake(t0)})
		defer q.ShutDown()
		for k := range 4096 {
			q.AddAfter(k, 1000*time.Hour)
		}
		b.ReportAllocs()
		b.ResetTimer()
		for i := range b.N {
			q.AddAfter(i%4096, 1000*time.Hour-time.Duration(i+1))
		}
	})
	b.Run("same/real-clock", func(b *testing.B) {
		q := queue.New(queue.Config[int]{})
		defer q.ShutDown()
		for k := range 4096 {
			q.AddAfter(k, time.Hour)
		}
		b.ReportAllocs()
		b.ResetTimer()
		for i := range b.N {
			q.AddAfter(i%4096, 2*time.Hour)
		}
	})
}
