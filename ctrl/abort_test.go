package ctrl

import (
	"context"
	"testing"
	"testing/synctest"
	"time"

	"github.com/kcmlab/kcm/clock"
)

// TestAbortCancelsInFlightAtOnce: with an abort context, a stopped loop
// still drains (the sync keeps its context while only ctx has ended), and
// ending abort cancels the sync at once — the fake clock never reaches the
// drain timeout — so Run returns nil, not ErrDrainTimeout.
func TestAbortCancelsInFlightAtOnce(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		started := make(chan struct{})
		l := NewLoop(loopName, func(ctx context.Context, _ string) (Result, error) {
			close(started)
			<-ctx.Done()
			return Result{}, ctx.Err()
		}, LoopOptions{Clock: clock.NewFake(t0), DrainTimeout: time.Minute})
		ctx, stop := context.WithCancel(context.Background())
		abortCtx, abort := context.WithCancel(context.Background())
		done := make(chan error, 1)
		go func() { done <- l.Run(WithAbort(ctx, abortCtx), 1) }()
		l.Queue().Add("ns/a")
		<-started
		stop()
		synctest.Wait()
		select {
		case err := <-done:
			t.Fatalf("Run returned %v while its sync drained; abort had not ended", err)
		default:
		}
		abort()
		if err := <-done; err != nil {
			t.Fatalf("Run = %v, want nil: the aborted sync returned long before the drain timeout", err)
		}
	})
}

func TestAbortOf(t *testing.T) {
	if abortOf(context.Background()) != nil {
		t.Fatal("a plain context carries an abort context")
	}
	a := context.Background()
	if abortOf(WithAbort(context.Background(), a)) != a {
		t.Fatal("WithAbort's context is not found")
	}
}
