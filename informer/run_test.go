package informer

import (
	"context"
	"errors"
	"fmt"
	"io"
	"strings"
	"testing"
	"testing/synctest"
	"time"

	"github.com/rs/zerolog"

	"github.com/kcmlab/kcm/deltafifo"
	"github.com/kcmlab/kcm/kube/api"
	"github.com/kcmlab/kcm/kube/rest"
	"github.com/kcmlab/kcm/processor"
	"github.com/kcmlab/kcm/reflector"
	"github.com/kcmlab/kcm/store"
)

// staticLW is an in-memory ListerWatcher: its LIST returns objs, its
// watches stay silent until closed or their context ends, and it refuses
// WatchList like a server without the feature, so the reflector lists.
type staticLW struct{ objs []*api.Pod }

func (l staticLW) ListEach(_ context.Context, _ rest.ListOptions, fn func(*api.Pod) error) (rest.ListMeta, error) {
	for _, o := range l.objs {
		if err := fn(o); err != nil {
			return rest.ListMeta{}, err
		}
	}
	return rest.ListMeta{ResourceVersion: "1"}, nil
}

func (l staticLW) Watch(ctx context.Context, o rest.WatchOptions) (reflector.Watch[*api.Pod], error) {
	if o.SendInitialEvents != nil {
		return nil, fmt.Errorf("static: %w", rest.ErrBadRequest)
	}
	return &silentWatch{ctx: ctx, closed: make(chan struct{})}, nil
}

type silentWatch struct {
	ctx    context.Context
	closed chan struct{}
}

func (w *silentWatch) Next() (rest.WatchEvent[*api.Pod], error) {
	select {
	case <-w.ctx.Done():
		return rest.WatchEvent[*api.Pod]{}, w.ctx.Err()
	case <-w.closed:
		return rest.WatchEvent[*api.Pod]{}, io.EOF
	}
}

func (w *silentWatch) Close() error {
	select {
	case <-w.closed:
	default:
		close(w.closed)
	}
	return nil
}

func pod(ns, name string) *api.Pod {
	return &api.Pod{ObjectMeta: api.ObjectMeta{Namespace: ns, Name: name, ResourceVersion: "1"}}
}

// runUntilAdded runs inf, waits until its handler has entered OnAdd,
// stops it, and returns what Run returned. A stuck handler returns only
// once Run has: a shutdown timeout, if any, must have expired first.
func runUntilAdded(t *testing.T, inf *Informer[*api.Pod], stuck bool) error {
	t.Helper()
	entered, release := make(chan struct{}), make(chan struct{})
	var once bool
	h := processor.HandlerFuncs[*api.Pod]{AddFunc: func(*api.Pod, bool) {
		if !once {
			once = true
			close(entered)
		}
		if stuck {
			<-release
		}
	}}
	if _, err := inf.AddEventHandler(h, processor.HandlerOptions{Name: "stuck"}); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(t.Context())
	errc := make(chan error, 1)
	go func() { errc <- inf.Run(ctx) }()
	<-entered
	cancel()
	err := <-errc
	close(release)
	return err
}

// TestRunReturnsShutdownTimeout: a handler still running when the
// processor's shutdown timeout expires makes Run return the processor's
// ErrShutdownTimeout, named after the informer (client-go's informers
// drop it; kcm's Run reports it so the caller knows a handler was left).
func TestRunReturnsShutdownTimeout(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		inf, err := New[*api.Pod](staticLW{[]*api.Pod{pod("ns", "a")}}, Options[*api.Pod]{Name: "pods", ShutdownTimeout: time.Second})
		if err != nil {
			t.Fatal(err)
		}
		err = runUntilAdded(t, inf, true)
		if !errors.Is(err, processor.ErrShutdownTimeout) {
			t.Fatalf("Run = %v, want ErrShutdownTimeout", err)
		}
		if msg := err.Error(); !strings.HasPrefix(msg, "informer pods: processor: handlers still running") || !strings.Contains(msg, "stuck") {
			t.Errorf("Run's error %q does not name the informer, the part and the handler", msg)
		}
	})
}

// TestRunCleanStopIsNil: the end of Run's context stops the reflector, the
// FIFO and the loops with context and ErrClosed errors; none of them is a
// failure, so Run returns nil.
func TestRunCleanStopIsNil(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		inf, err := New[*api.Pod](staticLW{[]*api.Pod{pod("ns", "a")}}, Options[*api.Pod]{Name: "pods"})
		if err != nil {
			t.Fatal(err)
		}
		if err := runUntilAdded(t, inf, false); err != nil {
			t.Fatalf("Run after a clean stop = %v, want nil", err)
		}
		if err := inf.Run(t.Context()); !errors.Is(err, ErrAlreadyStarted) {
			t.Fatalf("second Run = %v, want ErrAlreadyStarted", err)
		}
	})
}

// TestApplyLoop: the apply loop pops on after a failed batch (the FIFO has
// consumed it), ends without error when the FIFO closes or ctx ends, and
// returns the first failure with the number of failed batches.
func TestApplyLoop(t *testing.T) {
	errA, errB := errors.New("batch a"), errors.New("batch b")
	for _, tc := range []struct {
		name    string
		pops    []error // what each Pop returns
		cancel  int     // the pop (1-based) that ends ctx; 0: none
		want    error
		wantMsg string
		popped  int
	}{
		{name: "closed FIFO ends it", pops: []error{nil, nil, deltafifo.ErrClosed}, popped: 3},
		{name: "ctx end ends it", pops: []error{nil, fmt.Errorf("deltafifo: pop: %w", context.Canceled)}, cancel: 2, popped: 2},
		{name: "failures are counted, the first kept", pops: []error{errA, nil, errB, deltafifo.ErrClosed},
			want: errA, wantMsg: "batches failed: 2; the first: batch a", popped: 4},
		{name: "a failure as ctx ends is the stop", pops: []error{errA, errB}, cancel: 2,
			want: errA, wantMsg: "batches failed: 1;", popped: 2},
	} {
		t.Run(tc.name, func(t *testing.T) {
			inf, err := New[*api.Pod](staticLW{}, Options[*api.Pod]{Name: "pods"})
			if err != nil {
				t.Fatal(err)
			}
			ctx, cancel := context.WithCancel(t.Context())
			defer cancel()
			n := 0
			got := inf.applyLoop(ctx, func(context.Context) error {
				n++
				if n == tc.cancel {
					cancel()
				}
				if n > len(tc.pops) {
					t.Fatalf("pop %d after the last scripted one", n)
				}
				return tc.pops[n-1]
			})
			if n != tc.popped {
				t.Errorf("popped %d times, want %d", n, tc.popped)
			}
			if tc.want == nil {
				if got != nil {
					t.Fatalf("applyLoop = %v, want nil", got)
				}
				return
			}
			if !errors.Is(got, tc.want) || !strings.Contains(got.Error(), tc.wantMsg) {
				t.Fatalf("applyLoop = %v, want %v and %q", got, tc.want, tc.wantMsg)
			}
		})
	}
}

// TestFailure: what ends a part of Run because Run is stopping (ctx's end,
// the FIFO closed) is no failure; anything else is, named after the part,
// a timeout while ctx is alive included.
func TestFailure(t *testing.T) {
	boom := errors.New("boom")
	ended, cancel := context.WithCancel(context.Background())
	cancel()
	alive := context.Background()
	timeout := fmt.Errorf("deltafifo: pop: %w", context.DeadlineExceeded)
	for _, tc := range []struct {
		ctx  context.Context
		what string
		err  error
		want string // "" = no failure
	}{
		{alive, "reflector", nil, ""},
		{ended, "reflector", context.Canceled, ""},
		{ended, "apply loop", timeout, ""},
		{alive, "apply loop", timeout, "apply loop: " + timeout.Error()},
		{alive, "resync", deltafifo.ErrClosed, ""},
		{alive, "reflector", boom, "reflector: boom"},
		{alive, "", processor.ErrShutdownTimeout, processor.ErrShutdownTimeout.Error()},
	} {
		got := failure(tc.ctx, tc.what, tc.err)
		if tc.want == "" {
			if got != nil {
				t.Errorf("failure(%v) = %v, want nil", tc.err, got)
			}
			continue
		}
		if got == nil || got.Error() != tc.want || !errors.Is(got, tc.err) {
			t.Errorf("failure(%v) = %v, want %q wrapping it", tc.err, got, tc.want)
		}
	}
}

// podSetter is the store's Set, which a view must not have.
type podSetter interface {
	Set(*api.Pod) (*api.Pod, bool)
}

// TestStoreIsAView: Informer.Store hands out the cache's read-only view,
// which reads what the apply loop wrote and cannot be turned back into the
// writer (the informer's own *store.Store).
func TestStoreIsAView(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		inf, err := New[*api.Pod](staticLW{[]*api.Pod{pod("ns", "a"), pod("", "n1")}}, Options[*api.Pod]{Name: "pods"})
		if err != nil {
			t.Fatal(err)
		}
		v := inf.Store()
		if _, ok := any(v).(*store.Store[*api.Pod]); ok {
			t.Fatal("Store() type-asserts to the writer")
		}
		if _, ok := any(v).(podSetter); ok {
			t.Fatal("Store() can Set")
		}
		ctx, cancel := context.WithCancel(t.Context())
		done := make(chan error, 1)
		go func() { done <- inf.Run(ctx) }()
		synctest.Wait() // the list is applied, every goroutine waits
		if !inf.HasSynced() {
			t.Fatal("not synced once idle")
		}
		if v.Len() != 2 || len(v.List()) != 2 {
			t.Errorf("view holds %d objects, want 2", v.Len())
		}
		if _, ok := v.Get("ns/a"); !ok {
			t.Error("view lacks ns/a")
		}
		cancel()
		if err := <-done; err != nil {
			t.Fatal(err)
		}
	})
}

// TestKnownObjects: the FIFO's view of the cache lists and gets exactly
// what the store holds (deltafifo relies on it to ignore deletes of
// unknown keys and to resync).
func TestKnownObjects(t *testing.T) {
	s := store.New(store.Options[*api.Pod]{})
	a := pod("ns", "a")
	s.Set(a)
	var k deltafifo.KnownObjects[*api.Pod] = knownObjects[*api.Pod]{s.View()}
	if keys := k.ListKeys(); len(keys) != 1 || keys[0] != "ns/a" {
		t.Errorf("ListKeys = %v, want [ns/a]", keys)
	}
	if got, ok := k.GetByKey("ns/a"); !ok || got != a {
		t.Errorf("GetByKey(ns/a) = %v, %v", got, ok)
	}
	if _, ok := k.GetByKey("ns/b"); ok {
		t.Error("GetByKey(ns/b) found a missing key")
	}
}

// TestSyncLoggedAfterHasSyncedPoll: the "informer synced" line is written
// once even when a caller's HasSynced poll (a manager waiting for caches)
// latches the synced flag before the apply loop notes the sync.
func TestSyncLoggedAfterHasSyncedPoll(t *testing.T) {
	var buf strings.Builder
	inf, err := New[*api.Pod](staticLW{}, Options[*api.Pod]{Name: "pods", Logger: zerolog.New(&buf)})
	if err != nil {
		t.Fatal(err)
	}
	if err := inf.fifo.Replace(nil, "1"); err != nil {
		t.Fatal(err)
	}
	if err := inf.fifo.Pop(context.Background(), 10, inf.applyBatch); err != nil { // the list's end Bookmark
		t.Fatal(err)
	}
	if !inf.HasSynced() {
		t.Fatal("HasSynced = false after an empty Replace was applied")
	}
	inf.noteSync()
	inf.noteSync()
	if n := strings.Count(buf.String(), `"message":"informer synced"`); n != 1 {
		t.Fatalf("%d 'informer synced' lines, want 1; log:\n%s", n, buf.String())
	}
}
