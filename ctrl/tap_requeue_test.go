package ctrl

import (
	"context"
	"fmt"
	"testing"
	"testing/synctest"
	"time"

	"github.com/kcmlab/kcm/tap"
)

// A sync that asks for a Requeue (a stale cache, an owner not seen yet)
// is reported as "requeue with backoff", not as a success: the pipeline
// view follows a key until a sync of it succeeds, and a requeued key's
// work is not done.
func TestTapReportsARequeueAsNotDone(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		var log tap.Log
		tp := tap.New(&log, nil)
		tp.SetOn(true)
		calls := 0
		h := start(t, func(context.Context, string) (Result, error) {
			calls++
			if calls == 1 {
				return Result{Requeue: true}, nil
			}
			return Result{}, nil
		}, LoopOptions{Tap: tp}, 1)
		h.add("ns/a")
		h.step(time.Second) // the requeue's backoff
		if err := h.stop(t); err != nil {
			t.Fatal(err)
		}
		var got []string
		for _, e := range log.Matching(tap.Sync, nil) {
			if e.Op != tap.OpBegin {
				got = append(got, fmt.Sprintf("%s %s", e.Op, e.Key))
			}
		}
		if want := []string{"requeue with backoff ns/a", "success ns/a"}; fmt.Sprint(got) != fmt.Sprint(want) {
			t.Fatalf("sync ends %q, want %q", got, want)
		}
	})
}
