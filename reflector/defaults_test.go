package reflector_test

import (
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
