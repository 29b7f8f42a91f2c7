package informer_test

import (
	"context"
	"errors"
	"math/rand/v2"
	"testing"
	"time"

	"go.uber.org/goleak"

	"github.com/kcmlab/kcm/informer"
	"github.com/kcmlab/kcm/internal/testing/fakeapi"
	"github.com/kcmlab/kcm/kube/api"
	"github.com/kcmlab/kcm/kube/api/decode"
	"github.com/kcmlab/kcm/kube/rest"
	"github.com/kcmlab/kcm/processor"
	"github.com/kcmlab/kcm/reflector"
)

// Regression tests for what the chaos suite found, each pinned to the one
// fault that exposed it.

// TestSyncsWhenContinueTokensAlwaysExpire: a paginated LIST whose continue
// tokens expire before the second page (etcd compacted past the first
// page's snapshot) must not keep the informer from syncing: like client-go's
// pager (FullListIfExpired), the reflector then reads the collection in one
// unpaginated LIST. API rule: an expired continue token is answered 410.
func TestSyncsWhenContinueTokensAlwaysExpire(t *testing.T) {
	defer goleak.VerifyNone(t, goleak.IgnoreCurrent())
	inj := fakeapi.NewInjector(1, fakeapi.Rates{fakeapi.ContinueExpired: 1}, 0)
	srv := fakeapi.New(fakeapi.Options{Resources: []fakeapi.Resource{chaosPods}, Faults: inj})
	defer srv.Close()
	w := &chaosWriter{srv: srv, rng: rand.New(rand.NewPCG(1, 3)), names: 30}
	for range 60 {
		if err := w.write(); err != nil {
			t.Fatal(err)
		}
	}
	c, err := rest.NewClient(&rest.Config{Host: srv.URL(), QPS: -1})
	if err != nil {
		t.Fatal(err)
	}
	b := reflector.DefaultBackoff()
	b.Initial, b.Max = time.Millisecond, 20*time.Millisecond
	f := informer.NewFactory(c, informer.FactoryOptions{Reflector: reflector.Options{InitialList: reflector.ListConsistent, PageSize: 5, Backoff: &b}})
	defer f.Shutdown()
	inf := informer.For[api.Pod](f, rest.Pods)
	h := newChaosHandler(chaosScenario{seed: 1}, 0) // all namespaces, never slow
	if _, err := inf.AddEventHandler(h, processor.HandlerOptions{}); err != nil {
		t.Fatal(err)
	}
	f.Start(context.Background())
	if d := awaitChaos(srv, inf, []*chaosHandler{h}, "", 5*time.Second); d != "" {
		t.Fatalf("no sync while every continue token expires: %s (faults %v, requests %+v)", d, inj.Counts(), srv.Stats())
	}
	if inj.Counts()[fakeapi.ContinueExpired] == 0 {
		t.Fatal("no continue token was refused: the test tests nothing")
	}
}

// TestWatchHeaderStallEndsWithIdleTimeout: a server that accepts a watch
// but never sends the response headers is silent like a dead stream; the
// idle timeout must end the wait (found by the chaos suite: before, the
// reflector waited forever and the seed never converged).
func TestWatchHeaderStallEndsWithIdleTimeout(t *testing.T) {
	defer goleak.VerifyNone(t, goleak.IgnoreCurrent())
	inj := fakeapi.NewInjector(1, fakeapi.Rates{fakeapi.StallHeader: 1}, 0)
	srv := fakeapi.New(fakeapi.Options{Resources: []fakeapi.Resource{chaosPods}, Faults: inj})
	defer srv.Close()
	c, err := rest.NewClient(&rest.Config{Host: srv.URL(), QPS: -1})
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	w, err := rest.NewResources(c, rest.Pods, decode.Typed[api.Pod]()).Watch(ctx, rest.WatchOptions{IdleTimeout: 100 * time.Millisecond})
	if err == nil {
		w.Close()
	}
	if !errors.Is(err, rest.ErrIdleTimeout) || ctx.Err() != nil {
		t.Fatalf("watch without response headers: %v (context: %v), want ErrIdleTimeout after 100ms", err, ctx.Err())
	}
}

// TestConvergesThroughStaleAndReorderedEvents: a server whose watches
// often send an old event again, or two events swapped (found by the chaos
// suite, seeds 22 and 33: a handler saw "upsert at rv 1108 after rv 1113",
// the cache kept an older state than the server's). The informer must
// never move a key back in time and must converge once the faults stop.
func TestConvergesThroughStaleAndReorderedEvents(t *testing.T) {
	defer goleak.VerifyNone(t, goleak.IgnoreCurrent())
	inj := fakeapi.NewInjector(1, fakeapi.Rates{fakeapi.Stale: 0.2, fakeapi.OutOfOrder: 0.2}, 0)
	srv := fakeapi.New(fakeapi.Options{Resources: []fakeapi.Resource{chaosPods}, Faults: inj})
	defer srv.Close()
	w := &chaosWriter{srv: srv, rng: rand.New(rand.NewPCG(1, 3)), names: 5}
	c, err := rest.NewClient(&rest.Config{Host: srv.URL(), QPS: -1})
	if err != nil {
		t.Fatal(err)
	}
	b := reflector.DefaultBackoff()
	b.Initial, b.Max = time.Millisecond, 5*time.Millisecond
	f := informer.NewFactory(c, informer.FactoryOptions{Reflector: reflector.Options{DisableWatchList: true, Backoff: &b}})
	defer f.Shutdown()
	if d := drivePodInformer(t, f, srv, inj, w, 300); d != "" {
		t.Fatalf("stale and reordered events: %s (faults %v)", d, inj.Counts())
	}
	if n := inj.Counts(); n[fakeapi.Stale] == 0 || n[fakeapi.OutOfOrder] == 0 {
		t.Fatalf("faults %v: the test tests nothing", n)
	}
}

// drivePodInformer starts a pod informer of f with a chaos handler, makes
// n writes with w while inj's faults strike, turns them off, and returns
// what awaitChaos finds: "" once the cache and the handler hold the
// server's state.
func drivePodInformer(t *testing.T, f *informer.Factory, srv *fakeapi.Server, inj *fakeapi.Injector, w *chaosWriter, n int) string {
	t.Helper()
	inf := informer.For[api.Pod](f, rest.Pods)
	h := newChaosHandler(chaosScenario{seed: 1}, 0)
	if _, err := inf.AddEventHandler(h, processor.HandlerOptions{}); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	inj.SetEnabled(true)
	f.Start(ctx)
	for range n {
		if err := w.write(); err != nil {
			t.Fatal(err)
		}
		w.pace()
	}
	inj.SetEnabled(false)
	return awaitChaos(srv, inf, []*chaosHandler{h}, "", 10*time.Second)
}
