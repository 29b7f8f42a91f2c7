package reflector

import (
	"errors"
	"net/http"
	"testing"
	"time"

	"github.com/kcmlab/kcm/kube/rest"
)

func newFromCacheMachine() *Machine {
	return NewMachine(Settings{PageSize: 500, FromCache: true, Backoff: noJitter(), WatchTimeout: func() int64 { return 300 }})
}

// listWant is the LIST a step must ask for next.
type listWant struct {
	rv, match string
	limit     int64
	wait      time.Duration // a backoff first (0: the LIST comes at once)
}

// The rules of a first list from the watch cache, each client-go's
// (tools/cache/reflector.go v0.34, unchanged in v0.37: relistResourceVersion,
// list, and the pager's FullListIfExpired), stepped through the machine.
func TestMachineFromCacheRules(t *testing.T) {
	tooLarge := &rest.StatusError{Status: rest.Status{Code: 504, Reason: "Timeout",
		Details: &rest.StatusDetails{Causes: []rest.StatusCause{{Type: "ResourceVersionTooLarge"}}}}}
	for _, tc := range []struct {
		name string
		// steps bring the machine, made with FromCache, to the state
		// under test.
		steps func(m *Machine)
		want  listWant
	}{{
		// relistResourceVersion: "0" while lastSyncResourceVersion is "",
		// "for performance reasons ... served from the watch cache". The
		// pager's limit goes along; the watch cache ignores it at "0" and
		// a resource without a cache is paged from etcd.
		name:  "the first list reads at 0, with the page size, no match",
		steps: func(*Machine) {},
		want:  listWant{rv: "0", limit: 500},
	}, {
		// A failed list leaves lastSyncResourceVersion "": the next try is
		// at "0" again, after the backoff.
		name:  "a failed first list is retried at 0 after a backoff",
		steps: func(m *Machine) { m.ListFailed(statusErr(http.StatusInternalServerError, "InternalError"), t0) },
		want:  listWant{rv: "0", limit: 500, wait: 800 * time.Millisecond},
	}, {
		name:  "a first list the sink refused is read again at 0",
		steps: func(m *Machine) { m.ListFailed(sinkRefusal(), t0) },
		want:  listWant{rv: "0", limit: 500, wait: 800 * time.Millisecond},
	}, {
		// list: isExpiredError → setIsLastSyncResourceVersionUnavailable →
		// list again at once at relistResourceVersion() = "".
		name:  "a first list answered 410 reads the newest state at once",
		steps: func(m *Machine) { m.ListFailed(statusErr(http.StatusGone, "Expired"), t0) },
		want:  listWant{rv: "", limit: 500},
	}, {
		// isTooLargeResourceVersionError likewise sets the version
		// unavailable; kcm backs off first (machine.go, ListFailed).
		name:  "a first list too large reads the newest state",
		steps: func(m *Machine) { m.ListFailed(tooLarge, t0) },
		want:  listWant{rv: "", limit: 500, wait: 800 * time.Millisecond},
	}, {
		// The pager's FullListIfExpired: a continue token that expired
		// mid-list (etcd paging, no watch cache) → the same list, whole.
		name:  "an expired continue token of a list at 0 reads it whole at 0",
		steps: func(m *Machine) { m.ContinueExpired() },
		want:  listWant{rv: "0"},
	}, {
		// relistResourceVersion returns lastSyncResourceVersion once set:
		// never "0" again. DefaultWatchErrorHandler: a watch's 410 does
		// not make that version unavailable ("LIST call with
		// ResourceVersion=RV already has a semantic that it returns data
		// at least as fresh as provided RV").
		name: "after a list, a watch's 410 relists not older than the last RV",
		steps: func(m *Machine) {
			m.ListDone("100")
			event(m, rest.Modified, "120", false)
			m.WatchEnded(statusErr(http.StatusGone, "Expired"), t0)
		},
		want: listWant{rv: "120", match: "NotOlderThan", limit: 500},
	}, {
		name: "after a list, an expired relist reads the newest state, never 0",
		steps: func(m *Machine) {
			m.ListDone("100")
			m.WatchEnded(statusErr(http.StatusGone, "Expired"), t0)
			m.ListFailed(statusErr(http.StatusGone, "Expired"), t0)
		},
		want: listWant{rv: "", limit: 500},
	}, {
		name: "after a list, a failed relist is retried at the last RV",
		steps: func(m *Machine) {
			m.ListDone("100")
			m.WatchEnded(statusErr(http.StatusGone, "Expired"), t0)
			m.ListFailed(errors.New("connection refused"), t0)
		},
		want: listWant{rv: "100", match: "NotOlderThan", limit: 500, wait: 800 * time.Millisecond},
	}} {
		t.Run(tc.name, func(t *testing.T) {
			m := newFromCacheMachine()
			tc.steps(m)
			a := m.Next()
			if tc.want.wait > 0 {
				if a.Kind != DoWait || a.Wait != tc.want.wait {
					t.Fatalf("action %+v, want a wait of %v", a, tc.want.wait)
				}
				m.WaitDone()
				a = m.Next()
			}
			o := a.Options
			if a.Kind != DoList || o.ResourceVersion != tc.want.rv || o.ResourceVersionMatch != tc.want.match ||
				o.Limit != tc.want.limit || o.SendInitialEvents != nil {
				t.Fatalf("action %+v, want LIST rv %q match %q limit %d", a, tc.want.rv, tc.want.match, tc.want.limit)
			}
		})
	}
}

// The watch after a list from the cache starts at that list's
// resourceVersion, however old: API rule, a watch from N delivers every
// change after N, so a stale list is brought up to date by the watch (or,
// when N has left the watch cache's window, by a 410 and a relist not
// older than N).
func TestMachineFromCacheWatchesFromTheListRV(t *testing.T) {
	m := newFromCacheMachine()
	m.Next()
	m.ListDone("40")
	if a := m.Next(); a.Kind != DoWatch || a.Options.ResourceVersion != "40" {
		t.Fatalf("after a list at 0 answered at 40: %+v, want WATCH from 40", a)
	}
}

// A WatchList never asks for "0": with both set, the stream starts at the
// newest state, and its fallback LIST reads from the cache (client-go's
// fallback list runs with relistResourceVersion(), "0" before any sync).
func TestMachineFromCacheWithWatchList(t *testing.T) {
	m := NewMachine(Settings{PageSize: 500, FromCache: true, WatchList: true, Backoff: noJitter()})
	a := m.Next()
	if a.Kind != DoWatch || a.Options.ResourceVersion != "" || a.Options.SendInitialEvents == nil {
		t.Fatalf("first action %+v, want a WatchList at the newest state", a)
	}
	m.WatchEnded(statusErr(http.StatusUnprocessableEntity, "Invalid"), t0)
	if a := m.Next(); a.Kind != DoList || a.Options.ResourceVersion != "0" {
		t.Fatalf("after the refusal: %+v, want LIST at 0", a)
	}
}

func sinkRefusal() error { return errors.Join(ErrRefused, errors.New("transform failed")) }
