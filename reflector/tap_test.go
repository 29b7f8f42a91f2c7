package reflector_test

import (
	"fmt"
	"io"
	"testing"

	"github.com/kcmlab/kcm/kube/rest"
	"github.com/kcmlab/kcm/reflector"
	"github.com/kcmlab/kcm/tap"
)

// socketLines renders the tap's Socket events as "OP resource key@rv uid
// bytes" lines.
func socketLines(log *tap.Log) []string {
	var out []string
	for _, e := range log.Matching(tap.Socket, nil) {
		out = append(out, fmt.Sprintf("%s %s %s %s@%s %s %d", e.Source, e.Op, e.Resource, e.Key, e.RV, e.UID, e.Bytes))
	}
	return out
}

// While the view watches, every listed item and every watch event the
// reflector reads is reported at the Socket stage with the object's
// metadata: its key (none for a bookmark), resourceVersion and uid, and
// the event's size on the wire; the informer's representation suffix is
// not part of the resource.
func TestTapReportsWhatTheSocketReads(t *testing.T) {
	var log tap.Log
	tp := tap.New(&log, nil)
	tp.SetOn(true)
	h := run(t, reflector.Options{Name: "pods(raw)", DisableWatchList: true, Tap: tp})
	a := pod("a", "90")
	a.UID = "uid-a"
	h.listAt("100", a)
	w := h.watchFrom("100")
	b := pod("b", "101")
	b.UID = "uid-b"
	w.Send(rest.WatchEvent[obj]{Type: rest.Added, Object: b, Size: 321})
	w.Send(bookmark("102", false))
	w.End(io.EOF)
	h.watchFrom("102")
	h.stop()
	want := []string{
		"pods(raw) LIST pods ns/a@90 uid-a 0",
		"pods(raw) ADDED pods ns/b@101 uid-b 321",
		"pods(raw) BOOKMARK pods @102  0",
	}
	if got := socketLines(&log); !equal(got, want) {
		t.Fatalf("socket events\n%q\nwant\n%q", got, want)
	}
}

// Nobody watching: nothing is reported.
func TestTapOffReportsNothing(t *testing.T) {
	var log tap.Log
	h := run(t, reflector.Options{Name: "pods", DisableWatchList: true, Tap: tap.New(&log, nil)})
	h.listAt("100", pod("a", "90"))
	w := h.watchFrom("100")
	w.Event(rest.Added, pod("b", "101"))
	w.End(io.EOF)
	h.watchFrom("101")
	h.stop()
	if got := log.Events(); len(got) != 0 {
		t.Fatalf("tap off, yet reported %+v", got)
	}
}

// An event the view does not want (here pod b) is not reported; the view
// counts it itself.
func TestTapDeclinedEventsAreNotReported(t *testing.T) {
	log := tap.Log{Decline: func(_, name string) bool { return name == "b" }}
	tp := tap.New(&log, nil)
	tp.SetOn(true)
	h := run(t, reflector.Options{Name: "pods", DisableWatchList: true, Tap: tp})
	h.listAt("100", pod("a", "90"), pod("b", "91"))
	w := h.watchFrom("100")
	w.Event(rest.Added, pod("b", "101"))
	w.Event(rest.Added, pod("a", "102"))
	w.End(io.EOF)
	h.watchFrom("102")
	h.stop()
	want := []string{"pods LIST pods ns/a@90  0", "pods ADDED pods ns/a@102  0"}
	if got := socketLines(&log); !equal(got, want) || log.Declined() != 2 {
		t.Fatalf("socket events %q (declined %d), want %q (2 declined)", got, log.Declined(), want)
	}
}
