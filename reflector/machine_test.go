package reflector

import (
	"errors"
	"io"
	"net/http"
	"testing"
	"time"

	"github.com/kcmlab/kcm/kube/rest"
)

func statusErr(code int, reason string) error {
	return &rest.StatusError{Status: rest.Status{Code: int32(code), Reason: reason}}
}

var t0 = time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)

func noJitter() Backoff {
	b := DefaultBackoff()
	b.Jitter = 0
	return b
}

// event routes an event of type t at resourceVersion rv and, unless it
// ends the watch, reports it accepted by the sink.
func event(m *Machine, t rest.EventType, rv string, initialEnd bool) Route {
	r := m.Route(t, rv, initialEnd)
	if r != ToError {
		m.Accepted(r, rv)
	}
	return r
}

func newTestMachine(watchList bool) *Machine {
	return NewMachine(Settings{PageSize: 500, WatchList: watchList, Backoff: noJitter(), WatchTimeout: func() int64 { return 300 }})
}

func TestMachineListThenWatchFromListRV(t *testing.T) {
	m := newTestMachine(false)
	a := m.Next()
	if a.Kind != DoList || a.Options.ResourceVersion != "" || a.Options.Limit != 500 {
		t.Fatalf("first action = %+v, want a paginated quorum LIST (resourceVersion unset)", a)
	}
	m.ListDone("100")
	a = m.Next()
	// API rule: a watch at resourceVersion N delivers events strictly after N.
	if a.Kind != DoWatch || a.Options.ResourceVersion != "100" || !a.Options.AllowWatchBookmarks {
		t.Fatalf("after list: %+v, want WATCH from 100 with bookmarks", a)
	}
}

func TestMachineEventsAdvanceRV(t *testing.T) {
	m := newTestMachine(false)
	m.ListDone("100")
	for _, tc := range []struct {
		typ  rest.EventType
		rv   string
		want Route
	}{
		{rest.Added, "101", ToAdd},
		{rest.Modified, "102", ToUpdate},
		{rest.Deleted, "103", ToDelete},
		{rest.Bookmark, "150", ToNothing},
	} {
		if got := event(m, tc.typ, tc.rv, false); got != tc.want {
			t.Errorf("%s: route %v, want %v", tc.typ, got, tc.want)
		}
		if m.LastRV() != tc.rv {
			t.Errorf("%s: lastRV %q, want %q", tc.typ, m.LastRV(), tc.rv)
		}
	}
	if event(m, rest.Error, "", false) != ToError {
		t.Error("ERROR event not routed to ToError")
	}
}

func TestMachineWatchEnds(t *testing.T) {
	tooLarge := &rest.StatusError{Status: rest.Status{Code: 504, Reason: "Timeout",
		Details: &rest.StatusDetails{Causes: []rest.StatusCause{{Type: "ResourceVersionTooLarge"}}}}}
	tooMany := &rest.StatusError{Status: rest.Status{Code: 429, Reason: "TooManyRequests"}, RetryAfter: 7 * time.Second}
	for _, tc := range []struct {
		name      string
		err       error
		wantKind  ActionKind
		wantRV    string
		wantMatch string
		wantWait  time.Duration
	}{
		{"server closed normally: resume watch at once", io.EOF, DoWatch, "120", "", 0},
		{"idle timeout: resume watch at once", rest.ErrIdleTimeout, DoWatch, "120", "", 0},
		{"410 Gone: relist not older than lastRV", statusErr(http.StatusGone, "Expired"), DoList, "120", "NotOlderThan", 0},
		{"dropped connection: back off, then resume", errors.New("connection reset"), DoWait, "", "", 800 * time.Millisecond},
		{"429 honours Retry-After", tooMany, DoWait, "", "", 7 * time.Second},
		{"too large RV on watch backs off", tooLarge, DoWait, "", "", 800 * time.Millisecond},
	} {
		t.Run(tc.name, func(t *testing.T) {
			m := newTestMachine(false)
			m.ListDone("100")
			event(m, rest.Modified, "120", false)
			m.WatchEnded(tc.err, t0)
			a := m.Next()
			if a.Kind != tc.wantKind {
				t.Fatalf("action %v, want %v", a.Kind, tc.wantKind)
			}
			if a.Kind == DoWait {
				if a.Wait != tc.wantWait {
					t.Fatalf("wait %v, want %v", a.Wait, tc.wantWait)
				}
				m.WaitDone()
				a = m.Next()
				if a.Kind != DoWatch || a.Options.ResourceVersion != "120" {
					t.Fatalf("after wait: %+v, want WATCH from 120 (no relist)", a)
				}
				return
			}
			if a.Options.ResourceVersion != tc.wantRV || a.Options.ResourceVersionMatch != tc.wantMatch {
				t.Fatalf("options %+v, want rv %q match %q", a.Options, tc.wantRV, tc.wantMatch)
			}
		})
	}
}

func TestMachineListExpiredRelistsAtNewest(t *testing.T) {
	m := newTestMachine(false)
	m.ListDone("100")
	m.WatchEnded(statusErr(410, "Expired"), t0)
	if a := m.Next(); a.Options.ResourceVersion != "100" {
		t.Fatalf("relist rv %q, want 100", a.Options.ResourceVersion)
	}
	// The list at 100 is itself expired: read the newest state, at once.
	m.ListFailed(statusErr(410, "Expired"), t0)
	a := m.Next()
	if a.Kind != DoList || a.Options.ResourceVersion != "" || a.Options.ResourceVersionMatch != "" {
		t.Fatalf("after expired list: %+v, want LIST with resourceVersion unset", a)
	}
	// Gone again at "" (a continue token expired): back off, no tight loop.
	m.ListFailed(statusErr(410, "Expired"), t0)
	if a := m.Next(); a.Kind != DoWait {
		t.Fatalf("second Gone: %+v, want a backoff wait", a)
	}
}

func TestMachineTooLargeListDoesNotLoop(t *testing.T) {
	m := newTestMachine(false)
	m.ListDone("100")
	m.WatchEnded(statusErr(410, "Expired"), t0)
	tooLarge := &rest.StatusError{Status: rest.Status{Code: 504,
		Details: &rest.StatusDetails{Causes: []rest.StatusCause{{Type: "ResourceVersionTooLarge"}}}}}
	m.ListFailed(tooLarge, t0)
	if a := m.Next(); a.Kind != DoWait {
		t.Fatalf("got %+v, want wait", a)
	}
	m.WaitDone()
	if a := m.Next(); a.Kind != DoList || a.Options.ResourceVersion != "" {
		t.Fatalf("got %+v, want LIST at newest", a)
	}
}

func TestMachineBackoffGrowsAndResets(t *testing.T) {
	m := newTestMachine(false)
	m.ListDone("1")
	var got []time.Duration
	now := t0
	for i := 0; i < 8; i++ {
		m.WatchEnded(errors.New("boom"), now)
		got = append(got, m.Next().Wait)
		m.WaitDone()
		now = now.Add(time.Second)
	}
	want := []time.Duration{800 * time.Millisecond, 1600 * time.Millisecond, 3200 * time.Millisecond,
		6400 * time.Millisecond, 12800 * time.Millisecond, 25600 * time.Millisecond, 30 * time.Second, 30 * time.Second}
	for i := range want {
		if got[i] != want[i] {
			t.Fatalf("backoff sequence %v, want %v", got, want)
		}
	}
	m.WatchEnded(errors.New("boom"), now.Add(2*time.Minute))
	if w := m.Next().Wait; w != 800*time.Millisecond {
		t.Fatalf("after 2 healthy minutes backoff %v, want reset to 800ms", w)
	}
}

func TestMachineWatchList(t *testing.T) {
	m := newTestMachine(true)
	a := m.Next()
	if a.Kind != DoWatch || a.Options.SendInitialEvents == nil || !*a.Options.SendInitialEvents ||
		a.Options.ResourceVersionMatch != "NotOlderThan" || !a.Options.AllowWatchBookmarks {
		t.Fatalf("first action %+v, want a WatchList", a)
	}
	// Initial events come in no RV order: they go to the replace and do
	// not move lastRV.
	if r := event(m, rest.Added, "90", false); r != ToReplace {
		t.Fatalf("initial ADDED routed %v", r)
	}
	if r := event(m, rest.Bookmark, "95", false); r != ToNothing || m.LastRV() != "" {
		t.Fatalf("plain bookmark during initial events: %v rv %q", r, m.LastRV())
	}
	if r := event(m, rest.Bookmark, "100", true); r != ToReplaceFinish || m.LastRV() != "100" || !m.Synced() {
		t.Fatalf("initial-events-end: route %v rv %q synced %v", r, m.LastRV(), m.Synced())
	}
	if r := event(m, rest.Added, "101", false); r != ToAdd {
		t.Fatalf("ADDED after initial events routed %v, want ToAdd", r)
	}
}

func TestMachineWatchListRefusedFallsBackToList(t *testing.T) {
	m := newTestMachine(true)
	m.Next()
	m.WatchEnded(statusErr(http.StatusUnprocessableEntity, "Invalid"), t0)
	a := m.Next()
	if a.Kind != DoList || !m.WatchListDisabled() {
		t.Fatalf("after refusal: %+v disabled=%v, want LIST+WATCH from now on", a, m.WatchListDisabled())
	}
	m.ListDone("10")
	m.WatchEnded(statusErr(410, "Expired"), t0)
	if a := m.Next(); a.Kind != DoList {
		t.Fatalf("after 410 with WatchList refused: %+v, want LIST", a)
	}
}

func TestMachineWatchListDroppedRetries(t *testing.T) {
	m := newTestMachine(true)
	m.Next()
	m.WatchEnded(io.ErrUnexpectedEOF, t0)
	if a := m.Next(); a.Kind != DoWait {
		t.Fatalf("%+v, want backoff", a)
	}
	m.WaitDone()
	if a := m.Next(); a.Kind != DoWatch || a.Options.SendInitialEvents == nil {
		t.Fatalf("%+v, want WatchList again", a)
	}
}

// API rule: a continue token whose snapshot was compacted is answered 410
// Expired. The list is then read again at once, unpaginated, at the same
// resourceVersion, so that it cannot expire the same way; the next relist
// pages again.
func TestMachineContinueExpiredListsUnpaginated(t *testing.T) {
	m := newTestMachine(false)
	m.ListDone("100")
	m.WatchEnded(statusErr(http.StatusGone, "Expired"), t0)
	m.ContinueExpired()
	a := m.Next()
	if a.Kind != DoList || a.Options.Limit != 0 || a.Options.ResourceVersion != "100" || a.Options.ResourceVersionMatch != "NotOlderThan" {
		t.Fatalf("after an expired continue token: %+v, want an unpaginated LIST not older than 100", a)
	}
	m.ListDone("180")
	m.WatchEnded(statusErr(http.StatusGone, "Expired"), t0)
	if a := m.Next(); a.Kind != DoList || a.Options.Limit != 500 {
		t.Fatalf("next relist: %+v, want paginated again", a)
	}
}

// A 403 on a WatchList says the caller may not do it yet (an RBAC binding
// still on its way), not that the server lacks WatchList: the machine falls
// back to LIST+WATCH for that attempt's backoff window only. A relist
// inside the window lists; one after it streams again.
func TestMachineWatchListForbiddenPausesIt(t *testing.T) {
	m := newTestMachine(true)
	m.Next()
	m.WatchEnded(statusErr(http.StatusForbidden, "Forbidden"), t0)
	if a := m.Next(); a.Kind != DoList || m.WatchListDisabled() {
		t.Fatalf("after a 403: %+v disabled=%v, want a LIST now and WatchList kept", a, m.WatchListDisabled())
	}
	m.ListDone("10")
	m.WatchEnded(statusErr(http.StatusGone, "Expired"), t0.Add(799*time.Millisecond)) // inside the 800 ms window
	if a := m.Next(); a.Kind != DoList {
		t.Fatalf("a relist inside the 403's backoff window: %+v, want LIST", a)
	}
	m.ListDone("20")
	m.WatchEnded(statusErr(http.StatusGone, "Expired"), t0.Add(800*time.Millisecond))
	if a := m.Next(); a.Kind != DoWatch || a.Options.SendInitialEvents == nil {
		t.Fatalf("a relist after the window: %+v, want WatchList again", a)
	}
}
