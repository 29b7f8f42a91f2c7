package reflector_test

import (
	"context"
	"errors"
	"net/http"
	"testing"
	"time"

	"github.com/kcmlab/kcm/reflector"
)

// The zero Options do what the package documentation promises: WatchList
// first (sendInitialEvents=true at the newest state, with bookmarks, a
// watch timeout in [5, 10) minutes, a 5-minute idle timeout), and a
// paginated LIST of 500 per page when the server refuses it.
func TestZeroOptionsStartWithWatchList(t *testing.T) {
	h := run(t, reflector.Options{})
	c := h.lw.ExpectWatch()
	o := c.Options
	if o.SendInitialEvents == nil || !*o.SendInitialEvents || o.ResourceVersion != "" ||
		o.ResourceVersionMatch != "NotOlderThan" || !o.AllowWatchBookmarks || o.Limit != 0 {
		t.Fatalf("first request %+v, want a WatchList at the newest state", o)
	}
	if o.TimeoutSeconds < 300 || o.TimeoutSeconds >= 600 {
		t.Fatalf("timeoutSeconds %d, want [300, 600)", o.TimeoutSeconds)
	}
	if c.Watch.IdleTimeout != 5*time.Minute {
		t.Fatalf("idle timeout %v, want 5m", c.Watch.IdleTimeout)
	}
	c.Fail(statusErr(http.StatusUnprocessableEntity, "Invalid"))
	l := h.lw.ExpectList()
	if l.Options.Limit != 500 || l.Options.ResourceVersion != "" {
		t.Fatalf("fallback LIST %+v, want 500 per page at the newest state", l.Options)
	}
}

// Options set by the caller are used as given; PageSize < 0 means
// unpaginated.
func TestOptionsAreUsed(t *testing.T) {
	h := run(t, reflector.Options{DisableWatchList: true, PageSize: -1, MinWatchTimeout: 2 * time.Second, IdleTimeout: 3 * time.Second})
	if c := h.listAt("100"); c.Options.Limit != 0 {
		t.Fatalf("LIST %+v, want unpaginated", c.Options)
	}
	c := h.lw.ExpectWatch()
	if ts := c.Options.TimeoutSeconds; ts < 2 || ts >= 4 {
		t.Fatalf("timeoutSeconds %d, want [2, 4)", ts)
	}
	if c.Watch.IdleTimeout != 3*time.Second {
		t.Fatalf("idle timeout %v, want 3s", c.Watch.IdleTimeout)
	}
	h.stop()

	h = run(t, reflector.Options{DisableWatchList: true, PageSize: 7})
	if c := h.lw.ExpectList(); c.Options.Limit != 7 {
		t.Fatalf("LIST %+v, want 7 per page", c.Options)
	}
}

// The default backoff is client-go's: the first wait is in [800ms, 1.6s).
func TestDefaultBackoff(t *testing.T) {
	h := run(t, reflector.Options{DisableWatchList: true, Backoff: defaultBackoff})
	h.lw.ExpectList().Fail(errors.New("connection refused"))
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	if err := h.clk.BlockUntilWaiters(ctx, 1); err != nil {
		t.Fatal(err)
	}
	h.clk.Step(800*time.Millisecond - time.Nanosecond)
	if h.clk.Waiters() != 1 {
		t.Fatal("the first wait was shorter than 800ms")
	}
	h.clk.Step(800 * time.Millisecond)
	h.lw.ExpectList() // waited less than 1.6s
}
