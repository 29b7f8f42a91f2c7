package rest

import (
	"context"
	"errors"
	"io"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/kcmlab/kcm/clock"
	"github.com/kcmlab/kcm/kube/api"
	"github.com/kcmlab/kcm/kube/api/decode"
)

// The idle timeouts run on the client's clock: these tests arm them on a
// clock.Fake and step it, so nothing waits for real time.

// rcT0 is when the fake clocks of these tests start.
var rcT0 = time.Date(2030, 1, 1, 0, 0, 0, 0, time.UTC)

// rcStepTo waits until one timer is armed on clk, checks that d less a
// nanosecond does not fire it (done, the result of the call under test,
// is still open), then completes d.
func rcStepTo(t *testing.T, clk *clock.Fake, d time.Duration, done <-chan error) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if err := clk.BlockUntilWaiters(ctx, 1); err != nil {
		t.Fatalf("no timer armed: %v", err)
	}
	clk.Step(d - time.Nanosecond)
	if n := clk.Waiters(); n != 1 {
		t.Fatalf("%d timers armed %v later, want the idle timer still waiting", n, d-time.Nanosecond)
	}
	select {
	case err := <-done:
		t.Fatalf("returned %v before the idle timeout", err)
	default:
	}
	clk.Step(time.Nanosecond)
}

// TestIdleTimer: the timer fires once d passes without a kick; a kick
// restarts the countdown, pause holds it, stop prevents the fire and says
// whether it did.
func TestIdleTimer(t *testing.T) {
	rcNoLeaks(t)
	clk := clock.NewFake(rcT0)
	fired := make(chan struct{}, 2)
	fire := func() { fired <- struct{}{} }
	it := newIdleTimer(clk, time.Minute, fire)
	clk.Step(59 * time.Second)
	it.kick()
	clk.Step(59 * time.Second)
	if it.expired() || clk.Waiters() != 1 {
		t.Fatal("fired although kicked 59 s ago")
	}
	it.pause()
	clk.Step(time.Hour)
	if it.expired() || clk.Waiters() != 0 {
		t.Fatal("fired while paused")
	}
	it.kick()
	clk.Step(time.Minute)
	<-fired
	if !it.expired() {
		t.Fatal("fire ran but expired() is false")
	}
	it.kick() // after the fire: no second one
	clk.Step(time.Hour)
	if it.stop() {
		t.Fatal("stop after the fire reported that it prevented it")
	}
	if len(fired) != 0 {
		t.Fatal("fired twice")
	}

	it = newIdleTimer(clk, time.Minute, fire)
	if !it.stop() || it.expired() {
		t.Fatal("stop before the fire did not prevent it")
	}
	clk.Step(time.Hour)
	if len(fired) != 0 || clk.Waiters() != 0 {
		t.Fatal("a stopped timer fired")
	}

	never := newIdleTimer(clk, 0, fire)
	never.kick()
	never.pause()
	if clk.Waiters() != 0 || !never.stop() || never.expired() {
		t.Fatal("a zero idle timeout armed a timer")
	}
}

// TestIdleReaderKicks: every read that returns bytes restarts the
// countdown; a read of nothing does not.
func TestIdleReaderKicks(t *testing.T) {
	rcNoLeaks(t)
	clk := clock.NewFake(rcT0)
	cancelled := make(chan struct{})
	ir := newIdleReader(clk, strings.NewReader("abc"), time.Minute, func() { close(cancelled) })
	defer ir.stop()
	buf := make([]byte, 1)
	for range 3 {
		clk.Step(59 * time.Second)
		if _, err := ir.Read(buf); err != nil {
			t.Fatal(err)
		}
	}
	clk.Step(59 * time.Second)
	if clk.Waiters() != 1 {
		t.Fatal("the timer fired although bytes came every 59 s")
	}
	if _, err := ir.Read(buf); err != io.EOF {
		t.Fatalf("read at the end: %v", err)
	}
	clk.Step(time.Second)
	<-cancelled
	if !ir.expired() {
		t.Fatal("no bytes for a minute, yet not expired")
	}
}

// TestListIdleTimeout: a LIST that stops sending — before its headers or
// in the middle of its body — ends with ErrIdleTimeout instead of hanging.
func TestListIdleTimeout(t *testing.T) {
	for _, tc := range []struct {
		name  string
		serve func(w http.ResponseWriter, stop <-chan struct{})
	}{
		{"headers never come", func(w http.ResponseWriter, stop <-chan struct{}) { <-stop }},
		{"body stalls", func(w http.ResponseWriter, stop <-chan struct{}) {
			w.Header().Set("Content-Type", "application/json")
			// The bytes end with an item: once it is decoded, every byte
			// has been read and the decoder waits for more.
			_, _ = w.Write([]byte(`{"kind":"PodList","metadata":{"resourceVersion":"5"},"items":[{"metadata":{"name":"a"}}`))
			w.(http.Flusher).Flush()
			<-stop
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			rcNoLeaks(t)
			stop := make(chan struct{})
			arrived := make(chan struct{}, 1)
			srv := rcServer(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				arrived <- struct{}{}
				tc.serve(w, stop)
			}))
			defer close(stop)
			clk := clock.NewFake(rcT0)
			// No page deadline: the idle timer is the only one armed.
			c := rcClient(t, srv.URL, nil, WithListIdleTimeout(time.Minute), WithListPageTimeout(0),
				WithRetryPolicy(RetryPolicy{MaxAttempts: 1}), WithClock(clk))
			items := make(chan string, 1)
			done := make(chan error, 1)
			go func() {
				_, err := NewResources(c, Pods, decode.Raw()).ListEach(context.Background(), ListOptions{},
					func(o *api.RawObject) error { items <- o.Name; return nil })
				done <- err
			}()
			<-arrived
			if tc.name == "body stalls" {
				<-items // the bytes before the stall were read (and kicked the timer)
			}
			rcStepTo(t, clk, time.Minute, done)
			if err := <-done; !errors.Is(err, ErrIdleTimeout) {
				t.Fatalf("stalled list: %v, want ErrIdleTimeout", err)
			}
		})
	}
}

// TestWatchIdleTimeout: a connection that goes silent (no event, no
// bookmark) ends with ErrIdleTimeout so that the caller can resume.
func TestWatchIdleTimeout(t *testing.T) {
	rcNoLeaks(t)
	clk := clock.NewFake(rcT0)
	c := rcClient(t, rcServer(t, rcStream{body: rcEvAdded, hold: true}).URL, nil, WithClock(clk))
	w, err := rcConfigMaps(c).Watch(context.Background(), WatchOptions{IdleTimeout: time.Minute})
	if err != nil {
		t.Fatal(err)
	}
	defer w.Close()
	if ev, err := w.Next(); err != nil || ev.Type != Added {
		t.Fatalf("first event: %v %v", ev.Type, err)
	}
	done := make(chan error, 1)
	go func() { _, err := w.Next(); done <- err }()
	rcStepTo(t, clk, time.Minute, done)
	if err := <-done; !errors.Is(err, ErrIdleTimeout) {
		t.Fatalf("err = %v, want ErrIdleTimeout", err)
	}
}

// TestWatchHeadersIdleTimeout: a server that accepts a watch but never
// answers is as silent as a stream that stopped: the idle timeout bounds
// the wait for the response headers (chunked) and for the handshake
// (WebSocket).
func TestWatchHeadersIdleTimeout(t *testing.T) {
	for name, tr := range map[string]WatchTransport{"chunked": Chunked, "websocket": WebSocket} {
		t.Run(name, func(t *testing.T) {
			rcNoLeaks(t)
			arrived := make(chan struct{}, 1)
			srv := rcServer(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				arrived <- struct{}{}
				<-r.Context().Done()
			}))
			clk := clock.NewFake(rcT0)
			c := rcClient(t, srv.URL, nil, WithClock(clk))
			done := make(chan error, 1)
			go func() {
				w, err := rcConfigMaps(c).Watch(context.Background(), WatchOptions{Transport: tr, IdleTimeout: time.Minute})
				if err == nil {
					w.Close()
				}
				done <- err
			}()
			<-arrived
			wait := time.Minute
			if tr == WebSocket {
				wait = handshakeTimeout(time.Minute) // 30 s: the handshake bound is shorter
			}
			rcStepTo(t, clk, wait, done)
			if err := <-done; !errors.Is(err, ErrIdleTimeout) {
				t.Fatalf("err = %v, want ErrIdleTimeout", err)
			}
		})
	}
}
