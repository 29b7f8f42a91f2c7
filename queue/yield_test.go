package queue

import (
	"context"
	"fmt"
	"runtime"
	"testing"
)

// yieldCount is a queue whose adds count their yields instead of yielding,
// with a run of run new keys. Combining is off, so that no add is posted
// while the queue's goroutine holds the lock and every yield falls on the
// add that completes a run.
func yieldCount(t *testing.T, run int) (*Queue[int], *int) {
	t.Helper()
	n := new(int)
	q := newWithHooks(Config[int]{}, hooks{combine: off, yieldRun: run, yield: func() { *n++ }})
	t.Cleanup(q.ShutDown)
	return q, n
}

// TestYieldRunFollowsProcessors checks the run's length: yieldAlone on one
// processor, yieldShared on more.
func TestYieldRunFollowsProcessors(t *testing.T) {
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(0))
	for procs, want := range map[int]int{1: yieldAlone, 2: yieldShared, 8: yieldShared} {
		runtime.GOMAXPROCS(procs)
		q := New(Config[int]{})
		q.lock()
		got := q.yieldRun
		q.unlock()
		q.ShutDown()
		if got != want {
			t.Errorf("GOMAXPROCS %d: run of %d new keys, want %d", procs, got, want)
		}
	}
}

// TestHooksChooseSettingsAtConstruction checks that a test's settings
// (combine, spin, yieldRun) reach the queue through the constructor: they
// are constants of a running queue, which its goroutines read without the
// lock, so no test may write them afterwards.
func TestHooksChooseSettingsAtConstruction(t *testing.T) {
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(0))
	for _, procs := range []int{1, 2} {
		runtime.GOMAXPROCS(procs)
		for _, s := range []setting{byProcs, on, off} {
			q := newWithHooks(Config[int]{}, hooks{combine: s, spin: s, yieldRun: 7})
			q.lock()
			combining, spin, run := q.combining, q.spin, q.yieldRun
			q.unlock()
			q.ShutDown()
			want := map[setting]bool{byProcs: procs > 1, on: true, off: false}[s]
			if combining != want || spin != want || run != 7 {
				t.Errorf("GOMAXPROCS %d, setting %d: combining %v, spin %v, run %d; want %v, %v, 7",
					procs, s, combining, spin, run, want, want)
			}
		}
	}
}

// TestAddYieldsToWorkersOnAFloodOfNewKeys checks the yield rule (yield.go)
// on the three kinds of traffic it tells apart.
func TestAddYieldsToWorkersOnAFloodOfNewKeys(t *testing.T) {
	for _, run := range []int{yieldShared, yieldAlone} {
		t.Run(fmt.Sprint(run), func(t *testing.T) { testYieldRule(t, run) })
	}
}

func testYieldRule(t *testing.T, run int) {
	t.Run("flood of new keys: one yield per run adds", func(t *testing.T) {
		q, yields := yieldCount(t, run)
		for k := range 3 * run {
			q.Add(k)
			if want := (k + 1) / run; *yields != want {
				t.Fatalf("after %d adds of new keys (%d ready): %d yields, want %d", k+1, q.Len(), *yields, want)
			}
		}
	})
	t.Run("repeated keys: a pending key's add restarts the run", func(t *testing.T) {
		// Twice a run an add repeats a pending key: merging is happening,
		// so the backlog is worth keeping, however large it grows.
		q, yields := yieldCount(t, run)
		for k := range 3 * run {
			q.Add(k)
			if k%(run/2) == run/2-1 {
				q.Add(k - 100)
			}
		}
		if *yields != 0 {
			t.Fatalf("%d yields with %d keys ready and a repeated key twice a run, want none", *yields, q.Len())
		}
	})
	t.Run("workers keep up: no backlog, no yield", func(t *testing.T) {
		q, yields := yieldCount(t, run)
		for k := range 3 * run {
			q.Add(k)
			got, err := q.Get(context.Background())
			if err != nil || got != k {
				t.Fatalf("Get = %d, %v; want %d", got, err, k)
			}
			q.Done(got)
		}
		if *yields != 0 {
			t.Fatalf("%d yields while a worker took every key at once, want none", *yields)
		}
	})
	t.Run("a held key added again is a repeat", func(t *testing.T) {
		q, yields := yieldCount(t, run)
		q.Add(-1)
		held, err := q.Get(context.Background())
		if err != nil {
			t.Fatal(err)
		}
		for k := range 3 * run {
			q.Add(k)
			if k%(run/2) == run/2-1 {
				q.Add(held) // ready again after its Done: nothing to merge now, but a repeat
			}
		}
		if *yields != 0 {
			t.Fatalf("%d yields with a held key added twice a run, want none", *yields)
		}
	})
}
