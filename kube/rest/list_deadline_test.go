package rest

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"testing"
	"time"

	"github.com/kcmlab/kcm/clock"
	"github.com/kcmlab/kcm/kube/api"
	"github.com/kcmlab/kcm/kube/api/decode"
)

// TestListPageDeadline: a LIST whose body trickles (a few bytes before each
// idle timeout, so the idle timeout never fires) still ends, with
// ErrListPageTimeout, once the page took its total deadline; a page that
// finishes in time is untouched. Everything runs on a clock.Fake: the
// server sends one item each time the test asks, and the test steps the
// clock 50 s (under the 60 s idle timeout) between items.
func TestListPageDeadline(t *testing.T) {
	for _, tc := range []struct {
		name     string
		deadline time.Duration
		items    int  // items the server sends before it ends the list, 50 s apart
		wantErr  bool // ErrListPageTimeout after the step that crosses the deadline
	}{
		{name: "trickle outlives the deadline", deadline: 2 * time.Minute, items: 20, wantErr: true},
		{name: "slow page ends in time", deadline: 2 * time.Minute, items: 2},
		{name: "no deadline", deadline: 0, items: 6},
	} {
		t.Run(tc.name, func(t *testing.T) {
			rcNoLeaks(t)
			next := make(chan struct{})
			stop := make(chan struct{})
			srv := rcServer(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				w.Header().Set("Content-Type", "application/json")
				_, _ = w.Write([]byte(`{"kind":"PodList","metadata":{"resourceVersion":"5"},"items":[`))
				for i := range tc.items {
					select {
					case <-next:
					case <-stop:
						return
					}
					sep := ","
					if i == 0 {
						sep = ""
					}
					_, _ = fmt.Fprintf(w, `%s{"metadata":{"name":"p%d"}}`, sep, i)
					w.(http.Flusher).Flush()
				}
				_, _ = w.Write([]byte("]}"))
			}))
			defer close(stop)
			clk := clock.NewFake(rcT0)
			c := rcClient(t, srv.URL, nil, WithListIdleTimeout(time.Minute), WithListPageTimeout(tc.deadline),
				WithRetryPolicy(RetryPolicy{MaxAttempts: 1}), WithClock(clk))
			items := make(chan string, 1)
			done := make(chan error, 1)
			go func() {
				_, err := NewResources(c, Pods, decode.Raw()).ListEach(context.Background(), ListOptions{},
					func(o *api.RawObject) error { items <- o.Name; return nil })
				done <- err
			}()
			const gap = 50 * time.Second // under the idle timeout: it never fires
			for i := range tc.items {
				next <- struct{}{}
				if got := <-items; got != fmt.Sprintf("p%d", i) {
					t.Fatalf("item %d: %q", i, got)
				}
				if i == tc.items-1 {
					break // the server ends the list now
				}
				select {
				case err := <-done:
					t.Fatalf("list ended after %v (item %d of %d): %v", clk.Since(rcT0), i+1, tc.items, err)
				default:
				}
				clk.Step(gap)
				if tc.wantErr && clk.Since(rcT0) >= tc.deadline {
					break
				}
			}
			if !tc.wantErr {
				if err := waitErr(t, done); err != nil {
					t.Fatalf("a page that ended in time: %v", err)
				}
				return
			}
			err := waitErr(t, done)
			if !errors.Is(err, ErrListPageTimeout) {
				t.Fatalf("a body trickling for %v past a %v page deadline: %v, want ErrListPageTimeout", clk.Since(rcT0), tc.deadline, err)
			}
			if errors.Is(err, context.DeadlineExceeded) || errors.Is(err, context.Canceled) {
				t.Fatalf("%v: wraps a context error, which the reflector would take for its own stop", err)
			}
		})
	}
}

// waitErr returns the outcome of the list, failing the test when it does
// not come within 10 s of real time (the list hangs).
func waitErr(t *testing.T, done <-chan error) error {
	t.Helper()
	select {
	case err := <-done:
		return err
	case <-time.After(10 * time.Second):
		t.Fatal("the list still runs 10 s (real time) after the step that should have ended it")
		return nil
	}
}

// TestListPageDeadlineCoversHeaders: the page deadline runs from the moment
// the request is sent, so a deadline shorter than the idle timeout also
// ends the wait for response headers.
func TestListPageDeadlineCoversHeaders(t *testing.T) {
	rcNoLeaks(t)
	arrived := make(chan struct{}, 1)
	srv := rcServer(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		arrived <- struct{}{}
		<-r.Context().Done()
	}))
	clk := clock.NewFake(rcT0)
	c := rcClient(t, srv.URL, nil, WithListIdleTimeout(time.Minute), WithListPageTimeout(30*time.Second),
		WithRetryPolicy(RetryPolicy{MaxAttempts: 1}), WithClock(clk))
	done := make(chan error, 1)
	go func() {
		_, err := NewResources(c, Pods, decode.Raw()).ListEach(context.Background(), ListOptions{},
			func(*api.RawObject) error { return nil })
		done <- err
	}()
	<-arrived
	clk.Step(30 * time.Second)
	if err := waitErr(t, done); !errors.Is(err, ErrListPageTimeout) {
		t.Fatalf("no headers within the 30 s page deadline: %v, want ErrListPageTimeout", err)
	}
}
