package reflector_test

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"testing"
	"time"

	"github.com/kcmlab/kcm/kube/rest"
	"github.com/kcmlab/kcm/reflector"
)

// The zero Options do what the package documentation promises: the first
// LIST reads at resourceVersion "0" (client-go's first list: the watch
// cache, whole), 500 per page for a server without one, then a WATCH from
// the list's resourceVersion with bookmarks, a watch timeout in [5, 10)
// minutes and a 5-minute idle timeout.
func TestZeroOptionsListFromTheCache(t *testing.T) {
	if reflector.DefaultInitialList != reflector.ListFromCache {
		t.Fatalf("DefaultInitialList %v; the package documentation promises from-cache", reflector.DefaultInitialList)
	}
	h := run(t, reflector.Options{})
	l := h.lw.ExpectList()
	if o := l.Options; o.ResourceVersion != "0" || o.ResourceVersionMatch != "" || o.Limit != 500 || o.SendInitialEvents != nil {
		t.Fatalf("first request %+v, want a LIST at resourceVersion 0, 500 per page", o)
	}
	l.List(rest.ListMeta{ResourceVersion: "40"})
	c := h.lw.ExpectWatch()
	o := c.Options
	if o.ResourceVersion != "40" || !o.AllowWatchBookmarks || o.SendInitialEvents != nil {
		t.Fatalf("watch %+v, want a WATCH from the list's resourceVersion 40 with bookmarks", o)
	}
	if o.TimeoutSeconds < 300 || o.TimeoutSeconds >= 600 {
		t.Fatalf("timeoutSeconds %d, want [300, 600)", o.TimeoutSeconds)
	}
	if c.Watch.IdleTimeout != 5*time.Minute {
		t.Fatalf("idle timeout %v, want 5m", c.Watch.IdleTimeout)
	}
}

// Each InitialList makes the first request it documents; DisableWatchList
// turns only ListStream into ListConsistent.
func TestInitialListChoices(t *testing.T) {
	for _, tc := range []struct {
		o         reflector.Options
		resolved  reflector.InitialList
		watchList bool   // a WatchList at the newest state
		rv        string // else a LIST at this resourceVersion, 500 per page
	}{
		{reflector.Options{}, reflector.ListFromCache, false, "0"},
		{reflector.Options{InitialList: reflector.ListFromCache}, reflector.ListFromCache, false, "0"},
		{reflector.Options{InitialList: reflector.ListConsistent}, reflector.ListConsistent, false, ""},
		{reflector.Options{InitialList: reflector.ListStream}, reflector.ListStream, true, ""},
		{reflector.Options{InitialList: reflector.ListStream, DisableWatchList: true}, reflector.ListConsistent, false, ""},
		{reflector.Options{DisableWatchList: true}, reflector.ListFromCache, false, "0"},
		{reflector.Options{InitialList: reflector.ListConsistent, DisableWatchList: true}, reflector.ListConsistent, false, ""},
	} {
		name := fmt.Sprintf("%v/disableWatchList=%v", tc.o.InitialList, tc.o.DisableWatchList)
		t.Run(name, func(t *testing.T) {
			if got := tc.o.Initial(); got != tc.resolved {
				t.Fatalf("Initial() = %v, want %v", got, tc.resolved)
			}
			h := run(t, tc.o)
			if tc.watchList {
				o := h.lw.ExpectWatch().Options
				if o.SendInitialEvents == nil || !*o.SendInitialEvents || o.ResourceVersion != "" ||
					o.ResourceVersionMatch != "NotOlderThan" || !o.AllowWatchBookmarks || o.Limit != 0 {
					t.Fatalf("first request %+v, want a WatchList at the newest state", o)
				}
				return
			}
			o := h.lw.ExpectList().Options
			if o.ResourceVersion != tc.rv || o.ResourceVersionMatch != "" || o.Limit != 500 {
				t.Fatalf("first request %+v, want a LIST at %q, 500 per page", o, tc.rv)
			}
		})
	}
}

// A WatchList the server refuses falls back to a consistent LIST of 500
// per page at the newest state.
func TestStreamFallsBackToAConsistentList(t *testing.T) {
	h := run(t, reflector.Options{InitialList: reflector.ListStream})
	h.lw.ExpectWatch().Fail(statusErr(http.StatusUnprocessableEntity, "Invalid"))
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
