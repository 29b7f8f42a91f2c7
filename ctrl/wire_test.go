package ctrl

import (
	"context"
	"errors"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/rs/zerolog"

	"github.com/kcmlab/kcm/clock"
	"github.com/kcmlab/kcm/informer"
	"github.com/kcmlab/kcm/internal/testing/fakeapi"
	"github.com/kcmlab/kcm/kube/api"
	"github.com/kcmlab/kcm/kube/rest"
	"github.com/kcmlab/kcm/processor"
)

// patience only turns a wait that would hang into a failure.
const patience = 10 * time.Second

var fakePods = fakeapi.Resource{Version: "v1", Resource: "pods", Kind: "Pod"}

// wiringContext is a controller context whose shared informers read srv
// (nil: a server that is never asked anything).
func wiringContext(t *testing.T, srv *fakeapi.Server) ControllerContext {
	t.Helper()
	host := "http://127.0.0.1:1"
	if srv != nil {
		host = srv.URL()
	}
	client, err := rest.NewClient(&rest.Config{Host: host, QPS: -1})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(client.CloseIdleConnections)
	cc, err := CreateControllerContext(client, Config{Logger: zerolog.Nop()})
	if err != nil {
		t.Fatal(err)
	}
	return cc
}

func noSync(context.Context, string) (Result, error) { return Result{}, nil }

// TestWiredLoopWaitsForItsRegistrations: a loop built by a Wiring is not
// synced while its handler is still taking the initial list, although the
// informer has synced (processor/doc.go: a controller waits on its own
// registrations); Run then refuses to start workers, naming the
// registration; once the handler returns the loop is synced.
func TestWiredLoopWaitsForItsRegistrations(t *testing.T) {
	srv := fakeapi.New(fakeapi.Options{Resources: []fakeapi.Resource{fakePods}})
	defer srv.Close()
	if _, err := srv.Create(fakePods, map[string]any{"metadata": map[string]any{"namespace": "ns", "name": "a"}}); err != nil {
		t.Fatal(err)
	}
	cc := wiringContext(t, srv)
	ctx, cancel := context.WithTimeout(context.Background(), patience)
	defer cancel()
	defer cc.InformerFactory.Shutdown()

	w := cc.Wire(loopName, LoopOptions{})
	entered, release := make(chan struct{}), make(chan struct{})
	var once sync.Once
	pods := Watch(w, rest.Pods, processor.HandlerFuncs[*api.Pod]{AddFunc: func(p *api.Pod, _ bool) {
		once.Do(func() { close(entered) })
		<-release
		w.Queue().Add(p.Key())
	}})
	c, err := w.Build(noSync)
	if err != nil {
		t.Fatal(err)
	}
	loop := c.(*Loop)
	if got := loop.WaitsFor(); !slices.Equal(got, []string{"pods/" + loopName}) {
		t.Fatalf("the loop waits for %q, want its pod registration", got)
	}
	if loop.HasSynced() {
		t.Fatal("synced before the informers started")
	}
	cc.InformerFactory.Start(ctx)
	select {
	case <-entered:
	case <-ctx.Done():
		close(release)
		t.Fatal("the handler never got the pod")
	}
	inf := informer.For[api.Pod](cc.InformerFactory, rest.Pods)
	if !informer.WaitForCacheSync(ctx, clock.Real{}, inf)[inf.Name()] {
		close(release)
		t.Fatal("the pod informer never synced")
	}
	if _, err := pods.Namespace("ns").Get("a"); err != nil {
		t.Errorf("Watch's lister: %v", err)
	}
	if loop.HasSynced() {
		close(release)
		t.Fatal("the loop is synced while its handler has not returned from the initial list: it waits on the informer, not on its registration")
	}
	stopped, stop := context.WithCancel(ctx)
	stop()
	err = loop.Run(stopped, 1)
	if !errors.Is(err, ErrCacheNotSynced) || !strings.Contains(err.Error(), "pods/"+loopName) {
		t.Errorf("Run = %v, want ErrCacheNotSynced naming pods/%s", err, loopName)
	}
	close(release)
	if !informer.WaitForCacheSync(ctx, clock.Real{}, loop)[loopName] {
		t.Fatal("the loop never synced after its handler returned")
	}
}

// TestWatchRefusesAnotherKind: a Go type given a resource of another kind
// fails Build with ErrKindMismatch; nothing is registered, the queue is
// shut down.
func TestWatchRefusesAnotherKind(t *testing.T) {
	cc := wiringContext(t, nil)
	w := cc.Wire(loopName, LoopOptions{})
	h := processor.HandlerFuncs[*api.Pod]{AddFunc: func(*api.Pod, bool) {}}
	Watch(w, rest.Pods, h)
	Watch(w, rest.Deployments, h) // decoding Deployments into Pods
	c, err := w.Build(noSync)
	if !errors.Is(err, informer.ErrKindMismatch) || c != nil {
		t.Fatalf("Build = (a controller: %v), %v; want no controller and ErrKindMismatch", c != nil, err)
	}
	for _, want := range []string{loopName, "api.Pod", "deployments.v1.apps"} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("%q does not name %q", err, want)
		}
	}
	if !w.Queue().ShuttingDown() {
		t.Error("the queue of a failed Build still runs")
	}
	if _, err := informer.For[api.Pod](cc.InformerFactory, rest.Pods).AddEventHandler(h, processor.HandlerOptions{Name: loopName}); err != nil {
		t.Errorf("the failed Build registered its pod handler: %v", err)
	}
	if _, err := w.Build(noSync); !errors.Is(err, ErrAlreadyRun) {
		t.Errorf("second Build = %v, want ErrAlreadyRun", err)
	}
}

// TestBuildUndoesRegistrations: when one registration fails (here a
// second controller of the same name), Build removes those it made and
// returns the error.
func TestBuildUndoesRegistrations(t *testing.T) {
	cc := wiringContext(t, nil)
	first := cc.Wire(loopName, LoopOptions{})
	Watch(first, rest.Pods, processor.HandlerFuncs[*api.Pod]{})
	if _, err := first.Build(noSync); err != nil {
		t.Fatal(err)
	}
	again := cc.Wire(loopName, LoopOptions{})
	Watch(again, rest.Namespaces, processor.HandlerFuncs[*api.Namespace]{})
	Watch(again, rest.Pods, processor.HandlerFuncs[*api.Pod]{})
	if _, err := again.Build(noSync); !errors.Is(err, processor.ErrDuplicateName) {
		t.Fatalf("Build = %v, want ErrDuplicateName", err)
	}
	ns := informer.For[api.Namespace](cc.InformerFactory, rest.Namespaces)
	if _, err := ns.AddEventHandler(processor.HandlerFuncs[*api.Namespace]{}, processor.HandlerOptions{Name: loopName}); err != nil {
		t.Errorf("the namespace registration of the failed Build was kept: %v", err)
	}
	first.Queue().ShutDown()
}

// TestBuildNeedsSync: a loop without a sync function is refused, and a
// Watch after Build is a programming error.
func TestBuildNeedsSync(t *testing.T) {
	cc := wiringContext(t, nil)
	w := cc.Wire(loopName, LoopOptions{})
	if _, err := w.Build(nil); !errors.Is(err, ErrNoSync) {
		t.Fatalf("Build(nil) = %v, want ErrNoSync", err)
	}
	defer func() {
		if r := recover(); r == nil {
			t.Fatal("Watch after Build did not panic")
		}
	}()
	Watch(w, rest.Pods, processor.HandlerFuncs[*api.Pod]{})
}

// TestWatchWithoutHandler: a nil handler registers nothing; the loop waits
// for the informer itself.
func TestWatchWithoutHandler(t *testing.T) {
	cc := wiringContext(t, nil)
	w := cc.Wire(loopName, LoopOptions{})
	Watch[api.Pod](w, rest.Pods, nil)
	c, err := w.Build(noSync)
	if err != nil {
		t.Fatal(err)
	}
	defer c.(*Loop).Queue().ShutDown()
	inf := informer.For[api.Pod](cc.InformerFactory, rest.Pods)
	if got := c.(*Loop).o.Synced; len(got) != 1 || got[0] != informer.Synced(inf) {
		t.Fatalf("the loop waits for %v, want the pod informer", got)
	}
}

// TestWatchWithResync: the handler is registered under the controller's
// name with the resync period asked for; Watch asks for none.
func TestWatchWithResync(t *testing.T) {
	cc := wiringContext(t, nil)
	w := cc.Wire(loopName, LoopOptions{})
	Watch(w, rest.Pods, processor.HandlerFuncs[*api.Pod]{})
	WatchWithResync(w, rest.Namespaces, processor.HandlerFuncs[*api.Namespace]{}, 90*time.Second)
	want := []processor.HandlerOptions{{Name: loopName}, {Name: loopName, ResyncPeriod: 90 * time.Second}}
	for i, p := range w.pending {
		if p.opts != want[i] {
			t.Errorf("Watch %d registers with %+v, want %+v", i, p.opts, want[i])
		}
	}
	c, err := w.Build(noSync)
	if err != nil {
		t.Fatal(err)
	}
	c.(*Loop).Queue().ShutDown()
}
