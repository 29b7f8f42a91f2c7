package reflector_test

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/kcmlab/kcm/kube/rest"
	"github.com/kcmlab/kcm/reflector"
)

// API rule (LIST with limit/continue): every page after the first is read
// with the continue token alone, from the first page's snapshot; the
// list's resourceVersion is the first page's. The items stream into one
// replace, finished at that resourceVersion, and the watch starts there.
func TestListPagesIntoOneReplace(t *testing.T) {
	h := run(t, reflector.Options{InitialList: reflector.ListConsistent, PageSize: 2, LabelSelector: "app=web", FieldSelector: "spec.nodeName=n1"})
	if rv := h.r.LastSyncResourceVersion(); rv != "" {
		t.Fatalf("LastSyncResourceVersion before any list: %q", rv)
	}
	first := h.lw.ExpectList()
	want := rest.ListOptions{LabelSelector: "app=web", FieldSelector: "spec.nodeName=n1", Limit: 2}
	if first.Options != want {
		t.Fatalf("first page %+v, want %+v", first.Options, want)
	}
	first.List(rest.ListMeta{ResourceVersion: "100", Continue: "c1"}, pod("a", "90"), pod("b", "95"))
	second := h.lw.ExpectList()
	want.Continue = "c1"
	if second.Options != want {
		t.Fatalf("second page %+v, want %+v", second.Options, want)
	}
	second.List(rest.ListMeta{ResourceVersion: "101"}, pod("c", "99"))
	c := h.lw.ExpectWatch()
	if c.Options.ResourceVersion != "100" || c.Options.LabelSelector != "app=web" || c.Options.FieldSelector != "spec.nodeName=n1" {
		t.Fatalf("watch %+v, want from 100 with the selectors", c.Options)
	}
	if rv := h.r.LastSyncResourceVersion(); rv != "100" {
		t.Fatalf("LastSyncResourceVersion %q, want 100", rv)
	}
	h.stop()
	if got, want := h.sink.Ops(), []string{"start", "replace a@90", "replace b@95", "replace c@99", "finish 100"}; !equal(got, want) {
		t.Fatalf("sink saw %q, want %q", got, want)
	}
	if got, want := h.obs.Lines(), []string{"page 2 rv=100 more=true", "page 1 rv=101 more=false",
		"phase listing→watching (<nil>)"}; !equal(got, want) {
		t.Fatalf("observer saw %q, want %q", got, want)
	}
}

// API rule: a continue token whose snapshot was compacted is answered 410.
// The list is read again at once, unpaginated; a 410 on the first page
// instead (the resourceVersion itself expired) reads the newest state.
func TestListExpiredMidwayRelistsUnpaginated(t *testing.T) {
	h := run(t, reflector.Options{DisableWatchList: true, PageSize: 1})
	h.lw.ExpectList().List(rest.ListMeta{ResourceVersion: "100", Continue: "c1"}, pod("a", "100"))
	h.lw.ExpectList().Fail(statusErr(http.StatusGone, "Expired"))
	again := h.lw.ExpectList()
	if again.Options.Limit != 0 || again.Options.Continue != "" {
		t.Fatalf("after an expired continue token: %+v, want one unpaginated LIST", again.Options)
	}
	again.List(rest.ListMeta{ResourceVersion: "120"}, pod("a", "110"))
	h.watchFrom("120")
	h.stop()
	if got, want := h.sink.Ops(), []string{"start", "replace a@100", "abort", "start", "replace a@110", "finish 120"}; !equal(got, want) {
		t.Fatalf("sink saw %q, want %q", got, want)
	}
}

// A sink error that happens to wrap a 410 (a Transform calling the API)
// is a refusal, not an expired continue token: back off, list the same.
func TestRefusalWrappingGoneIsNoExpiredToken(t *testing.T) {
	s := &sink{refuse: refuseOnce("replace b@100", statusErr(http.StatusGone, "Expired"))}
	h := runWith(t, reflector.Options{DisableWatchList: true, PageSize: 1}, s)
	h.lw.ExpectList().List(rest.ListMeta{ResourceVersion: "100", Continue: "c1"}, pod("a", "100"))
	h.lw.ExpectList().List(rest.ListMeta{ResourceVersion: "100"}, pod("b", "100"))
	h.expectWait(800 * time.Millisecond)
	if c := h.lw.ExpectList(); c.Options.Limit != 1 || c.Options.Continue != "" {
		t.Fatalf("after the refusal: %+v, want the paginated LIST from the start", c.Options)
	}
}

// Failures back off (800 ms, doubling), and a 429 waits its Retry-After;
// a list that fails keeps its options.
func TestListFailuresBackOff(t *testing.T) {
	h := run(t, listWatch())
	first := h.lw.ExpectList()
	first.Fail(errors.New("connection refused"))
	h.expectWait(800 * time.Millisecond)
	c := h.lw.ExpectList()
	if c.Options != first.Options {
		t.Fatalf("retry %+v, want %+v", c.Options, first.Options)
	}
	c.Fail(&rest.StatusError{Status: rest.Status{Code: http.StatusTooManyRequests, Reason: "TooManyRequests"}, RetryAfter: 3 * time.Second})
	h.expectWait(3 * time.Second)
	h.lw.ExpectList().FailAfter(errors.New("unexpected EOF"), pod("a", "1"))
	h.expectWait(1600 * time.Millisecond) // a 429's wait is the server's: the backoff did not grow
	h.listAt("100")
	h.watchFrom("100")
	h.stop()
	if got, want := h.sink.Ops(), []string{"start", "abort", "start", "abort", "start", "replace a@1", "abort", "start", "finish 100"}; !equal(got, want) {
		t.Fatalf("sink saw %q, want %q", got, want)
	}
}

// A watch that cannot be opened, or that fails, is backed off and resumed
// from the last resourceVersion; a 410 (as an answer or an ERROR event)
// relists not older than it.
func TestWatchFailures(t *testing.T) {
	h := run(t, listWatch())
	h.listAt("100")
	h.lw.ExpectWatch().Fail(errors.New("connection refused"))
	h.expectWait(800 * time.Millisecond)
	w := h.watchFrom("100")
	w.Event(rest.Modified, pod("a", "110"))
	w.End(io.ErrUnexpectedEOF)
	h.expectWait(1600 * time.Millisecond)
	w = h.watchFrom("110")
	w.Send(rest.WatchEvent[obj]{Type: rest.Error, Err: &rest.StatusError{Status: rest.Status{Code: http.StatusGone, Reason: "Expired"}}})
	c := h.lw.ExpectList()
	if c.Options.ResourceVersion != "110" || c.Options.ResourceVersionMatch != "NotOlderThan" {
		t.Fatalf("relist %+v, want not older than 110", c.Options)
	}
	c.List(rest.ListMeta{ResourceVersion: "130"})
	h.lw.ExpectWatch().Fail(statusErr(http.StatusGone, "Expired"))
	if c := h.lw.ExpectList(); c.Options.ResourceVersion != "130" {
		t.Fatalf("relist %+v, want not older than 130", c.Options)
	}
	h.stop()
	want := []string{
		"page 0 rv=100 more=false",
		"phase listing→watching (<nil>)",
		"phase watching→backing-off (connection refused)",
		"phase backing-off→watching (<nil>)",
		"event MODIFIED rv=110 bytes=0",
		"phase watching→backing-off (unexpected EOF)",
		"phase backing-off→watching (<nil>)",
		"event ERROR rv= bytes=0",
		"phase watching→listing ( : 410 Expired: Gone)",
		"page 0 rv=130 more=false",
		"phase listing→watching (<nil>)",
		"phase watching→listing ( : 410 Expired: Gone)",
	}
	if got := h.obs.Lines(); !equal(got, want) {
		t.Fatalf("observer saw\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
}

// WatchList (KEP-3157): the initial state arrives as events into one
// replace, in no resourceVersion order, then a bookmark annotated
// k8s.io/initial-events-end finishes it at its resourceVersion, and the
// same stream goes on as the live watch. A plain bookmark moves only the
// resourceVersion, and reaches the sink (Sink.Bookmark) only past the
// initial events: one amid them would claim items not listed yet.
func TestWatchListStreamsTheInitialState(t *testing.T) {
	h := run(t, reflector.Options{InitialList: reflector.ListStream})
	c := h.lw.ExpectWatch()
	w := c.Open()
	w.Event(rest.Added, pod("a", "95"))
	w.Send(bookmark("96", false))
	w.Event(rest.Added, pod("b", "90"))
	w.Send(bookmark("100", true))
	w.Event(rest.Added, pod("c", "101"))
	w.Send(bookmark("150", false))
	w.Event(rest.Modified, pod("c", "160"))
	w.End(io.EOF)
	h.watchFrom("160")
	if rv := h.r.LastSyncResourceVersion(); rv != "160" {
		t.Fatalf("LastSyncResourceVersion %q, want 160", rv)
	}
	h.stop()
	want := []string{"start", "replace a@95", "replace b@90", "finish 100", "add c@101", "bookmark 150", "update c@160"}
	if got := h.sink.Ops(); !equal(got, want) {
		t.Fatalf("sink saw %q, want %q", got, want)
	}
	if got := h.obs.Lines(); !strings.Contains(strings.Join(got, "\n"), "event BOOKMARK rv=100 bytes=0\nphase watch-listing→watching (<nil>)") {
		t.Fatalf("observer saw %q, want the phase change right after the end bookmark", got)
	}
}

// A WatchList that ends before its end bookmark is aborted and, after a
// backoff, started again; a server that refuses WatchList gets LIST+WATCH
// from then on, even after a 410.
func TestWatchListEndsEarlyOrIsRefused(t *testing.T) {
	h := run(t, reflector.Options{InitialList: reflector.ListStream})
	w := h.lw.ExpectWatch().Open()
	w.Event(rest.Added, pod("a", "95"))
	w.End(io.EOF)
	h.expectWait(800 * time.Millisecond)
	c := h.lw.ExpectWatch()
	if c.Options.SendInitialEvents == nil {
		t.Fatalf("after an early end: %+v, want a WatchList again", c.Options)
	}
	c.Fail(statusErr(http.StatusUnprocessableEntity, "Invalid")) // a server without WatchList
	h.listAt("100")
	h.lw.ExpectWatch().Fail(statusErr(http.StatusGone, "Expired"))
	h.listAt("110")
	h.stop()
	if got, want := h.sink.Ops(), []string{"start", "replace a@95", "abort", "start", "finish 100", "start", "finish 110"}; !equal(got, want) {
		t.Fatalf("sink saw %q, want %q", got, want)
	}
}

// Run returns the context's error once it is cancelled, whatever it is
// doing: waiting for a LIST, streaming a watch, or backing off.
func TestRunStopsWhenCancelled(t *testing.T) {
	t.Run("listing", func(t *testing.T) {
		h := run(t, listWatch())
		h.lw.ExpectList()
		if err := h.stop(); !errors.Is(err, context.Canceled) {
			t.Fatalf("Run = %v, want context.Canceled", err)
		}
	})
	t.Run("watching", func(t *testing.T) {
		h := run(t, listWatch())
		h.listAt("100")
		h.watchFrom("100")
		if err := h.stop(); !errors.Is(err, context.Canceled) {
			t.Fatalf("Run = %v, want context.Canceled", err)
		}
	})
	t.Run("backing off", func(t *testing.T) {
		h := run(t, listWatch())
		h.lw.ExpectList().Fail(errors.New("boom"))
		ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
		defer cancel()
		if err := h.clk.BlockUntilWaiters(ctx, 1); err != nil {
			t.Fatal(err)
		}
		if err := h.stop(); !errors.Is(err, context.Canceled) {
			t.Fatalf("Run = %v, want context.Canceled", err)
		}
		if n := h.clk.Waiters(); n != 0 {
			t.Fatalf("%d timers left armed", n)
		}
	})
}

// Phase changes are logged: at debug level when nothing failed or the
// server ended a watch normally, as a warning with the cause otherwise.
func TestPhaseChangesAreLogged(t *testing.T) {
	h := run(t, reflector.Options{Name: "pods", InitialList: reflector.ListStream})
	w := h.lw.ExpectWatch().Open()
	w.End(io.EOF) // a WatchList ended before its initial state
	h.expectWait(800 * time.Millisecond)
	h.lw.ExpectWatch().Fail(errors.New("connection refused"))
	h.expectWait(1600 * time.Millisecond)
	h.lw.ExpectWatch()
	h.stop()
	want := []string{
		`{"level":"debug","reflector":"pods","from":"watch-listing","to":"backing-off","rv":"","cause":"EOF","message":"reflector phase change"}`,
		`{"level":"debug","reflector":"pods","from":"backing-off","to":"watch-listing","rv":"","message":"reflector phase change"}`,
		`{"level":"warn","reflector":"pods","from":"watch-listing","to":"backing-off","rv":"","cause":"connection refused","message":"reflector phase change"}`,
		`{"level":"debug","reflector":"pods","from":"backing-off","to":"watch-listing","rv":"","message":"reflector phase change"}`,
	}
	if got := strings.Split(strings.TrimSpace(h.Log()), "\n"); !equal(got, want) {
		t.Fatalf("logged\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
}

// TestStopped: only the caller's own context ending is a stop; the same
// errors while it is alive (a client or dial timeout) are failures.
func TestStopped(t *testing.T) {
	ended, cancel := context.WithCancel(context.Background())
	cancel()
	expired, cancel2 := context.WithDeadline(context.Background(), time.Unix(0, 0))
	defer cancel2()
	alive := context.Background()
	for _, tc := range []struct {
		ctx  context.Context
		err  error
		want bool
	}{
		{ended, context.Canceled, true},
		{expired, context.DeadlineExceeded, true},
		{ended, errors.Join(errors.New("watch"), context.Canceled), true},
		{alive, context.Canceled, false},
		{alive, fmt.Errorf("list: %w", context.DeadlineExceeded), false},
		{alive, &net.OpError{Op: "dial", Net: "tcp", Err: context.DeadlineExceeded}, false},
		{ended, io.EOF, false},
		{ended, nil, false},
	} {
		if got := reflector.Stopped(tc.ctx, tc.err); got != tc.want {
			t.Errorf("Stopped(ctx ended: %v, %v) = %v, want %v", tc.ctx.Err() != nil, tc.err, got, tc.want)
		}
	}
}
