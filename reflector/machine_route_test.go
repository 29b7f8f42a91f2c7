package reflector

import (
	"errors"
	"fmt"
	"io"
	"net/http"
	"testing"
	"time"

	"github.com/kcmlab/kcm/kube/rest"
)

// Route only says where an event goes; nothing moves until Accepted.
func TestMachineRouteCommitsNothing(t *testing.T) {
	for _, tc := range []struct {
		watchList  bool
		typ        rest.EventType
		initialEnd bool
		want       Route
	}{
		{false, rest.Added, false, ToAdd},
		{false, rest.Modified, false, ToUpdate},
		{false, rest.Deleted, false, ToDelete},
		{false, rest.Bookmark, false, ToNothing},
		{false, rest.Bookmark, true, ToNothing}, // an end bookmark outside a WatchList ends nothing
		{false, rest.EventType("PATCHED"), false, ToNothing},
		{false, rest.Error, false, ToError},
		{true, rest.Added, false, ToReplace},
		{true, rest.Modified, false, ToReplace},
		{true, rest.Bookmark, false, ToNothing},
		{true, rest.Bookmark, true, ToReplaceFinish},
		{true, rest.Error, false, ToError},
	} {
		m := newTestMachine(tc.watchList)
		if !tc.watchList {
			m.ListDone("100")
		}
		phase, rv := m.Phase(), m.LastRV()
		if got := m.Route(tc.typ, "101", tc.initialEnd); got != tc.want {
			t.Errorf("watchList=%v %s end=%v: route %v, want %v", tc.watchList, tc.typ, tc.initialEnd, got, tc.want)
		}
		if m.Phase() != phase || m.LastRV() != rv {
			t.Errorf("watchList=%v %s: Route moved the machine to %v at %q", tc.watchList, tc.typ, m.Phase(), m.LastRV())
		}
	}
}

// What Accepted records: the resourceVersion of watch events and
// bookmarks; during a WatchList nothing until its end bookmark, which
// completes the initial state.
func TestMachineAccepted(t *testing.T) {
	m := newTestMachine(false)
	m.ListDone("100")
	m.Accepted(ToNothing, "") // a bookmark without a resourceVersion
	if m.LastRV() != "100" {
		t.Fatalf("lastRV %q after an empty resourceVersion, want 100", m.LastRV())
	}
	m.Accepted(ToDelete, "105")
	if m.LastRV() != "105" {
		t.Fatalf("lastRV %q, want 105", m.LastRV())
	}

	m = newTestMachine(true)
	m.Accepted(ToReplace, "90")
	m.Accepted(ToNothing, "95")
	if m.LastRV() != "" || m.Synced() || m.Phase() != WatchListing {
		t.Fatalf("during initial events: rv %q synced %v phase %v", m.LastRV(), m.Synced(), m.Phase())
	}
	m.Accepted(ToReplaceFinish, "100")
	if m.LastRV() != "100" || !m.Synced() || m.Phase() != Watching {
		t.Fatalf("after the end bookmark: rv %q synced %v phase %v", m.LastRV(), m.Synced(), m.Phase())
	}
	// A later 410 WatchLists again not older than 100.
	m.WatchEnded(statusErr(http.StatusGone, "Expired"), t0)
	if a := m.Next(); a.Options.SendInitialEvents == nil || a.Options.ResourceVersion != "100" {
		t.Fatalf("after 410: %+v, want a WatchList not older than 100", a.Options)
	}
}

// An event the sink refused was never accepted: the next watch starts
// before it, after a backoff.
func TestMachineRefusedEventIsAskedForAgain(t *testing.T) {
	m := newTestMachine(false)
	m.ListDone("100")
	if r := m.Route(rest.Added, "101", false); r != ToAdd {
		t.Fatalf("route %v", r)
	}
	m.WatchEnded(fmt.Errorf("%w: transform failed", ErrRefused), t0)
	if a := m.Next(); a.Kind != DoWait || a.Wait != 800*time.Millisecond {
		t.Fatalf("after a refusal: %+v, want an 800ms wait", a)
	}
	m.WaitDone()
	if a := m.Next(); a.Kind != DoWatch || a.Options.ResourceVersion != "100" {
		t.Fatalf("after the wait: %+v, want WATCH from 100", a)
	}
}

// A refusal is backed off whatever the sink's error wraps: not resumed at
// once (io.EOF), not a relist (410), not a WatchList refusal (403).
func TestMachineRefusalWhateverItWraps(t *testing.T) {
	refusal := func(err error) error { return fmt.Errorf("%w: %w", ErrRefused, err) }
	for _, wrapped := range []error{io.EOF, rest.ErrIdleTimeout, statusErr(http.StatusGone, "Expired"), statusErr(http.StatusForbidden, "Forbidden")} {
		for _, watchList := range []bool{false, true} {
			m := newTestMachine(watchList)
			if !watchList {
				m.ListDone("100")
			}
			phase := m.Phase()
			if got := m.WatchEnded(refusal(wrapped), t0); !errors.Is(got, ErrRefused) {
				t.Errorf("WatchEnded returned %v", got)
			}
			if a := m.Next(); a.Kind != DoWait {
				t.Errorf("refusal wrapping %v (watchList=%v): %+v, want a backoff", wrapped, watchList, a)
			}
			m.WaitDone()
			if m.Phase() != phase || m.WatchListDisabled() {
				t.Errorf("refusal wrapping %v: phase %v (want %v), WatchList disabled %v", wrapped, m.Phase(), phase, m.WatchListDisabled())
			}
		}
		m := newTestMachine(false)
		m.ListDone("100")
		m.WatchEnded(statusErr(http.StatusGone, "Expired"), t0) // relist not older than 100
		m.ListFailed(refusal(wrapped), t0)
		if a := m.Next(); a.Kind != DoWait {
			t.Errorf("refused list item wrapping %v: %+v, want a backoff", wrapped, a)
		}
		m.WaitDone()
		if a := m.Next(); a.Kind != DoList || a.Options.ResourceVersion != "100" {
			t.Errorf("refused list item wrapping %v: then %+v, want the same LIST not older than 100", wrapped, a)
		}
	}
}

// client-go rule (VeryShortWatchError): a watch the server ends normally
// (io.EOF) less than a second after it was requested, with no event,
// counts as an error and is backed off; a bookmark is an event. The
// machine is stepped through each case with explicit times.
func TestMachineVeryShortWatch(t *testing.T) {
	for _, tc := range []struct {
		name    string
		lasted  time.Duration
		event   bool
		err     error
		backOff bool
	}{
		{"ended at once", 0, false, io.EOF, true},
		{"ended after 999ms", 999 * time.Millisecond, false, io.EOF, true},
		{"ended after 1s", time.Second, false, io.EOF, false},
		{"ended at once after a bookmark", 0, true, io.EOF, false},
		{"idle timeout at once (not a server end)", 0, false, rest.ErrIdleTimeout, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			m := newTestMachine(false)
			m.ListDone("100")
			m.Next()
			m.WatchStarting(t0)
			if tc.event {
				m.Accepted(m.Route(rest.Bookmark, "150", false), "150")
			}
			got := m.WatchEnded(tc.err, t0.Add(tc.lasted))
			a := m.Next()
			if tc.backOff != (a.Kind == DoWait) {
				t.Fatalf("next %+v, want a backoff: %v", a, tc.backOff)
			}
			if tc.backOff != errors.Is(got, ErrVeryShortWatch) {
				t.Fatalf("WatchEnded returned %v", got)
			}
			if !tc.backOff {
				return
			}
			if a.Wait != 800*time.Millisecond {
				t.Fatalf("wait %v, want 800ms", a.Wait)
			}
			m.WaitDone()
			if a := m.Next(); a.Kind != DoWatch || a.Options.ResourceVersion != "100" {
				t.Fatalf("after the wait: %+v, want WATCH from 100", a)
			}
		})
	}
	// Each watch is timed from its own start, and an event of an earlier
	// watch does not count.
	m := newTestMachine(false)
	m.ListDone("100")
	m.WatchStarting(t0)
	m.Accepted(ToUpdate, "101")
	m.WatchEnded(io.EOF, t0.Add(time.Hour))
	m.WatchStarting(t0.Add(2 * time.Hour))
	m.WatchEnded(io.EOF, t0.Add(2*time.Hour+time.Millisecond))
	if a := m.Next(); a.Kind != DoWait {
		t.Fatalf("second watch ended at once with no event: %+v, want a backoff", a)
	}
}

// UnsupportedMax: WatchList is given up after that many refusals; an
// initial state received in between starts the count again.
func TestMachineUnsupportedMax(t *testing.T) {
	m := NewMachine(Settings{WatchList: true, UnsupportedMax: 2, Backoff: noJitter()})
	refuse := func() {
		m.Next()
		m.WatchEnded(statusErr(http.StatusBadRequest, "BadRequest"), t0)
	}
	refuse()
	if m.WatchListDisabled() || m.Phase() != BackingOff {
		t.Fatalf("after one refusal of two: disabled %v phase %v, want a backoff", m.WatchListDisabled(), m.Phase())
	}
	m.WaitDone()
	m.Accepted(ToReplaceFinish, "100")
	m.WatchEnded(statusErr(http.StatusGone, "Expired"), t0)
	refuse()
	if m.WatchListDisabled() {
		t.Fatal("a success in between did not reset the count")
	}
	m.WaitDone()
	refuse()
	if !m.WatchListDisabled() || m.Phase() != Listing {
		t.Fatalf("after two refusals: disabled %v phase %v, want LIST", m.WatchListDisabled(), m.Phase())
	}
}

// Every request carries the selectors and the watch timeout Settings give.
func TestMachineRequestsCarrySettings(t *testing.T) {
	m := NewMachine(Settings{WatchList: true, PageSize: 5, LabelSelector: "a=b", FieldSelector: "c=d",
		WatchTimeout: func() int64 { return 42 }, Backoff: noJitter()})
	check := func(what string, o rest.ListOptions) {
		t.Helper()
		if o.LabelSelector != "a=b" || o.FieldSelector != "c=d" {
			t.Fatalf("%s: %+v, want the selectors", what, o)
		}
	}
	a := m.Next()
	check("WatchList", a.Options)
	if a.Options.TimeoutSeconds != 42 {
		t.Fatalf("WatchList timeout %d, want 42", a.Options.TimeoutSeconds)
	}
	m.WatchEnded(statusErr(http.StatusUnprocessableEntity, "Invalid"), t0)
	a = m.Next()
	check("LIST", a.Options)
	if a.Options.Limit != 5 || a.Options.ResourceVersionMatch != "" {
		t.Fatalf("LIST %+v, want 5 per page, newest state", a.Options)
	}
	m.ListDone("7")
	a = m.Next()
	check("WATCH", a.Options)
	if a.Options.TimeoutSeconds != 42 {
		t.Fatalf("WATCH timeout %d, want 42", a.Options.TimeoutSeconds)
	}
	if NewMachine(Settings{}).Next().Kind != DoList {
		t.Fatal("zero Settings: want LIST first")
	}
	m = NewMachine(Settings{})
	m.ListDone("1")
	if ts := m.Next().Options.TimeoutSeconds; ts != 300 {
		t.Fatalf("default watch timeout %d, want 300", ts)
	}
}

func TestPhaseNames(t *testing.T) {
	for p, want := range map[Phase]string{Listing: "listing", WatchListing: "watch-listing", Watching: "watching", BackingOff: "backing-off"} {
		if p.String() != want {
			t.Errorf("%d: %q, want %q", p, p.String(), want)
		}
	}
}

// Backoff: jitter adds rand·Jitter·d; a failure exactly ResetAfter after
// the previous one starts over; Reset forgets.
func TestBackoffJitterAndReset(t *testing.T) {
	b := Backoff{Initial: time.Second, Max: time.Minute, Factor: 3, Jitter: 0.5, ResetAfter: time.Minute,
		Rand: func() float64 { return 0.5 }}
	for i, want := range []time.Duration{1250 * time.Millisecond, 3750 * time.Millisecond, 11250 * time.Millisecond} {
		if got := b.Next(t0.Add(time.Duration(i) * time.Second)); got != want {
			t.Fatalf("failure %d: %v, want %v", i, got, want)
		}
	}
	if got := b.Next(t0.Add(2*time.Second + time.Minute)); got != 1250*time.Millisecond {
		t.Fatalf("exactly ResetAfter later: %v, want the initial 1.25s", got)
	}
	b.Next(t0.Add(time.Hour))
	b.Reset()
	if got := b.Next(t0.Add(time.Hour + time.Second)); got != 1250*time.Millisecond {
		t.Fatalf("after Reset: %v, want the initial 1.25s", got)
	}
	d := DefaultBackoff()
	for range 20 {
		if w := d.Next(t0); w < 800*time.Millisecond || w >= 1600*time.Millisecond {
			t.Fatalf("default first wait %v, want [800ms, 1.6s)", w)
		}
		d.Reset()
	}
}

// A WatchList at a resourceVersion that expired (410) or that the server
// has not reached (too large) is retried at the newest state, after a
// backoff; other failures retry at the same resourceVersion.
func TestMachineWatchListAtUnavailableRV(t *testing.T) {
	tooLarge := &rest.StatusError{Status: rest.Status{Code: 504,
		Details: &rest.StatusDetails{Causes: []rest.StatusCause{{Type: "ResourceVersionTooLarge"}}}}}
	for _, tc := range []struct {
		err    error
		wantRV string
	}{
		{statusErr(http.StatusGone, "Expired"), ""},
		{tooLarge, ""},
		{io.ErrUnexpectedEOF, "100"},
	} {
		m := newTestMachine(true)
		m.Accepted(ToReplaceFinish, "100")
		m.WatchEnded(statusErr(http.StatusGone, "Expired"), t0) // WatchList again, not older than 100
		m.WatchEnded(tc.err, t0)
		if a := m.Next(); a.Kind != DoWait {
			t.Fatalf("%v: %+v, want a backoff", tc.err, a)
		}
		m.WaitDone()
		if a := m.Next(); a.Options.SendInitialEvents == nil || a.Options.ResourceVersion != tc.wantRV {
			t.Fatalf("%v: then %+v, want a WatchList at %q", tc.err, a.Options, tc.wantRV)
		}
	}
}

// API rule: a watch's events come in increasing resourceVersion order
// after the one it started from. Watching from 100, an event older than
// the last applied is ToOutOfOrder; one at it, or a resourceVersion that
// is not a decimal integer (opaque), is routed as usual; a bookmark older
// than it is accepted without moving lastRV back. During a WatchList's
// initial events (no order among them) nothing is compared.
func TestMachineRouteOrder(t *testing.T) {
	m := newTestMachine(false)
	m.ListDone("100")
	for _, tc := range []struct {
		typ  rest.EventType
		rv   string
		want Route
	}{
		{rest.Added, "99", ToOutOfOrder},
		{rest.Modified, "1", ToOutOfOrder},
		{rest.Deleted, "99", ToOutOfOrder},
		{rest.Added, "100", ToAdd},
		{rest.Added, "x7", ToAdd},
		{rest.Bookmark, "99", ToNothing},
		{rest.Error, "", ToError},
	} {
		if got := m.Route(tc.typ, tc.rv, false); got != tc.want {
			t.Errorf("%s at %s after 100: %v, want %v", tc.typ, tc.rv, got, tc.want)
		}
	}
	m.Accepted(ToNothing, "99")
	if m.LastRV() != "100" {
		t.Fatalf("a bookmark at 99 moved lastRV to %s", m.LastRV())
	}
	wl := newTestMachine(true)
	wl.ListDone("100")
	wl.WatchEnded(&rest.StatusError{Status: rest.Status{Code: 410, Reason: "Expired"}}, t0)
	if wl.Phase() != WatchListing {
		t.Fatalf("phase %v, want watch-listing", wl.Phase())
	}
	if got := wl.Route(rest.Added, "5", false); got != ToReplace {
		t.Fatalf("an initial event at 5 during a WatchList from 100: %v, want ToReplace", got)
	}
}
