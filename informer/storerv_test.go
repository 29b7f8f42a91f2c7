package informer_test

import (
	"context"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/kcmlab/kcm/clock"
	"github.com/kcmlab/kcm/deltafifo"
	"github.com/kcmlab/kcm/informer"
	"github.com/kcmlab/kcm/internal/testing/fakelw"
	"github.com/kcmlab/kcm/kube/labels"
	"github.com/kcmlab/kcm/kube/rest"
	"github.com/kcmlab/kcm/processor"
	"github.com/kcmlab/kcm/reflector"
)

// seen is what a handler saw at one notification: the notification, the
// store's resourceVersion then, and the keys@rv a lister listed then.
type seen struct {
	note, rv string
	listed   []string
}

// rvWorld runs an informer over fakelw whose handler records, at every
// notification, the store's resourceVersion and the whole listed content;
// applied receives the resourceVersion of each Bookmark delta applied.
type rvWorld struct {
	lw      *fakelw.LW[raw]
	inf     *informer.Informer[raw]
	obs     *bookmarkObserver
	seen    chan seen
	applied chan string
}

// bookmarkObserver reports each Bookmark delta applied, and what a lister
// lists at each relisted object or tombstone applied (Applied runs in the
// apply loop, right after the store write: the store as it is then). The
// loop tells the handlers before it calls Applied, so a test that has
// heard a notification reads the matching Applied from relist, never from
// a snapshot taken then.
type bookmarkObserver struct {
	phaseLog
	applied chan<- string
	lister  *informer.Lister[raw]
	relist  chan string
}

func (b *bookmarkObserver) Applied(d deltafifo.Delta[raw], _ bool, _ int) {
	switch {
	case d.Type == deltafifo.Bookmark:
		b.applied <- d.Info.ResourceVersion
	case !d.InitialList && (d.Type == deltafifo.Replaced || d.FinalStateUnknown):
		b.relist <- fmt.Sprintf("%s: %v", d.Key, listed(*b.lister))
	}
}

// relisted waits for the next n relisted objects or tombstones applied.
func (b *bookmarkObserver) relisted(t *testing.T, n int) []string {
	t.Helper()
	var out []string
	for range n {
		select {
		case s := <-b.relist:
			out = append(out, s)
		case <-time.After(fakelw.Patience):
			t.Fatalf("%d relisted deltas applied within %v, want %d: %q", len(out), fakelw.Patience, n, out)
		}
	}
	return out
}

// listed is what l lists, as sorted name@rv.
func listed(l informer.Lister[raw]) []string {
	var out []string
	for _, o := range l.List(labels.Everything()) {
		out = append(out, o.Name+"@"+o.ResourceVersion)
	}
	slices.Sort(out)
	return out
}

func runRVWorld(t *testing.T, reg prometheus.Registerer) *rvWorld {
	t.Helper()
	w := &rvWorld{lw: fakelw.New[raw](t), seen: make(chan seen, 100), applied: make(chan string, 100)}
	w.obs = &bookmarkObserver{applied: w.applied, lister: new(informer.Lister[raw]), relist: make(chan string, 100)}
	inf, err := informer.New[raw](w.lw, informer.Options[raw]{Name: "pods", Resource: rest.Pods, Registerer: reg, BatchSize: 1,
		Observer:  w.obs,
		Reflector: reflector.Options{DisableWatchList: true, Backoff: noWait()}})
	if err != nil {
		t.Fatal(err)
	}
	w.inf = inf
	lister := inf.Lister()
	*w.obs.lister = lister // before Run: the apply loop reads it
	note := func(s string) {
		w.seen <- seen{note: s, rv: lister.LastStoreSyncResourceVersion(), listed: listed(lister)}
	}
	if _, err := inf.AddEventHandler(processor.HandlerFuncs[raw]{
		AddFunc:    func(o raw, _ bool) { note("add " + o.Name + "@" + o.ResourceVersion) },
		UpdateFunc: func(_, o raw) { note("update " + o.Name + "@" + o.ResourceVersion) },
		DeleteFunc: func(o raw, gone bool) { note(fmt.Sprintf("delete %s@%s %v", o.Name, o.ResourceVersion, gone)) },
	}, processor.HandlerOptions{Name: "rv"}); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() { defer close(done); _ = inf.Run(ctx) }()
	t.Cleanup(func() { cancel(); <-done })
	return w
}

func (w *rvWorld) next(t *testing.T) seen {
	t.Helper()
	select {
	case s := <-w.seen:
		return s
	case <-time.After(fakelw.Patience):
		t.Fatalf("no notification within %v", fakelw.Patience)
	}
	return seen{}
}

func (w *rvWorld) bookmarked(t *testing.T, want string) {
	t.Helper()
	select {
	case rv := <-w.applied:
		if rv != want {
			t.Fatalf("Bookmark applied at %q, want %q", rv, want)
		}
	case <-time.After(fakelw.Patience):
		t.Fatalf("no Bookmark applied within %v, want one at %s", fakelw.Patience, want)
	}
	for _, got := range []string{w.inf.LastStoreSyncResourceVersion(), w.inf.Store().LastStoreSyncResourceVersion(),
		w.inf.Lister().LastStoreSyncResourceVersion()} {
		if got != want {
			t.Fatalf("store resourceVersion %q after the Bookmark at %s", got, want)
		}
	}
}

// The store's resourceVersion (client-go's LastStoreSyncResourceVersion):
// "" before the list; the list's once its items are applied; each watch
// event's as it is applied, before its handlers hear of it; each
// bookmark's in order with the events; and the relist's when its content
// is swapped in. The gauge informer_store_resource_version follows it.
func TestStoreResourceVersionFollowsListEventsAndBookmarks(t *testing.T) {
	reg := prometheus.NewRegistry()
	w := runRVWorld(t, reg)
	if rv := w.inf.LastStoreSyncResourceVersion(); rv != "" {
		t.Fatalf("resourceVersion %q before the list", rv)
	}
	labels := map[string]string{"name": "pods", "group": "", "version": "v1", "resource": "pods"}
	gauge := func() float64 {
		m := family(t, reg, "informer_store_resource_version", labels)
		if m == nil {
			return -1
		}
		return m.GetGauge().GetValue()
	}
	w.lw.ExpectList().List(rest.ListMeta{ResourceVersion: "100"}, rawPod("a", "90"), rawPod("b", "99"))
	for range 2 {
		// Handlers run on their own goroutines: by then the list's end
		// may be applied too, never anything else.
		if s := w.next(t); s.rv != "" && s.rv != "100" {
			t.Fatalf("%s: store at %q during the list", s.note, s.rv)
		}
	}
	w.bookmarked(t, "100")
	if g := gauge(); g != 100 {
		t.Fatalf("gauge %v after the list, want 100", g)
	}
	st := w.lw.ExpectWatch().Open()
	st.Event(rest.Added, rawPod("c", "105"))
	if s := w.next(t); s.note != "add c@105" || s.rv != "105" {
		t.Fatalf("%+v, want add c@105 heard with the store at 105", s)
	}
	st.Send(rest.WatchEvent[raw]{Type: rest.Bookmark, Object: rawPod("", "150")})
	w.bookmarked(t, "150")
	if g := gauge(); g != 150 {
		t.Fatalf("gauge %v after a bookmark at 150", g)
	}
	st.Event(rest.Deleted, rawPod("a", "160"))
	if s := w.next(t); s.note != "delete a@160 false" || s.rv != "160" {
		t.Fatalf("%+v, want delete a@160 heard with the store at 160", s)
	}
}

// A relist (here after 410 Gone) is swapped in at once: every handler
// call it causes finds the store already holding exactly the new list and
// at its resourceVersion, never part old and part new (client-go's
// AtomicFIFO). The handlers hear first the keys that vanished (as
// tombstones), then every listed object in list order; an object listed
// at the version the store held is the very object the store held.
func TestRelistIsAtomicForHandlersAndListers(t *testing.T) {
	w := runRVWorld(t, nil)
	w.lw.ExpectList().List(rest.ListMeta{ResourceVersion: "100"}, rawPod("a", "90"), rawPod("b", "99"), rawPod("c", "95"))
	for range 3 {
		w.next(t)
	}
	w.bookmarked(t, "100")
	heldB, _ := w.inf.Lister().Namespace("ns").Get("b")
	st := w.lw.ExpectWatch().Open()
	st.End(&rest.StatusError{Status: rest.Status{Code: 410, Reason: "Expired"}})
	w.lw.ExpectList().List(rest.ListMeta{ResourceVersion: "200"}, rawPod("d", "180"), rawPod("b", "99"), rawPod("a", "170"))
	want := []string{"delete c@95 true", "add d@180", "update b@99", "update a@170"}
	after := []string{"a@170", "b@99", "d@180"}
	heard := make([]seen, len(want))
	for i := range heard {
		heard[i] = w.next(t)
	}
	// In the apply loop itself, right after each write: the store already
	// held the whole new list at the first of them.
	wantApplied := []string{"ns/c: " + fmt.Sprint(after), "ns/d: " + fmt.Sprint(after), "ns/b: " + fmt.Sprint(after),
		"ns/a: " + fmt.Sprint(after)}
	if got := w.obs.relisted(t, len(wantApplied)); !slices.Equal(got, wantApplied) {
		t.Fatalf("apply loop saw\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(wantApplied, "\n"))
	}
	for i, s := range heard {
		if s.note != want[i] || s.rv != "200" || !slices.Equal(s.listed, after) {
			t.Fatalf("heard %q with the store at %q holding %v; want %q at 200 holding %v", s.note, s.rv, s.listed, want[i], after)
		}
	}
	if b, _ := w.inf.Lister().Namespace("ns").Get("b"); b != heldB {
		t.Fatal("the unchanged b was replaced by a copy of itself")
	}
}

// The list's end Bookmark counts in the initial sync: HasSynced turns true
// only once the store is at the list's resourceVersion.
func TestHasSyncedOnlyWithTheListResourceVersion(t *testing.T) {
	w := runRVWorld(t, nil)
	w.lw.ExpectList().List(rest.ListMeta{ResourceVersion: "7"})
	ctx, cancel := context.WithTimeout(context.Background(), fakelw.Patience)
	defer cancel()
	if synced := informer.WaitForCacheSync(ctx, clock.Real{}, w.inf); !synced["pods"] {
		t.Fatal("not synced")
	}
	if rv := w.inf.LastStoreSyncResourceVersion(); rv != "7" {
		t.Fatalf("synced with the store at %q, want 7", rv)
	}
}

// A reader that loads the store's resourceVersion and then reads an object
// finds the object at least at that resourceVersion (here x makes every
// change, so x's resourceVersion is the newest), while events and relists
// are applied: the apply loop moves the resourceVersion only after
// writing what brought the store there (client-go's store sets it in the
// same critical section; kcm's readers take no lock, so the order is what
// guarantees it).
func TestStoreResourceVersionNeverAheadOfObjects(t *testing.T) {
	lw := fakelw.New[raw](t)
	inf, err := informer.New[raw](lw, informer.Options[raw]{Name: "pods", BatchSize: 7,
		Reflector: reflector.Options{DisableWatchList: true, Backoff: noWait()}})
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() { defer close(done); _ = inf.Run(ctx) }()
	defer func() { cancel(); <-done }()

	stop := make(chan struct{})
	errs := make(chan error, 4)
	var readers sync.WaitGroup
	for range 3 {
		readers.Go(func() {
			for {
				select {
				case <-stop:
					errs <- nil
					return
				default:
				}
				rv, _ := strconv.Atoi(inf.LastStoreSyncResourceVersion())
				x, ok := inf.Store().Get("ns/x")
				if !ok {
					continue // before the list
				}
				if got, _ := strconv.Atoi(x.ResourceVersion); got < rv {
					errs <- fmt.Errorf("x at %d after the store said %d", got, rv)
					return
				}
			}
		})
	}
	lw.ExpectList().List(rest.ListMeta{ResourceVersion: "100"}, rawPod("x", "100"))
	st := lw.ExpectWatch().Open()
	for rv := 101; rv <= 1500; rv++ {
		st.Event(rest.Modified, rawPod("x", strconv.Itoa(rv)))
		if rv%100 == 0 {
			st.Send(rest.WatchEvent[raw]{Type: rest.Bookmark, Object: rawPod("", strconv.Itoa(rv))})
		}
	}
	for round := range 20 {
		st.End(&rest.StatusError{Status: rest.Status{Code: 410, Reason: "Expired"}})
		at := 2000 + 100*round
		items := []raw{rawPod("x", strconv.Itoa(at))} // x made every change: the list's is its
		for i := range 2000 {                         // a swap long enough for a reader to fall in
			items = append(items, rawPod(fmt.Sprintf("filler-%d", i), strconv.Itoa(at-2)))
		}
		lw.ExpectList().List(rest.ListMeta{ResourceVersion: strconv.Itoa(at)}, items...)
		st = lw.ExpectWatch().Open()
		for rv := at + 1; rv < at+50; rv++ {
			st.Event(rest.Modified, rawPod("x", strconv.Itoa(rv)))
		}
	}
	close(stop)
	readers.Wait()
	for range 3 {
		if err := <-errs; err != nil {
			t.Fatal(err)
		}
	}
}
