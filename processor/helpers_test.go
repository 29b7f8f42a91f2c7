package processor

import (
	"context"
	"fmt"
	"strconv"
	"testing"
	"time"

	"github.com/kcmlab/kcm/kube/api"
)

// testTimeout bounds every wait in these tests. It is a safety net that
// turns a hang into a failure, never a way to let time pass.
const testTimeout = 20 * time.Second

func pod(ns, name string, rv int) *api.Pod {
	return &api.Pod{ObjectMeta: api.ObjectMeta{Namespace: ns, Name: name, ResourceVersion: strconv.Itoa(rv)}}
}

// event is what a recorder saw, flattened for comparison.
type event struct {
	Kind  string // add, update, delete
	Key   string
	RV    string // the object's (new) resourceVersion
	OldRV string // update only
	Flag  bool   // isInitialList for add, finalStateUnknown for delete
}

func (e event) String() string {
	return fmt.Sprintf("%s %s rv=%s old=%s flag=%v", e.Kind, e.Key, e.RV, e.OldRV, e.Flag)
}

// recorder is a Handler that sends every call to a channel.
type recorder struct{ ch chan event }

func newRecorder() *recorder { return &recorder{ch: make(chan event, 100_000)} }

func (r *recorder) OnAdd(obj *api.Pod, initial bool) {
	r.ch <- event{Kind: "add", Key: obj.Key(), RV: obj.ResourceVersion, Flag: initial}
}

func (r *recorder) OnUpdate(oldObj, newObj *api.Pod) {
	r.ch <- event{Kind: "update", Key: newObj.Key(), RV: newObj.ResourceVersion, OldRV: oldObj.ResourceVersion}
}

func (r *recorder) OnDelete(obj *api.Pod, unknown bool) {
	r.ch <- event{Kind: "delete", Key: obj.Key(), RV: obj.ResourceVersion, Flag: unknown}
}

// take waits for the next n events.
func (r *recorder) take(t *testing.T, n int) []event {
	t.Helper()
	deadline := time.NewTimer(testTimeout)
	defer deadline.Stop()
	out := make([]event, 0, n)
	for len(out) < n {
		select {
		case e := <-r.ch:
			out = append(out, e)
		case <-deadline.C:
			t.Fatalf("got %d of %d events: %v", len(out), n, out)
		}
	}
	return out
}

// takeUntil collects events up to and including the first one for key.
func (r *recorder) takeUntil(t *testing.T, key string) []event {
	t.Helper()
	deadline := time.NewTimer(testTimeout)
	defer deadline.Stop()
	var out []event
	for {
		select {
		case e := <-r.ch:
			out = append(out, e)
			if e.Key == key {
				return out
			}
		case <-deadline.C:
			t.Fatalf("no event for %s; got %v", key, out)
		}
	}
}

// running starts p.Run and returns a stop function that cancels it and
// returns Run's error once it has returned.
func running[T api.Object](t *testing.T, p *Processor[T]) (stop func() error) {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	errc := make(chan error, 1)
	go func() { errc <- p.Run(ctx) }()
	stopped := false
	var err error
	stop = func() error {
		if !stopped {
			stopped = true
			cancel()
			select {
			case err = <-errc:
			case <-time.After(testTimeout):
				t.Fatal("Run did not return after cancel")
			}
		}
		return err
	}
	t.Cleanup(func() { _ = stop() })
	return stop
}

func mustNew[T api.Object](t *testing.T, opts Options[T]) *Processor[T] {
	t.Helper()
	p, err := New(opts)
	if err != nil {
		t.Fatal(err)
	}
	return p
}

func mustAdd[T api.Object](t *testing.T, p *Processor[T], h Handler[T], opts HandlerOptions) *Registration {
	t.Helper()
	reg, err := p.AddHandler(h, opts)
	if err != nil {
		t.Fatal(err)
	}
	return reg
}

func waitClosed(t *testing.T, ch <-chan struct{}, what string) {
	t.Helper()
	select {
	case <-ch:
	case <-time.After(testTimeout):
		t.Fatalf("timed out waiting for %s", what)
	}
}
