package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/kcmlab/kcm/deltafifo"
	"github.com/kcmlab/kcm/kube/rest"
	"github.com/kcmlab/kcm/reflector"
)

// printerOptions tune what a printer shows.
type printerOptions struct {
	// ShowInitial prints the initial state (and unchanged objects replayed
	// by a relist) object by object instead of summarising it.
	ShowInitial bool
}

// objState is what the printer remembers of one cached object.
type objState struct {
	rv  string
	idx indexEntries
}

// maxSeen bounds printer.seen: events whose notification never comes (an
// ERROR, a dropped watch) must not accumulate.
const maxSeen = 4096

// printer turns trace events into lines of text. It is a pure function of
// the sequence of events it is given: it reads no clock and does no I/O,
// and the same events always give the same lines.
type printer struct {
	o printerOptions
	// cache mirrors the informer's store: the state of every object the
	// store holds after the applied events seen so far (the informer applies
	// deltas in one goroutine, in order, so the mirror is exact). It is the
	// "old" side of each index diff.
	cache map[string]objState
	// seen maps "key@rv" to when the reflector read that event, to time its
	// trip to the handler. Entries are removed at delivery; the map is
	// cleared when it exceeds maxSeen.
	seen map[string]time.Time
	// A listener may call the handler before the informer's Observer hears
	// that the delta was applied (the notification is handed over first),
	// so deliveries are matched to applied deltas per key, in order: ahead
	// counts a key's applied deltas whose delivery has not come yet, early
	// holds deliveries whose applied delta has not come yet. Each is shown
	// after its store line, which is the order in which things happened.
	// (This relies on the trace's informer having exactly one handler.)
	ahead map[string]int
	early map[string][]delivered

	began time.Time
	// listFrom is when the current LIST began; listed and pages count its
	// items and pages so far.
	listFrom      time.Time
	listed, pages int
	// streaming is true between opening a watch with initial events and the
	// bookmark that ends them; streamFrom and streamed describe it.
	streaming  bool
	streamFrom time.Time
	streamed   int
	// lastInitial is when the last delta of the initial population was
	// applied: the moment the store held the whole initial state.
	// initialEnd is when the first LIST or WatchList stream ended; for an
	// empty initial state it is the end of the sync.
	lastInitial, initialEnd time.Time
	// replays counts unchanged objects replayed by a relist and not shown
	// since the last time the count was reported.
	replays int
	// changes counts the object events read from the watch and shown.
	changes int
}

func newPrinter(o printerOptions) *printer {
	return &printer{o: o, cache: map[string]objState{}, seen: map[string]time.Time{},
		ahead: map[string]int{}, early: map[string][]delivered{}}
}

// render prints events in order to w: the whole printer as one function.
func render(w io.Writer, o printerOptions, events ...traceEvent) {
	p := newPrinter(o)
	for _, e := range events {
		for _, l := range p.lines(e) {
			fmt.Fprintln(w, l)
		}
	}
}

// lines returns the lines that show e, possibly none, each safe for a
// terminal: whatever the server sent is escaped (escapeTerminal).
func (p *printer) lines(e traceEvent) []string {
	ls := p.rawLines(e)
	for i, l := range ls {
		ls[i] = escapeTerminal(l)
	}
	return ls
}

// rawLines returns the lines that show e, as they are.
func (p *printer) rawLines(e traceEvent) []string {
	switch e := e.(type) {
	case traceStart:
		return p.start(e)
	case listPage:
		return p.listPage(e)
	case watchOpened:
		return p.watchOpened(e)
	case watchEvent:
		return p.watchEvent(e)
	case watchClosed:
		return p.watchClosed(e)
	case phaseChange:
		return p.phaseChange(e)
	case applied:
		return p.applied(e)
	case delivered:
		return p.delivered(e)
	case synced:
		return p.synced(e)
	case traceStopped:
		return p.stopped(e)
	}
	return nil
}

// row formats one line: time, stage, verb, details.
func row(at time.Time, stage, verb, details string) string {
	return strings.TrimRight(fmt.Sprintf("%s  %-9s  %-8s  %s", at.Format("15:04:05.000"), stage, verb, details), " ")
}

func (p *printer) start(e traceStart) []string {
	p.began, p.listFrom = e.At, e.At
	where := "all namespaces"
	switch {
	case !e.Resource.Namespaced:
		where = "the cluster (cluster-scoped)"
	case e.Namespace != "":
		where = "namespace " + e.Namespace
	}
	wl := "off (LIST, then WATCH)"
	if e.WatchList {
		wl = "on (the initial state is streamed over the watch, no LIST)"
	}
	return []string{
		fmt.Sprintf("kcm trace: %s (%s) in %s, server %s", e.Resource.Resource, e.Resource.GroupVersion(), where, e.Server),
		fmt.Sprintf("  one informer: reflector (%s) → deltafifo → store → processor → 1 handler (this trace)", readsOf(e)),
		fmt.Sprintf("  WatchList %s; managedFields are cut before caching", wl),
		"",
		"Every change the API server reports is followed through the informer, one line per stage:",
		"  TIME          STAGE      WHAT",
		"  hh:mm:ss.mmm  reflector  the event read from the watch stream: type, namespace/name, resourceVersion, size",
		"                deltafifo  the delta popped from the FIFO; queue depth counts the deltas not yet applied, its batch included",
		"                store      the cache write, and the object's index entries: +added -removed, plain = kept",
		"                processor  the handler call a listener made, its buffer depth, time since the reflector read it",
		"  Other reflector lines show LIST pages, WATCH requests and phase changes; informer lines show the sync.",
		summaryNote(p.o.ShowInitial),
		"",
	}
}

// readsOf says how the reflector reads: its watch transport and, when
// known, the encoding it asks for.
func readsOf(e traceStart) string {
	if e.Encoding == "" {
		return e.Transport + " watch"
	}
	return e.Transport + " watch, asks for " + e.Encoding
}

func summaryNote(showInitial bool) string {
	if showInitial {
		return "  The initial state is shown object by object (--show-initial)."
	}
	return "  The initial state is summarised; --show-initial shows it object by object."
}

func (p *printer) listPage(e listPage) []string {
	if p.listFrom.IsZero() {
		p.listFrom = e.At
	}
	p.listed += e.Items
	p.pages++
	rate := fmtRate(p.listed, e.At.Sub(p.listFrom))
	if e.More {
		return []string{row(e.At, "reflector", "LIST", fmt.Sprintf("page %d: %d items at rv=%s, more pages follow (%s so far)",
			p.pages, e.Items, e.RV, rate))}
	}
	l := row(e.At, "reflector", "LIST", fmt.Sprintf("done: %d items in %d page%s at rv=%s in %s (%s)",
		p.listed, p.pages, plural(p.pages), e.RV, fmtDur(e.At.Sub(p.listFrom)), rate))
	if p.initialEnd.IsZero() {
		p.initialEnd = e.At
	}
	p.listFrom, p.listed, p.pages = time.Time{}, 0, 0
	return []string{l}
}

func (p *printer) watchOpened(e watchOpened) []string {
	if e.InitialEvents {
		p.streaming, p.streamFrom, p.streamed = true, e.At, 0
		return []string{row(e.At, "reflector", "WATCH", fmt.Sprintf(
			"sendInitialEvents=true (WatchList): the current state as ADDED events, then a bookmark; server ends it after %ds",
			e.TimeoutSeconds))}
	}
	return []string{row(e.At, "reflector", "WATCH", fmt.Sprintf("from rv=%s with bookmarks; server ends it after %ds", e.RV, e.TimeoutSeconds))}
}

func (p *printer) watchEvent(e watchEvent) []string {
	switch {
	case e.Type == rest.Error:
		return []string{row(e.At, "reflector", string(e.Type), e.Err)}
	case p.streaming && e.InitialEnd:
		p.streaming = false
		if p.initialEnd.IsZero() {
			p.initialEnd = e.At
		}
		d := e.At.Sub(p.streamFrom)
		return []string{row(e.At, "reflector", string(e.Type), fmt.Sprintf("rv=%s initial-events-end: %d objects streamed in %s (%s)",
			e.RV, p.streamed, fmtDur(d), fmtRate(p.streamed, d)))}
	case e.Type == rest.Bookmark:
		return []string{row(e.At, "reflector", string(e.Type), fmt.Sprintf("rv=%s (no object: only the resourceVersion advances)", e.RV))}
	case p.streaming:
		p.streamed++
		if !p.o.ShowInitial {
			return nil
		}
	default:
		p.changes++
	}
	p.noteSeen(e.Key+"@"+e.RV, e.At)
	return []string{row(e.At, "reflector", string(e.Type), fmt.Sprintf("%s rv=%s %s", e.Key, e.RV, fmtBytes(e.Bytes)))}
}

func (p *printer) noteSeen(id string, at time.Time) {
	if len(p.seen) >= maxSeen {
		clear(p.seen)
	}
	p.seen[id] = at
}

func (p *printer) watchClosed(e watchClosed) []string {
	p.streaming = false
	if errors.Is(e.Err, io.EOF) {
		return []string{row(e.At, "reflector", "WATCH", "ended by the server (its timeout); the reflector resumes from the last rv")}
	}
	return []string{row(e.At, "reflector", "WATCH", fmt.Sprintf("ended: %v", e.Err))}
}

func (p *printer) phaseChange(e phaseChange) []string {
	if e.To == reflector.Listing {
		p.listFrom, p.listed, p.pages = e.At, 0, 0
	}
	if errors.Is(e.Err, context.Canceled) {
		return nil // the trace is stopping: not the reflector's doing
	}
	// An error wrapping context.DeadlineExceeded is shown: while the trace
	// runs it is a client, dial or exec-plugin timeout, which the reflector
	// backs off from (reflector.Stopped).
	details := fmt.Sprintf("%s → %s", e.From, e.To)
	if e.From == reflector.WatchListing && e.To == reflector.Watching {
		details += " (the initial state is complete; the same watch goes on)"
	}
	if e.Err != nil && !errors.Is(e.Err, io.EOF) {
		details += ": " + e.Err.Error()
	}
	return []string{row(e.At, "reflector", "phase", details)}
}

// applied shows the FIFO and store stages of one delta, then its delivery
// if that came first.
func (p *printer) applied(e applied) []string {
	out := p.appliedLines(e)
	if early := p.early[e.Key]; len(early) > 0 {
		if p.early[e.Key] = early[1:]; len(early) == 1 {
			delete(p.early, e.Key)
		}
		return append(out, p.deliveredLines(early[0])...)
	}
	p.ahead[e.Key]++
	return out
}

// appliedLines shows one delta, and keeps the cache mirror in step whether
// or not anything is shown.
func (p *printer) appliedLines(e applied) []string {
	old, had := p.cache[e.Key]
	now := objState{rv: e.RV, idx: e.Index}
	if e.Type == deltafifo.Deleted {
		delete(p.cache, e.Key)
		now.idx = indexEntries{}
	} else {
		p.cache[e.Key] = now
	}
	if e.InitialList {
		p.lastInitial = e.At
		if !p.o.ShowInitial {
			return nil
		}
	}
	if replay := e.Type == deltafifo.Sync || (e.Type == deltafifo.Replaced && had && old.rv == e.RV); replay && !p.o.ShowInitial {
		p.replays++
		return nil
	}
	out := p.flushReplays(e.At)
	fifo := fmt.Sprintf("%s, queue depth %d", e.Key, e.Depth)
	if e.FinalStateUnknown {
		fifo += " (tombstone: gone from a relist, final state unknown)"
	}
	st := e.Key + "  " + formatIndexes(old.idx, now.idx)
	if e.Deleting && e.Type != deltafifo.Deleted {
		st += "; deletionTimestamp set: being deleted"
	}
	return append(out, row(e.At, "deltafifo", string(e.Type), fifo), row(e.At, "store", storeVerb(e), st))
}

func storeVerb(e applied) string {
	switch {
	case e.Type == deltafifo.Deleted:
		return "delete"
	case e.Type == deltafifo.Sync:
		return "resync"
	case e.Existed:
		return "update"
	}
	return "add"
}

// flushReplays reports the relist replays not shown since the last report.
func (p *printer) flushReplays(at time.Time) []string {
	if p.replays == 0 {
		return nil
	}
	n := p.replays
	p.replays = 0
	return []string{row(at, "store", "relist", fmt.Sprintf("%d unchanged object%s re-listed (not shown)", n, plural(n)))}
}

// delivered shows a handler call, or holds it until its delta's store line.
func (p *printer) delivered(e delivered) []string {
	n := p.ahead[e.Key]
	if n == 0 {
		p.early[e.Key] = append(p.early[e.Key], e)
		return nil
	}
	if n == 1 {
		delete(p.ahead, e.Key)
	} else {
		p.ahead[e.Key] = n - 1
	}
	return p.deliveredLines(e)
}

func (p *printer) deliveredLines(e delivered) []string {
	id := e.Key + "@" + e.RV
	seenAt, ok := p.seen[id]
	delete(p.seen, id)
	if (e.Initial || e.Unchanged) && !p.o.ShowInitial {
		return nil
	}
	details := fmt.Sprintf("%s → %d listener%s, buffer depth %d", e.Key, e.Listeners, plural(e.Listeners), e.Pending)
	if ok {
		details += fmt.Sprintf(", %s after the reflector read it", fmtDur(e.At.Sub(seenAt)))
	}
	return []string{row(e.At, "processor", e.Call, details)}
}

func (p *printer) synced(e synced) []string {
	end := p.lastInitial
	if end.IsZero() {
		end = p.initialEnd
	}
	if end.IsZero() || end.After(e.At) {
		end = e.At
	}
	d := end.Sub(p.began)
	return []string{row(e.At, "informer", "synced", fmt.Sprintf("%d objects cached in %s (%s); from now on every change is shown",
		e.Objects, fmtDur(d), fmtRate(e.Objects, d)))}
}

func (p *printer) stopped(e traceStopped) []string {
	out := p.flushReplays(e.At)
	return append(out, row(e.At, "informer", "stopped", fmt.Sprintf("after %s; %d change%s traced",
		fmtDur(e.At.Sub(p.began)), p.changes, plural(p.changes))))
}
