package queue

import (
	"context"
	"errors"
	"math/rand/v2"
	"runtime"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/kcmlab/kcm/clock"
)

// TestConcurrentInvariants runs producers (Add, low-priority Add, AddAfter)
// against several workers and checks the two promises controllers build on:
//
//  1. no key is held by two workers at once;
//  2. no add is lost: a key added after a worker took it is processed again.
//
// For 2, each key has a counter that producers bump before adding it. A
// worker reads the counter right after Get. If the read misses a bump, that
// bump's add happened after the Get, while the key was held, so the key must
// be handed out again and the next read sees it. At the end every key's last
// read must equal its counter.
//
// Few keys and many rounds make collisions between adds and held keys common.
func TestConcurrentInvariants(t *testing.T) {
	for round := range 20 {
		stressRound(t, uint64(round))
	}
}

func stressRound(t *testing.T, seed uint64) {
	const (
		keys      = 8
		producers = 4
		workers   = 4
		perProd   = 1000
	)
	clk := clock.NewFake(t0)
	q := New(Config[int]{Clock: clk})
	var (
		added   [keys]atomic.Int64 // bumped before each add of the key
		seen    [keys]atomic.Int64 // the largest counter a worker read after Get
		holder  [keys]atomic.Int32 // 1 while a worker holds the key
		doubles atomic.Int64       // times a key was handed to a second worker
	)
	var wg sync.WaitGroup
	for w := range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for {
				k, err := q.Get(context.Background())
				if errors.Is(err, ErrShutDown) {
					return
				}
				if !holder[k].CompareAndSwap(0, 1) {
					doubles.Add(1)
				}
				v := added[k].Load()
				if v > seen[k].Load() {
					seen[k].Store(v) // only the holder writes seen[k]
				}
				for range w % 3 {
					runtime.Gosched() // widen the window for concurrent adds
				}
				holder[k].Store(0)
				q.Done(k)
			}
		}()
	}
	var prod sync.WaitGroup
	for p := range producers {
		prod.Add(1)
		go func() {
			defer prod.Done()
			rng := rand.New(rand.NewPCG(uint64(p), seed))
			for range perProd {
				k := rng.IntN(keys)
				added[k].Add(1)
				switch r := rng.IntN(10); {
				case r < 6:
					q.Add(k)
				case r < 8:
					q.AddWithPriority(k, PriorityLow)
				default:
					q.AddAfter(k, time.Duration(1+rng.IntN(50))*time.Millisecond)
				}
			}
		}()
	}
	prod.Wait()
	clk.Step(time.Hour) // every delayed key is due
	q.flushDue()        // and in the queue now, whatever the loop is doing
	q.ShutDown()        // workers finish what is ready, then get ErrShutDown
	wg.Wait()

	if n := doubles.Load(); n != 0 {
		t.Fatalf("round %d: %d times a key was handed to a second worker while held", seed, n)
	}
	for k := range keys {
		if a, s := added[k].Load(), seen[k].Load(); a != s {
			t.Fatalf("round %d: key %d added up to %d but last processed at %d: an add was lost", seed, k, a, s)
		}
	}
	q.lock()
	defer q.unlock()
	if q.s.ready != 0 || q.s.inFlight != 0 || q.s.tracked() != 0 || q.s.stale != 0 {
		t.Fatalf("round %d: state not empty at the end: ready %d inFlight %d items %d stale %d",
			seed, q.s.ready, q.s.inFlight, q.s.tracked(), q.s.stale)
	}
}
