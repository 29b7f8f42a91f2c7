package ctrl

import (
	"context"
	"errors"
	"fmt"
	"sync/atomic"
	"testing"
	"testing/synctest"
	"time"

	"github.com/prometheus/client_golang/prometheus/testutil"
)

// TestTerminalErrorWraps: a terminal error is recognised through further
// wrapping, keeps its cause reachable and says what it is; nil stays nil.
func TestTerminalErrorWraps(t *testing.T) {
	cause := errors.New("selector does not compile")
	err := fmt.Errorf("syncing ns/web: %w", TerminalError(cause))
	if !IsTerminal(err) || !errors.Is(err, ErrTerminal) || !errors.Is(err, cause) {
		t.Fatalf("%v: IsTerminal %v, Is(cause) %v", err, IsTerminal(err), errors.Is(err, cause))
	}
	if want := "syncing ns/web: terminal error: selector does not compile"; err.Error() != want {
		t.Fatalf("Error() = %q, want %q", err, want)
	}
	if TerminalError(nil) != nil || IsTerminal(cause) || IsTerminal(nil) {
		t.Fatal("nil or a plain error taken for a terminal error")
	}
}

// TestDecideTerminal: a terminal error is never retried, whatever the
// Result or MaxRetries say (controller-runtime's reconcileHandler).
func TestDecideTerminal(t *testing.T) {
	term := TerminalError(errors.New("never"))
	for _, tc := range []struct {
		name                 string
		res                  Result
		requeues, maxRetries int
	}{
		{"first failure", Result{}, 0, 0},
		{"below maxRetries", Result{}, 1, 15},
		{"past maxRetries", Result{}, 16, 15},
		{"wins over RequeueAfter", Result{RequeueAfter: time.Second}, 0, 0},
		{"wins over Requeue", Result{Requeue: true}, 0, 0},
	} {
		if got := decide(tc.res, term, tc.requeues, tc.maxRetries); got != terminal {
			t.Errorf("%s: decide = %d, want terminal (%d)", tc.name, got, terminal)
		}
	}
}

// TestTerminalErrorNotRetried: a sync that returns a terminal error runs
// once; the key is forgotten, not re-added however long the clock runs,
// and counted in the error and terminal series; its next event syncs it
// again.
func TestTerminalErrorNotRetried(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		var n atomic.Int32
		h := start(t, func(context.Context, string) (Result, error) {
			if n.Add(1) == 1 {
				return Result{}, TerminalError(errors.New("key is not namespace/name"))
			}
			return Result{}, nil
		}, LoopOptions{}, 1)
		h.add("ns/a")
		h.step(time.Hour)
		wantCalls(t, h, call{"ns/a", 0})
		if q := h.loop.Queue(); q.NumRequeues("ns/a") != 0 || q.Len() != 0 {
			t.Errorf("terminal key kept: NumRequeues %d, Len %d", q.NumRequeues("ns/a"), q.Len())
		}
		terminalTotal := testutil.ToFloat64(h.m.terminal.WithLabelValues(loopName))
		errs := testutil.ToFloat64(h.m.errors.WithLabelValues(loopName))
		if terminalTotal != 1 || errs != 1 || h.total(resultError) != 1 {
			t.Errorf("terminal_reconcile_errors_total %v, reconcile_errors_total %v, reconcile_total{error} %v; want 1 each",
				terminalTotal, errs, h.total(resultError))
		}
		if got := metricValue(t, h.reg, "controller_runtime_terminal_reconcile_errors_total", "controller", loopName); got != 1 {
			t.Errorf("controller_runtime_terminal_reconcile_errors_total{controller=%s} = %v, want 1", loopName, got)
		}
		if got := metricValue(t, h.reg, "workqueue_retries_total", "name", loopName); got != 0 {
			t.Errorf("workqueue_retries_total = %v: a terminal error was retried", got)
		}
		h.add("ns/a") // the object's next event
		wantCalls(t, h, call{"ns/a", 0}, call{"ns/a", time.Hour})
		if err := h.stop(t); err != nil {
			t.Fatal(err)
		}
	})
}
