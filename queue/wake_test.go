package queue

import (
	"context"
	"fmt"
	"sync"
	"testing"
	"time"
)

// TestNoLostWakeUp checks the wake-up protocol between adds and idle Gets,
// spinning included: every key is added only after the previous one was
// processed, so each add meets workers that are spinning or parked, and no
// ShutDown comes to rescue a Get whose wake-up was lost. A lost wake-up
// shows as a key that is never processed; the test's deadline turns the
// hang into a failure. Both settings of spin run, whatever GOMAXPROCS is.
func TestNoLostWakeUp(t *testing.T) {
	for _, spin := range []bool{true, false} {
		t.Run(map[bool]string{true: "spin", false: "park"}[spin], func(t *testing.T) {
			const workers, keys = 4, 2000
			q := newWithHooks(Config[int]{}, hooks{spin: map[bool]setting{true: on, false: off}[spin]})
			// A generous bound: the test waits on processed keys, this only
			// turns a hang into a failure.
			ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
			defer cancel()
			processed := make(chan int)
			var wg sync.WaitGroup
			for range workers {
				wg.Add(1)
				go func() {
					defer wg.Done()
					for {
						k, err := q.Get(ctx)
						if err != nil {
							return // shut down, or the deadline: reported below
						}
						q.Done(k)
						select {
						case processed <- k:
						case <-ctx.Done():
							return
						}
					}
				}()
			}
			var failure error
			for k := 0; k < keys && failure == nil; k++ {
				q.Add(k)
				select {
				case got := <-processed:
					if got != k {
						failure = fmt.Errorf("processed %d, want %d", got, k)
					}
				case <-ctx.Done():
					failure = fmt.Errorf("key %d of %d was never handed to one of the %d idle workers: a wake-up was lost", k, keys, workers)
				}
			}
			q.ShutDown()
			cancel()
			wg.Wait()
			if failure != nil {
				t.Fatal(failure)
			}
		})
	}
}
