package reflector_test

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/kcmlab/kcm/kube/rest"
	"github.com/kcmlab/kcm/reflector"
)

// listWatch are options for classic LIST+WATCH.
func listWatch() reflector.Options { return reflector.Options{DisableWatchList: true} }

// A sink that refuses an event (a Transform error, a closed FIFO) must be
// offered it again: the reflector backs off and resumes the watch from the
// resourceVersion of the last state the sink accepted, before the refused
// event. API rule: a watch from resourceVersion N delivers every change
// after N, so the refused one comes again.
func TestRefusedEventIsDeliveredAgain(t *testing.T) {
	for _, tc := range []struct {
		typ rest.EventType
		op  string
	}{
		{rest.Added, "add p@101"},
		{rest.Modified, "update p@101"},
		{rest.Deleted, "delete p@101"},
	} {
		t.Run(string(tc.typ), func(t *testing.T) {
			s := &sink{refuse: refuseOnce(tc.op, errors.New("transform failed"))}
			h := runWith(t, listWatch(), s)
			h.listAt("100", pod("a", "100"))
			w := h.watchFrom("100")
			w.Event(tc.typ, pod("p", "101"))
			h.expectWait(800 * time.Millisecond)
			w = h.watchFrom("100") // not 101: that would skip the refused event
			w.Event(tc.typ, pod("p", "101"))
			w.Event(rest.Added, pod("q", "102"))
			if err := h.stop(); !errors.Is(err, context.Canceled) {
				t.Fatalf("Run returned %v, want context.Canceled", err)
			}
			want := []string{"start", "replace a@100", "finish 100", tc.op, "add q@102"}
			if got := s.Ops(); !equal(got, want) {
				t.Fatalf("sink saw %q, want %q", got, want)
			}
			if rv := h.r.LastSyncResourceVersion(); rv != "102" {
				t.Fatalf("LastSyncResourceVersion %q, want 102", rv)
			}
		})
	}
}

// A refused list item or a refused end of the list aborts the replace;
// after a backoff the LIST runs again, no older than the items the aborted
// replace already handed over (they stay in the sink).
func TestRefusedListRelistsAfterBackoff(t *testing.T) {
	for _, refused := range []string{"replace b@100", "finish 100"} {
		t.Run(refused, func(t *testing.T) {
			s := &sink{refuse: refuseOnce(refused, errors.New("fifo closed"))}
			h := runWith(t, listWatch(), s)
			first := h.lw.ExpectList()
			first.List(rest.ListMeta{ResourceVersion: "100"}, pod("a", "100"), pod("b", "100"))
			h.expectWait(800 * time.Millisecond)
			again := h.lw.ExpectList()
			wantOpts := first.Options
			wantOpts.ResourceVersion, wantOpts.ResourceVersionMatch = "100", "NotOlderThan"
			if again.Options != wantOpts {
				t.Fatalf("relist %+v, want %+v", again.Options, wantOpts)
			}
			again.List(rest.ListMeta{ResourceVersion: "100"}, pod("a", "100"), pod("b", "100"))
			h.watchFrom("100")
			h.stop()
			var want []string
			if refused == "finish 100" {
				want = []string{"start", "replace a@100", "replace b@100", "abort"}
			} else {
				want = []string{"start", "replace a@100", "abort"}
			}
			want = append(want, "start", "replace a@100", "replace b@100", "finish 100")
			if got := s.Ops(); !equal(got, want) {
				t.Fatalf("sink saw %q, want %q", got, want)
			}
		})
	}
}

// A refused initial event of a WatchList, or a refused end bookmark,
// aborts the replace; after a backoff the WatchList starts over.
func TestRefusedWatchListStartsOver(t *testing.T) {
	for _, refused := range []string{"replace b@90", "finish 100"} {
		t.Run(refused, func(t *testing.T) {
			s := &sink{refuse: refuseOnce(refused, errors.New("transform failed"))}
			h := runWith(t, reflector.Options{InitialList: reflector.ListStream}, s)
			for i := range 2 {
				c := h.lw.ExpectWatch()
				if c.Options.SendInitialEvents == nil || c.Options.ResourceVersion != "" {
					t.Fatalf("attempt %d: %+v, want a WatchList at the newest state", i, c.Options)
				}
				w := c.Open()
				w.Event(rest.Added, pod("a", "95"))
				w.Event(rest.Added, pod("b", "90"))
				if i == 0 && refused != "finish 100" {
					h.expectWait(800 * time.Millisecond) // the watch ended with the refusal
					continue
				}
				w.Send(bookmark("100", true))
				if i == 0 {
					h.expectWait(800 * time.Millisecond)
					continue
				}
				w.Event(rest.Added, pod("c", "101")) // the stream goes on as the live watch
			}
			h.stop()
			var want []string
			if refused == "finish 100" {
				want = []string{"start", "replace a@95", "replace b@90", "abort"}
			} else {
				want = []string{"start", "replace a@95", "abort"}
			}
			want = append(want, "start", "replace a@95", "replace b@90", "finish 100", "add c@101")
			if got := s.Ops(); !equal(got, want) {
				t.Fatalf("sink saw %q, want %q", got, want)
			}
		})
	}
}
