package queue

import (
	"context"
	"testing"
)

// yieldCount is a queue whose adds count their yields instead of yielding.
func yieldCount(t *testing.T) (*Queue[int], *int) {
	t.Helper()
	n := new(int)
	q := newWithHooks(Config[int]{}, hooks{yield: func() { *n++ }})
	t.Cleanup(q.ShutDown)
	return q, n
}

// TestAddYieldsToWorkersOnAFloodOfNewKeys checks the yield rule (yield.go)
// on the three kinds of traffic it tells apart.
func TestAddYieldsToWorkersOnAFloodOfNewKeys(t *testing.T) {
	t.Run("flood of new keys: one yield per yieldEvery adds", func(t *testing.T) {
		q, yields := yieldCount(t)
		for k := range 3 * yieldEvery {
			q.Add(k)
			if want := (k + 1) / yieldEvery; *yields != want {
				t.Fatalf("after %d adds of new keys (%d ready): %d yields, want %d", k+1, q.Len(), *yields, want)
			}
		}
	})
	t.Run("repeated keys: a pending key's add restarts the run", func(t *testing.T) {
		// Every 1000th add repeats a pending key: merging is happening, so
		// the backlog is worth keeping, however large it grows.
		q, yields := yieldCount(t)
		for k := range 3 * yieldEvery {
			q.Add(k)
			if k%1000 == 999 {
				q.Add(k - 500)
			}
		}
		if *yields != 0 {
			t.Fatalf("%d yields with %d keys ready and a repeated key every 1000 adds, want none", *yields, q.Len())
		}
	})
	t.Run("workers keep up: no backlog, no yield", func(t *testing.T) {
		q, yields := yieldCount(t)
		for k := range 3 * yieldEvery {
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
		q, yields := yieldCount(t)
		q.Add(-1)
		held, err := q.Get(context.Background())
		if err != nil {
			t.Fatal(err)
		}
		for k := range 3 * yieldEvery {
			q.Add(k)
			if k%1000 == 999 {
				q.Add(held) // ready again after its Done: nothing to merge now, but a repeat
			}
		}
		if *yields != 0 {
			t.Fatalf("%d yields with a held key added every 1000 adds, want none", *yields)
		}
	})
}
