package reflector_test

import (
	"errors"
	"io"
	"testing"
	"time"

	"github.com/kcmlab/kcm/kube/rest"
	"github.com/kcmlab/kcm/reflector"
)

// Regression tests for the chaos suite's bad watch content (found with
// seeds 22 and 33: a handler saw "upsert at rv 1108 after rv 1113"). API
// rule: the events of one watch come in strictly increasing
// resourceVersion order, all after the resourceVersion the watch started
// from (the list's, or the last event's). A stream that goes back —
// a stale event, an out-of-order pair, an event older than the list — can
// no longer be trusted to have delivered everything: applying the old
// state would move the cache back in time, and skipping it could lose a
// change it hid. The reflector applies nothing older than its last
// resourceVersion, ends the watch (ErrOutOfOrder) and, after a backoff,
// lists the newest state again.

// An event older than the list it follows (or than the last event) is not
// applied; the reflector backs off and relists from the newest state.
func TestEventOlderThanLastRVRelists(t *testing.T) {
	for _, tc := range []struct {
		name   string
		events []obj
		ops    []string // of the sink after the list
	}{
		{"older than the list", []obj{pod("a", "95")}, nil},
		{"out of order", []obj{pod("b", "102"), pod("a", "101")}, []string{"add b@102"}},
		{"stale repeat", []obj{pod("a", "101"), pod("b", "102"), pod("a", "101")}, []string{"add a@101", "add b@102"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			h := run(t, listWatch())
			h.listAt("100", pod("a", "90"))
			w := h.watchFrom("100")
			for _, o := range tc.events {
				w.Event(rest.Added, o)
			}
			h.expectWait(800 * time.Millisecond)
			c := h.lw.ExpectList()
			if c.Options.ResourceVersion != "" {
				t.Fatalf("relist at %q, want the newest state (\"\")", c.Options.ResourceVersion)
			}
			c.List(rest.ListMeta{ResourceVersion: "110"}, pod("a", "101"), pod("b", "102"))
			h.watchFrom("110")
			want := append(append([]string{"start", "replace a@90", "finish 100"}, tc.ops...),
				"start", "replace a@101", "replace b@102", "finish 110")
			if got := h.sink.Ops(); !equal(got, want) {
				t.Fatalf("sink saw %q, want %q", got, want)
			}
			if err := h.obs.firstErr(); !errors.Is(err, reflector.ErrOutOfOrder) {
				t.Fatalf("the watch ended with %v, want ErrOutOfOrder", err)
			}
		})
	}
}

// An event at the last resourceVersion (a duplicate of the event just
// applied) is applied again: it moves nothing back, and a server that
// sends two events at one revision loses none of them.
func TestEventAtLastRVIsApplied(t *testing.T) {
	h := run(t, listWatch())
	h.listAt("100")
	w := h.watchFrom("100")
	w.Event(rest.Added, pod("a", "101"))
	w.Event(rest.Added, pod("a", "101"))
	w.Event(rest.Deleted, pod("ghost", "101"))
	w.End(io.EOF)
	h.watchFrom("101")
	want := []string{"start", "finish 100", "add a@101", "add a@101", "delete ghost@101"}
	if got := h.sink.Ops(); !equal(got, want) {
		t.Fatalf("sink saw %q, want %q", got, want)
	}
}

// A bookmark lower than the last resourceVersion moves nothing back: the
// next watch resumes from the newest state applied, and the sink is not
// told (its content would claim an older point); one at or above it is.
func TestLowBookmarkIsIgnored(t *testing.T) {
	h := run(t, listWatch())
	h.listAt("100")
	w := h.watchFrom("100")
	w.Event(rest.Added, pod("a", "105"))
	w.Send(bookmark("99", false))
	w.Send(bookmark("105", false))
	w.Send(bookmark("", false))
	w.End(io.EOF)
	h.watchFrom("105")
	if rv := h.r.LastSyncResourceVersion(); rv != "105" {
		t.Fatalf("LastSyncResourceVersion %q after a lower bookmark, want 105", rv)
	}
	h.stop()
	want := []string{"start", "finish 100", "add a@105", "bookmark 105"}
	if got := h.sink.Ops(); !equal(got, want) {
		t.Fatalf("sink saw %q, want %q", got, want)
	}
}
