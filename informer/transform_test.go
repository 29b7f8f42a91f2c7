package informer_test

import (
	"context"
	"errors"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/kcmlab/kcm/informer"
	"github.com/kcmlab/kcm/internal/testing/fakelw"
	"github.com/kcmlab/kcm/kube/api"
	"github.com/kcmlab/kcm/kube/rest"
	"github.com/kcmlab/kcm/processor"
	"github.com/kcmlab/kcm/reflector"
)

// Unit tests of the informer against fakelw: every LIST and WATCH is
// answered by the test, in lockstep; the reflector's backoff is zero, so
// that a failure is retried at once and nothing waits on a clock.

type raw = *api.RawObject

func rawPod(name, rv string) raw {
	return &api.RawObject{ObjectMeta: api.ObjectMeta{Namespace: "ns", Name: name, ResourceVersion: rv}}
}

// noWait is a backoff that never waits.
func noWait() *reflector.Backoff { return &reflector.Backoff{} }

// lockstep runs an informer over a fakelw until the test ends; notes
// receives one line per handler notification.
type lockstep struct {
	lw    *fakelw.LW[raw]
	inf   *informer.Informer[raw]
	notes chan string
}

func runLockstep(t *testing.T, o informer.Options[raw]) *lockstep {
	t.Helper()
	ls := &lockstep{lw: fakelw.New[raw](t), notes: make(chan string, 100)}
	if o.Name == "" {
		o.Name = "pods"
	}
	inf, err := informer.New[raw](ls.lw, o)
	if err != nil {
		t.Fatal(err)
	}
	ls.inf = inf
	note := func(s string) { ls.notes <- s }
	if _, err := inf.AddEventHandler(processor.HandlerFuncs[raw]{
		AddFunc:    func(o raw, _ bool) { note("add " + o.Name + "@" + o.ResourceVersion + " " + o.Labels["t"]) },
		UpdateFunc: func(_, o raw) { note("update " + o.Name + "@" + o.ResourceVersion + " " + o.Labels["t"]) },
		DeleteFunc: func(o raw, _ bool) { note("delete " + o.Name + "@" + o.ResourceVersion + " " + o.Labels["t"]) },
	}, processor.HandlerOptions{Name: "notes"}); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() { defer close(done); _ = inf.Run(ctx) }()
	t.Cleanup(func() { cancel(); <-done })
	return ls
}

// expect reads the next notifications and compares them with want.
func (ls *lockstep) expect(t *testing.T, want ...string) {
	t.Helper()
	for _, w := range want {
		select {
		case got := <-ls.notes:
			if got != w {
				t.Fatalf("notification %q, want %q", got, w)
			}
		case <-time.After(fakelw.Patience):
			t.Fatalf("no notification within %v, want %q", fakelw.Patience, w)
		}
	}
}

// labelling is a Transform that labels each object t=<n>, counting calls,
// and fails the calls listed in fail (1-based) with errTransform.
type labelling struct {
	mu    sync.Mutex
	calls int
	fail  map[int]bool
}

var errTransform = errors.New("transform: not now")

func (l *labelling) count() int {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.calls
}

func (l *labelling) transform(o raw) (raw, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.calls++
	if l.fail[l.calls] {
		return nil, errTransform
	}
	c := *o
	c.Labels = map[string]string{"t": "yes"}
	return &c, nil
}

// A Transform that fails once does not lose the object: the event is
// offered again, transformed, and reaches the cache and the handlers
// (issue: the reflector used to resume the watch after the refused event).
func TestTransformFailingOnceStillDelivers(t *testing.T) {
	tr := &labelling{fail: map[int]bool{2: true}} // call 1: the listed a; call 2: the watched p
	ls := runLockstep(t, informer.Options[raw]{Transform: tr.transform,
		Reflector: reflector.Options{DisableWatchList: true, Backoff: noWait()}})
	ls.lw.ExpectList().List(rest.ListMeta{ResourceVersion: "100"}, rawPod("a", "100"))
	ls.expect(t, "add a@100 yes")
	w := ls.lw.ExpectWatch()
	if w.Options.ResourceVersion != "100" {
		t.Fatalf("watch from %q, want 100", w.Options.ResourceVersion)
	}
	w.Open().Event(rest.Added, rawPod("p", "101")) // refused by the transform
	again := ls.lw.ExpectWatch()
	if again.Options.ResourceVersion != "100" {
		t.Fatalf("after the refusal the watch resumed from %q, want 100 (else p@101 is never delivered)", again.Options.ResourceVersion)
	}
	again.Open().Event(rest.Added, rawPod("p", "101"))
	ls.expect(t, "add p@101 yes")
	if p, ok := ls.inf.Store().Get("ns/p"); !ok || p.ResourceVersion != "101" || p.Labels["t"] != "yes" {
		t.Fatalf("cache holds %+v (found %v), want p@101 transformed", p, ok)
	}
}

// The Transform rewrites what every path brings in: the items of a LIST,
// a WatchList's initial events, and watch ADDED, MODIFIED and DELETED
// events; the cache and the handlers see only transformed objects.
func TestTransformAppliesToEveryPath(t *testing.T) {
	t.Run("LIST+WATCH", func(t *testing.T) {
		tr := &labelling{}
		ls := runLockstep(t, informer.Options[raw]{Transform: tr.transform,
			Reflector: reflector.Options{DisableWatchList: true, Backoff: noWait()}})
		ls.lw.ExpectList().List(rest.ListMeta{ResourceVersion: "100"}, rawPod("a", "100"))
		ls.expect(t, "add a@100 yes")
		w := ls.lw.ExpectWatch().Open()
		w.Event(rest.Added, rawPod("b", "101"))
		w.Event(rest.Modified, rawPod("a", "102"))
		w.Event(rest.Deleted, rawPod("b", "103"))
		ls.expect(t, "add b@101 yes", "update a@102 yes", "delete b@103 yes")
		if a, _ := ls.inf.Store().Get("ns/a"); a.Labels["t"] != "yes" || ls.inf.Store().Len() != 1 {
			t.Fatalf("cache holds %d objects, a = %+v; want only a, transformed", ls.inf.Store().Len(), a)
		}
	})
	t.Run("WatchList", func(t *testing.T) {
		tr := &labelling{}
		ls := runLockstep(t, informer.Options[raw]{Transform: tr.transform,
			Reflector: reflector.Options{InitialList: reflector.ListStream, Backoff: noWait()}})
		c := ls.lw.ExpectWatch()
		if c.Options.SendInitialEvents == nil {
			t.Fatalf("first request %+v, want a WatchList", c.Options)
		}
		w := c.Open()
		w.Event(rest.Added, rawPod("a", "90"))
		end := &api.RawObject{ObjectMeta: api.ObjectMeta{ResourceVersion: "100",
			Annotations: map[string]string{rest.InitialEventsEndAnnotation: "true"}}}
		w.Event(rest.Bookmark, end)
		w.Event(rest.Modified, rawPod("a", "101"))
		ls.expect(t, "add a@90 yes", "update a@101 yes")
		if n := tr.count(); n != 2 {
			t.Fatalf("transform called %d times, want 2 (bookmarks are not transformed)", n)
		}
	})
}

// Every Transform error is counted in informer_transform_errors_total
// and reported with ErrTransform and reflector.ErrRefused, naming the
// object; the refused item is asked for again (here: the whole LIST).
func TestTransformErrorsAreCountedAndReported(t *testing.T) {
	reg := prometheus.NewRegistry()
	tr := &labelling{fail: map[int]bool{1: true, 2: true}}
	phases := &errorLog{}
	ls := runLockstep(t, informer.Options[raw]{Transform: tr.transform, Registerer: reg,
		Reflector: reflector.Options{DisableWatchList: true, Backoff: noWait(), Observer: phases}})
	for range 3 { // b refused, refused again, accepted
		ls.lw.ExpectList().List(rest.ListMeta{ResourceVersion: "100"}, rawPod("b", "100"))
	}
	ls.lw.ExpectWatch()
	ls.expect(t, "add b@100 yes")
	if got := counterValue(t, reg, "informer_transform_errors_total", "pods"); got != 2 {
		t.Fatalf("informer_transform_errors_total{informer=pods} = %v, want 2", got)
	}
	err := phases.first()
	if !errors.Is(err, informer.ErrTransform) || !errors.Is(err, reflector.ErrRefused) || !errors.Is(err, errTransform) ||
		!strings.Contains(err.Error(), "ns/b at resourceVersion 100") {
		t.Fatalf("reported %v, want ErrTransform and ErrRefused wrapping the transform's error, naming ns/b@100", err)
	}
}

// errorLog is a reflector Observer that keeps the errors of phase changes.
type errorLog struct {
	mu   sync.Mutex
	errs []error
}

func (e *errorLog) ListPage(int, string, bool)             {}
func (e *errorLog) WatchEvent(rest.EventType, string, int) {}
func (e *errorLog) PhaseChange(_, _ reflector.Phase, err error) {
	e.mu.Lock()
	defer e.mu.Unlock()
	if err != nil {
		e.errs = append(e.errs, err)
	}
}

func (e *errorLog) first() error {
	e.mu.Lock()
	defer e.mu.Unlock()
	if len(e.errs) == 0 {
		return nil
	}
	return e.errs[0]
}

// counterValue returns the value of counter family name's child with
// the one label value lv.
func counterValue(t *testing.T, reg *prometheus.Registry, name, lv string) float64 {
	t.Helper()
	mfs, err := reg.Gather()
	if err != nil {
		t.Fatal(err)
	}
	for _, mf := range mfs {
		for _, m := range mf.GetMetric() {
			if mf.GetName() == name && m.GetLabel()[0].GetValue() == lv {
				return m.GetCounter().GetValue()
			}
		}
	}
	t.Fatalf("no %s{%q} registered", name, lv)
	return 0
}

// Informers sharing a Registerer share informer_transform_errors_total;
// a different collector already registered under that name is an error.
func TestTransformErrorsMetricIsShared(t *testing.T) {
	reg := prometheus.NewRegistry()
	for _, name := range []string{"pods", "configmaps"} {
		if _, err := informer.New[raw](fakelw.New[raw](t), informer.Options[raw]{Name: name, Registerer: reg}); err != nil {
			t.Fatalf("informer %s: %v", name, err)
		}
	}
	clash := prometheus.NewRegistry()
	clash.MustRegister(prometheus.NewGauge(prometheus.GaugeOpts{Name: "informer_transform_errors_total", Help: "not a counter"}))
	if _, err := informer.New[raw](fakelw.New[raw](t), informer.Options[raw]{Name: "pods", Registerer: clash}); err == nil {
		t.Fatal("registering over a different collector succeeded")
	}
}

// An informer's Registerer also receives its reflector's series, labelled
// with the informer's name; a clashing reflector family is an error of New.
func TestInformerRegistersReflectorMetrics(t *testing.T) {
	reg := prometheus.NewRegistry()
	if _, err := informer.New[raw](fakelw.New[raw](t), informer.Options[raw]{Name: "pods", Registerer: reg}); err != nil {
		t.Fatal(err)
	}
	mfs, err := reg.Gather()
	if err != nil {
		t.Fatal(err)
	}
	found := false
	for _, mf := range mfs {
		if mf.GetName() == "reflector_lists_total" && len(mf.GetMetric()) == 1 &&
			mf.GetMetric()[0].GetLabel()[0].GetValue() == "pods" {
			found = true
		}
	}
	if !found {
		t.Fatal("reflector_lists_total{name=\"pods\"} is not registered")
	}
	clash := prometheus.NewRegistry()
	clash.MustRegister(prometheus.NewGauge(prometheus.GaugeOpts{Name: "reflector_watches_total", Help: "not a counter"}))
	if _, err := informer.New[raw](fakelw.New[raw](t), informer.Options[raw]{Name: "pods", Registerer: clash}); err == nil {
		t.Fatal("registering over a different reflector collector succeeded")
	}
}
