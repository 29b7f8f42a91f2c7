package informer_test

import (
	"context"
	"errors"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/rs/zerolog"

	"github.com/kcmlab/kcm/clock"
	"github.com/kcmlab/kcm/deltafifo"
	"github.com/kcmlab/kcm/informer"
	"github.com/kcmlab/kcm/internal/testing/fakeapi"
	"github.com/kcmlab/kcm/internal/testing/fakelw"
	"github.com/kcmlab/kcm/internal/testing/syncbuf"
	"github.com/kcmlab/kcm/kube/api"
	"github.com/kcmlab/kcm/kube/rest"
	"github.com/kcmlab/kcm/reflector"
)

var t0 = time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)

// appliedLog is an informer Observer that also records reflector phases.
type appliedLog struct {
	phaseLog
	mu      sync.Mutex
	applied int
}

func (a *appliedLog) Applied(deltafifo.Delta[raw], bool, int) {
	a.mu.Lock()
	defer a.mu.Unlock()
	a.applied++
}

// awaitWaiters fails the test unless clk gets n armed timers.
func awaitWaiters(t *testing.T, clk *clock.Fake, n int, what string) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), fakelw.Patience)
	defer cancel()
	if err := clk.BlockUntilWaiters(ctx, n); err != nil {
		t.Fatalf("%s: %v", what, err)
	}
}

// Options.Reflector's Name, Clock, Logger and Observer, when the caller
// set them, are the reflector's: the informer fills in only those left
// zero (it used to overwrite them all).
func TestReflectorOptionsKeepWhatTheCallerSet(t *testing.T) {
	reflClock, infClock := clock.NewFake(t0), clock.NewFake(t0)
	var reflLog syncbuf.Buffer
	reflObs := &phaseLog{}
	infObs := &appliedLog{}
	ls := runLockstep(t, informer.Options[raw]{Name: "pods", Clock: infClock, Observer: infObs,
		Reflector: reflector.Options{Name: "my-reflector", Clock: reflClock, Observer: reflObs,
			Logger: zerolog.New(&reflLog).Level(zerolog.DebugLevel)}})
	ls.lw.Expect().Fail(errors.New("connection refused"))
	awaitWaiters(t, reflClock, 1, "the reflector's backoff is not on its own clock")
	if !strings.Contains(reflLog.String(), `"reflector":"my-reflector"`) {
		t.Fatalf("the reflector's logger got %q, want its phase change under its own name", reflLog.String())
	}
	if s := reflObs.String(); !strings.Contains(s, "backing-off") {
		t.Fatalf("the reflector's observer saw %q, want the phase change", s)
	}
	if s := infObs.String(); s != "" {
		t.Fatalf("the informer's observer saw reflector phases %q although the reflector has its own", s)
	}
}

// Left zero, they come from the informer: its name, clock, logger and
// observer.
func TestReflectorOptionsFilledFromTheInformer(t *testing.T) {
	infClock := clock.NewFake(t0)
	var infLog syncbuf.Buffer
	infObs := &appliedLog{}
	ls := runLockstep(t, informer.Options[raw]{Name: "pods", Clock: infClock, Observer: infObs,
		Logger: zerolog.New(&infLog).Level(zerolog.DebugLevel)})
	ls.lw.Expect().Fail(errors.New("connection refused"))
	awaitWaiters(t, infClock, 2, "the reflector's backoff and the resync check are not both on the informer's clock")
	if s := infLog.String(); !strings.Contains(s, `"informer":"pods","reflector":"pods"`) {
		t.Fatalf("the informer's logger got %q, want the reflector's phase change named after the informer", s)
	}
	if s := infObs.String(); !strings.Contains(s, "backing-off") {
		t.Fatalf("the informer's observer saw %q, want the reflector's phase change", s)
	}
}

// A Factory with default options lists from the watch cache, as the
// reflector's documentation promises: one LIST at resourceVersion "0" (the
// only kind of LIST the StaleList fault can strike), then a WATCH, no
// WatchList.
func TestFactoryDefaultsToAListFromTheCache(t *testing.T) {
	inj := fakeapi.NewInjector(1, fakeapi.Rates{fakeapi.StaleList: 1}, 0)
	srv := fakeapi.New(fakeapi.Options{Resources: []fakeapi.Resource{chaosPods}, Faults: inj})
	defer srv.Close()
	if _, err := srv.Create(chaosPods, map[string]any{"metadata": map[string]any{"namespace": "ns", "name": "p"}}); err != nil {
		t.Fatal(err)
	}
	c, err := rest.NewClient(&rest.Config{Host: srv.URL(), QPS: -1})
	if err != nil {
		t.Fatal(err)
	}
	defer c.CloseIdleConnections()
	f := informer.NewFactory(c, informer.FactoryOptions{})
	defer f.Shutdown()
	inf := informer.For[api.Pod](f, rest.Pods)
	ctx, cancel := context.WithTimeout(context.Background(), fakelw.Patience)
	defer cancel()
	f.Start(ctx)
	if synced := f.WaitForCacheSync(ctx); !synced["pods"] || inf.Store().Len() != 1 {
		t.Fatalf("synced %v with %d pods, want synced with 1", synced, inf.Store().Len())
	}
	if st, n := srv.Stats(), inj.Counts()[fakeapi.StaleList]; st.WatchLists != 0 || st.Lists != 1 || n != 1 {
		t.Fatalf("requests %+v, %d lists at resourceVersion 0; want one LIST, at 0, and no WatchList", st, n)
	}
}
