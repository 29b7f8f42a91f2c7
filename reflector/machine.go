package reflector

import (
	"context"
	"errors"
	"fmt"
	"io"
	"strconv"
	"time"

	"github.com/kcmlab/kcm/kube/rest"
)

// Phase is where the reflector stands.
type Phase int

// The phases of a reflector's life. Every error leads through BackingOff
// (or straight to the next attempt when waiting would gain nothing), and
// only an expired resourceVersion leads back to a full list.
//
//	         ┌────────────── 410 Gone ───────────────┐
//	         ▼                                       │
//	┌─▶ Listing ──ok──▶ Watching ──event/bookmark──▶ Watching
//	│   WatchListing       │  ▲
//	│      │               │  └── EOF, idle, drop: resume at lastRV
//	│    error           error
//	│      ▼               ▼
//	└─ BackingOff ◀────────┘  (then back to the phase that failed)
const (
	Listing      Phase = iota // LIST (paginated), streaming items into a replace
	WatchListing              // WATCH with sendInitialEvents: the initial state arrives as events
	Watching                  // WATCH from lastRV
	BackingOff                // waiting before the next attempt
)

func (p Phase) String() string {
	return [...]string{"listing", "watch-listing", "watching", "backing-off"}[p]
}

// ActionKind says what the shell must do.
type ActionKind int

// Actions.
const (
	DoList  ActionKind = iota // run a (paginated) LIST with Action.Options
	DoWatch                   // open a WATCH with Action.Options
	DoWait                    // wait Action.Wait, then ask again
)

// anyRV is resourceVersion "0": any state, typically the apiserver's watch
// cache as it stands (API conventions, "Resource versions": "0" means
// "Any").
const anyRV = "0"

// Action is the next step the machine asks for.
type Action struct {
	Kind    ActionKind
	Options rest.ListOptions
	Wait    time.Duration
}

// Route says where a watch event goes.
type Route int

// Routes of watch events.
const (
	ToAdd           Route = iota // sink.Add
	ToUpdate                     // sink.Update
	ToDelete                     // sink.Delete
	ToReplace                    // the open replace (WatchList initial events)
	ToReplaceFinish              // close the replace: the initial state is complete
	ToNothing                    // bookmark: only the resourceVersion advances
	ToError                      // an ERROR event: end the watch with Event.Err
	// ToOutOfOrder: an event older than the last resourceVersion applied;
	// the shell ends the watch with ErrOutOfOrder, applying nothing.
	ToOutOfOrder
)

// VeryShortWatch is client-go's threshold: a watch the server ends
// normally sooner than this after it was opened, with no event, counts as
// an error and is backed off (ErrVeryShortWatch).
const VeryShortWatch = time.Second

var (
	// ErrRefused wraps what the sink answered when it refused a list item
	// or an event (a Transform's error, a closed FIFO). The refused state
	// is asked for again after a backoff; it is never skipped.
	ErrRefused = errors.New("sink refused")
	// ErrVeryShortWatch reports a watch the server ended normally within
	// VeryShortWatch with no event (client-go: VeryShortWatchError).
	ErrVeryShortWatch = errors.New("very short watch: ended by the server within a second with no event")
	// ErrOutOfOrder ends a watch that sent an event older than the last
	// resourceVersion applied.
	ErrOutOfOrder = errors.New("watch event older than the last resourceVersion applied")
)

// Settings configure a Machine.
type Settings struct {
	PageSize  int64 // LIST page size; 0 = unpaginated
	WatchList bool  // try WatchList first, fall back to LIST+WATCH if refused
	// FromCache: until a first list completes, a LIST reads at
	// resourceVersion "0" ("any": the apiserver answers from its watch
	// cache, whole, ignoring the page size), as client-go's first list
	// does. Once the reflector has a resourceVersion, or when the list at
	// "0" was refused as expired or too large, lists read at that
	// resourceVersion or at the newest state, as without it.
	FromCache bool
	// WatchTimeout returns the timeoutSeconds of the next watch (randomised
	// by the shell so that many informers do not reconnect in step).
	WatchTimeout   func() int64
	LabelSelector  string
	FieldSelector  string
	Backoff        Backoff
	UnsupportedMax int // how many WatchList refusals before giving up on it; default 1
}

// Machine is the reflector's logic with no goroutines and no clock: the
// shell asks Next for an action, performs it, and reports the outcome back.
// Tests drive it step by step.
type Machine struct {
	s     Settings
	phase Phase
	// afterWait is the phase to return to when a wait ends.
	afterWait Phase
	// lastRV is the resourceVersion of the newest state the sink accepted:
	// a list's RV, then each watch event's and bookmark's. A watch resumes
	// from it, so no event is missed or applied twice.
	lastRV string
	// relistRV is where the next LIST reads: "" (the newest state, a quorum
	// read) at start and after the list itself was expired or too large,
	// or "0" (any state the server's cache holds) at start with FromCache;
	// lastRV after a watch expired, so the new list is not older than what
	// was already applied.
	relistRV string
	// partialRV is the newest resourceVersion of an object that a list (or
	// a WatchList's initial events) handed the sink before it failed: the
	// sink keeps such objects (a failed replace tombstones nothing but
	// undoes nothing either), so the next list must not read an older
	// state, or the cache would travel back in time for them. "" when no
	// unfinished list handed anything over since the last complete one.
	partialRV string
	// watchListOff is set once the server refused WatchList.
	watchListOff bool
	// watchListPausedUntil: after a 403 on a WatchList, relists use
	// LIST+WATCH until then (the end of that attempt's backoff window).
	watchListPausedUntil time.Time
	// unpaginated is set when a paginated LIST lost its continue token to
	// a compaction: the next LIST asks for everything in one response (no
	// continue token to expire). ListDone clears it.
	unpaginated bool
	refusals    int
	wait        time.Duration
	synced      bool
	// watchStart is when the current watch was requested, and sawEvent
	// whether it delivered any event: together they tell a very short
	// watch (VeryShortWatch).
	watchStart time.Time
	sawEvent   bool
}

// NewMachine returns a machine about to make its first list.
func NewMachine(s Settings) *Machine {
	s.UnsupportedMax = max(s.UnsupportedMax, 1)
	if s.WatchTimeout == nil {
		s.WatchTimeout = func() int64 { return 300 }
	}
	m := &Machine{s: s, phase: Listing}
	if s.FromCache {
		m.relistRV = anyRV
	}
	if s.WatchList {
		m.phase = WatchListing
	}
	return m
}

// Phase returns the current phase.
func (m *Machine) Phase() Phase { return m.phase }

// LastRV returns the resourceVersion of the newest state the sink accepted.
func (m *Machine) LastRV() string { return m.lastRV }

// Synced reports whether an initial state was ever completely received.
func (m *Machine) Synced() bool { return m.synced }

// Next returns the action for the current phase.
func (m *Machine) Next() Action {
	base := rest.ListOptions{LabelSelector: m.s.LabelSelector, FieldSelector: m.s.FieldSelector}
	switch m.phase {
	case Listing:
		if !m.unpaginated {
			base.Limit = m.s.PageSize
		}
		base.ResourceVersion = m.listRV()
		if base.ResourceVersion != "" && base.ResourceVersion != anyRV {
			base.ResourceVersionMatch = "NotOlderThan"
		}
		return Action{Kind: DoList, Options: base}
	case WatchListing:
		t := true
		base.SendInitialEvents = &t
		if rv := m.listRV(); rv != anyRV { // a WatchList starts at the newest state, not at "any"
			base.ResourceVersion = rv
		}
		base.ResourceVersionMatch = "NotOlderThan"
		base.AllowWatchBookmarks = true
		base.TimeoutSeconds = m.s.WatchTimeout()
		return Action{Kind: DoWatch, Options: base}
	case Watching:
		base.ResourceVersion = m.lastRV
		base.AllowWatchBookmarks = true
		base.TimeoutSeconds = m.s.WatchTimeout()
		return Action{Kind: DoWatch, Options: base}
	}
	return Action{Kind: DoWait, Wait: m.wait}
}

// listRV is where the next list reads: relistRV, raised to partialRV when
// a failed list already handed the sink objects newer than relistRV
// promises ("0" promises nothing; "" is the newest state and needs no
// raising).
func (m *Machine) listRV() string {
	if m.partialRV == "" || m.relistRV == "" {
		return m.relistRV
	}
	if m.relistRV == anyRV || olderRV(m.relistRV, m.partialRV) {
		return m.partialRV
	}
	return m.relistRV
}

// Listed reports that the list in progress (a LIST page or a WatchList's
// initial events) handed the sink an object at resourceVersion rv.
func (m *Machine) Listed(rv string) {
	if rv == "" {
		return
	}
	if _, err := strconv.ParseUint(rv, 10, 64); err != nil {
		return // opaque: cannot be compared, so it cannot raise the floor
	}
	if m.partialRV == "" || olderRV(m.partialRV, rv) {
		m.partialRV = rv
	}
}

// WaitDone reports that a DoWait has elapsed.
func (m *Machine) WaitDone() {
	if m.phase == BackingOff {
		m.phase = m.afterWait
	}
}

// ListDone reports a complete LIST at resourceVersion rv.
func (m *Machine) ListDone(rv string) {
	m.lastRV, m.relistRV, m.synced = rv, rv, true
	m.partialRV = ""
	m.unpaginated = false
	m.phase = Watching
}

// ListFailed reports a LIST that failed at now (or that the sink
// refused: err wraps ErrRefused).
func (m *Machine) ListFailed(err error, now time.Time) {
	if errors.Is(err, ErrRefused) {
		// Whatever the sink's error wraps, the list was fine: back off and
		// read it again.
		m.backOff(err, now, Listing)
		return
	}
	if rest.IsGone(err) && m.relistRV != "" {
		// The RV we listed at (or a continue token) expired: read the newest
		// state instead, at once. A 410 on a list at "0" (which a server
		// should never send) goes the same way: client-go retries every
		// expired list at the newest state.
		m.relistRV = ""
		return
	}
	if rest.IsResourceVersionTooLarge(err) {
		// The server has not reached relistRV (another apiserver was ahead).
		// Asking again for the same RV could loop forever: read the newest.
		m.relistRV = ""
	}
	m.backOff(err, now, Listing)
}

// ContinueExpired reports a paginated LIST whose continue token was
// refused as expired (410) after the first page: the snapshot it was
// reading has been compacted. Paging again could meet the same fate every
// time, so the next LIST, at once and at the same resourceVersion, is
// unpaginated (client-go's pager falls back likewise: FullListIfExpired).
func (m *Machine) ContinueExpired() {
	m.unpaginated = true
}

// WatchStarting reports that the shell is about to open the watch that
// Next asked for, at now.
func (m *Machine) WatchStarting(now time.Time) {
	m.watchStart, m.sawEvent = now, false
}

// Route says where a watch event of type t at resourceVersion rv goes;
// initialEnd marks the bookmark that ends a WatchList's initial events. It
// changes nothing: the shell hands the event to the sink and then reports
// Accepted, so that an event the sink refused is not counted as applied,
// and the next watch, from the last accepted resourceVersion, delivers it
// again.
//
// A live event older than the last resourceVersion applied is routed
// ToOutOfOrder: the events of a watch come in increasing resourceVersion
// order, after the one the watch started from, so such a stream went back
// in time (a stale event, an out-of-order pair, one older than the list)
// and may have hidden a change. An event at the last resourceVersion (a
// repeat) moves nothing back and is applied.
func (m *Machine) Route(t rest.EventType, rv string, initialEnd bool) Route {
	if t == rest.Error {
		return ToError
	}
	if m.phase == WatchListing {
		if t != rest.Bookmark {
			return ToReplace
		}
		if initialEnd {
			return ToReplaceFinish
		}
		return ToNothing // initial events come in no RV order: only their end moves lastRV
	}
	if t != rest.Bookmark && olderRV(rv, m.lastRV) {
		return ToOutOfOrder
	}
	switch t {
	case rest.Added:
		return ToAdd
	case rest.Modified:
		return ToUpdate
	case rest.Deleted:
		return ToDelete
	}
	return ToNothing
}

// Accepted reports that the sink took an event routed to r (or that r was
// ToNothing) whose object is at resourceVersion rv: a later watch resumes
// after it. The end of a WatchList's initial events completes the initial
// state.
func (m *Machine) Accepted(r Route, rv string) {
	m.sawEvent = true
	if r == ToReplaceFinish {
		m.lastRV, m.relistRV, m.synced = rv, rv, true
		m.partialRV = ""
		m.refusals = 0
		m.phase = Watching
		return
	}
	// Initial events, and bookmarks during them, do not move lastRV; nor
	// does a bookmark older than it (a server's mistake: resuming from it
	// would only replay what was applied).
	if r == ToReplace {
		m.Listed(rv)
	}
	if m.phase != WatchListing && rv != "" && !olderRV(rv, m.lastRV) {
		m.lastRV = rv
	}
}

// WatchEnded reports that the watch stopped with err at now (io.EOF: the
// server closed it normally; an error wrapping ErrRefused: the sink
// refused an event). It returns the cause to report, which is err unless
// the watch was very short (ErrVeryShortWatch).
func (m *Machine) WatchEnded(err error, now time.Time) error {
	if errors.Is(err, ErrRefused) {
		// Whatever the sink's error wraps (even io.EOF or a 410), the
		// watch was fine: back off, then offer the refused event again.
		m.backOff(err, now, m.phase)
		return err
	}
	if m.phase == WatchListing {
		m.watchListEnded(err, now)
		return err
	}
	if lasted := now.Sub(m.watchStart); errors.Is(err, io.EOF) && !m.sawEvent && lasted < VeryShortWatch {
		err = fmt.Errorf("%w (after %v)", ErrVeryShortWatch, lasted)
		m.backOff(err, now, Watching)
		return err
	}
	switch {
	case errors.Is(err, io.EOF), errors.Is(err, rest.ErrIdleTimeout):
		return err // resume from lastRV at once
	case errors.Is(err, ErrOutOfOrder):
		// The stream cannot be trusted to have delivered every change:
		// list the newest state again, after a backoff (a server that
		// keeps doing it must not cost a LIST per event).
		m.relistRV = ""
		m.backOff(err, now, m.relistPhase(now))
		return err
	case rest.IsGone(err):
		m.relistRV = m.lastRV
		m.phase = m.relistPhase(now)
		return err
	}
	m.backOff(err, now, Watching)
	return err
}

// watchListEnded handles the end of a WatchList before its initial-events
// bookmark arrived.
func (m *Machine) watchListEnded(err error, now time.Time) {
	if errors.Is(err, rest.ErrForbidden) {
		// Not allowed (yet): an RBAC binding may arrive a second later, so
		// this says nothing about the server's support. List now, as
		// client-go falls back, and stream again after this attempt's
		// backoff window.
		m.watchListPausedUntil = now.Add(m.s.Backoff.Next(now))
		m.phase = Listing
		return
	}
	if refusedWatchList(err) {
		m.refusals++
		if m.refusals >= m.s.UnsupportedMax {
			m.watchListOff = true
			m.phase = Listing
			return
		}
	}
	if rest.IsGone(err) || rest.IsResourceVersionTooLarge(err) {
		m.relistRV = ""
	}
	m.backOff(err, now, WatchListing)
}

// relistPhase is how the state is read again at now: WatchList when it is
// on and not paused, else LIST.
func (m *Machine) relistPhase(now time.Time) Phase {
	if m.s.WatchList && !m.watchListOff && !now.Before(m.watchListPausedUntil) {
		return WatchListing
	}
	return Listing
}

// olderRV reports whether resourceVersion rv is older than last. Both must
// be decimal integers (kube-apiserver's are etcd revisions); any other
// value is opaque and compares as not older.
func olderRV(rv, last string) bool {
	a, err1 := strconv.ParseUint(rv, 10, 64)
	b, err2 := strconv.ParseUint(last, 10, 64)
	return err1 == nil && err2 == nil && a < b
}

// WatchListDisabled reports whether the server refused WatchList.
func (m *Machine) WatchListDisabled() bool { return m.watchListOff }

// refusedWatchList reports answers meaning "this server does not do
// WatchList": a 4xx about the request itself. A 403 is not one of them: it
// is about the caller's rights, which change (watchListEnded).
func refusedWatchList(err error) bool {
	return errors.Is(err, rest.ErrBadRequest) || errors.Is(err, rest.ErrInvalid) ||
		errors.Is(err, rest.ErrMethodNotAllowed)
}

// backOff moves to BackingOff, returning to phase afterwards.
func (m *Machine) backOff(err error, now time.Time, phase Phase) {
	m.afterWait, m.phase = phase, BackingOff
	if ra, ok := rest.RetryAfter(err); ok && rest.IsTooManyRequests(err) {
		m.wait = ra
		return
	}
	m.wait = m.s.Backoff.Next(now)
}

// Stopped reports whether err means the caller asked the reflector to stop:
// ctx, the caller's own context, has ended and err is its error. An error
// that wraps context.DeadlineExceeded while ctx is alive (a client timeout,
// a dial timeout, an exec plugin that did not answer) is a failure, which
// Run backs off from and logs, never a stop.
func Stopped(ctx context.Context, err error) bool {
	return ctx.Err() != nil && (errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded))
}
