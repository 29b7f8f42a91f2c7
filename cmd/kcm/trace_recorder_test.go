package main

import (
	"context"
	"io"
	"strings"
	"testing"
	"time"

	"github.com/kcmlab/kcm/kube/api"
	"github.com/kcmlab/kcm/kube/rest"
	"github.com/kcmlab/kcm/reflector"
)

// step is what a fakeWatch's Next returns next.
type step struct {
	ev  rest.WatchEvent[*api.RawObject]
	err error
}

// fakeLW serves an empty LIST and watches whose events the test feeds
// through steps; a WatchList watch starts with the initial events given.
type fakeLW struct {
	initial []rest.WatchEvent[*api.RawObject]
	steps   chan step
}

func (f *fakeLW) ListEach(context.Context, rest.ListOptions, func(*api.RawObject) error) (rest.ListMeta, error) {
	return rest.ListMeta{ResourceVersion: "1"}, nil
}

func (f *fakeLW) Watch(ctx context.Context, opts rest.WatchOptions) (reflector.Watch[*api.RawObject], error) {
	w := &fakeWatch{ctx: ctx, steps: f.steps, closed: make(chan struct{})}
	if opts.SendInitialEvents != nil && *opts.SendInitialEvents {
		w.queued = append(w.queued, f.initial...)
	}
	return w, nil
}

type fakeWatch struct {
	ctx    context.Context
	queued []rest.WatchEvent[*api.RawObject]
	steps  chan step
	closed chan struct{}
}

func (w *fakeWatch) Next() (rest.WatchEvent[*api.RawObject], error) {
	if len(w.queued) > 0 {
		ev := w.queued[0]
		w.queued = w.queued[1:]
		return ev, nil
	}
	select {
	case s := <-w.steps:
		return s.ev, s.err
	case <-w.ctx.Done():
		return rest.WatchEvent[*api.RawObject]{}, w.ctx.Err()
	case <-w.closed:
		return rest.WatchEvent[*api.RawObject]{}, io.ErrClosedPipe
	}
}

func (w *fakeWatch) Close() error { close(w.closed); return nil }

func rawPod(t *testing.T, rv string, labels map[string]any, annotations map[string]any) *api.RawObject {
	t.Helper()
	meta := map[string]any{"name": "web-0", "namespace": "shop", "resourceVersion": rv, "labels": labels}
	if annotations != nil {
		meta = map[string]any{"resourceVersion": rv, "annotations": annotations}
	}
	o, err := api.NewRawObject(map[string]any{"apiVersion": "v1", "kind": "Pod", "metadata": meta})
	if err != nil {
		t.Fatal(err)
	}
	return o
}

// TestTracerPipeline runs the real informer with the recorder on a fake
// server: the initial state is summarised, then a change and a delete are
// each followed through all four stages, in order, and a watch the server
// ends is resumed. The fake follows the WatchList rule (KEP-3157): with
// sendInitialEvents=true the current state comes as ADDED events, closed
// by a BOOKMARK annotated k8s.io/initial-events-end: "true".
func TestTracerPipeline(t *testing.T) {
	lw := &fakeLW{steps: make(chan step), initial: []rest.WatchEvent[*api.RawObject]{
		{Type: rest.Added, Object: rawPod(t, "5", map[string]any{"app": "web", "tier": "fe"}, nil), Size: 300},
		{Type: rest.Bookmark, Object: rawPod(t, "6", nil, map[string]any{rest.InitialEventsEndAnnotation: "true"}), Size: 90},
	}}
	tap := newLineTap()
	tr, err := newTracerFrom(lw, traceStart{Resource: rest.Pods, Server: "fake", Transport: "chunked", WatchList: true},
		traceOptions{Resource: rest.Pods, Reflector: reflector.Options{InitialList: reflector.ListStream}}, tap)
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	runCtx, stop := context.WithCancel(ctx)
	done := make(chan error, 1)
	go func() { done <- tr.Run(runCtx) }()

	expect := func(from int, parts ...string) int {
		t.Helper()
		i, err := tap.await(ctx, from, parts...)
		if err != nil {
			t.Fatalf("%v; output:\n%s", err, strings.Join(tap.all(), "\n"))
		}
		return i
	}
	send := func(s step) {
		select {
		case lw.steps <- s:
		case <-ctx.Done():
			t.Fatal("the reflector did not read the next event")
		}
	}
	i := expect(0, "BOOKMARK", "initial-events-end: 1 objects streamed")
	i = expect(i, "informer", "synced", "1 objects cached")
	<-tr.Synced()

	send(step{ev: rest.WatchEvent[*api.RawObject]{Type: rest.Modified, Object: rawPod(t, "7", map[string]any{"app": "web", "tier": "be"}, nil), Size: 310}})
	i = expect(i, "reflector", "MODIFIED", "shop/web-0 rv=7 310B")
	i = expect(i, "deltafifo", "Updated", "shop/web-0")
	i = expect(i, "store", "update", "shop/web-0", "label app=web (+tier=be -tier=fe)")
	i = expect(i, "processor", "OnUpdate", "shop/web-0 → 1 listener", "after the reflector read it")

	send(step{err: io.EOF})
	i = expect(i, "WATCH", "ended by the server")
	i = expect(i, "WATCH", "from rv=7")

	send(step{ev: rest.WatchEvent[*api.RawObject]{Type: rest.Deleted, Object: rawPod(t, "8", map[string]any{"app": "web", "tier": "be"}, nil), Size: 320}})
	i = expect(i, "reflector", "DELETED", "shop/web-0 rv=8")
	i = expect(i, "store", "delete", "index namespace (-shop), label (-app=web -tier=be)")
	i = expect(i, "processor", "OnDelete", "shop/web-0")

	stop()
	if err := <-done; err != nil {
		t.Errorf("Run = %v, want nil after the context ended", err)
	}
	expect(i, "informer", "stopped", "2 changes traced")
	for _, l := range tap.all() {
		if containsAll(l, []string{"ADDED", "shop/web-0 rv=5"}) {
			t.Errorf("an initial event was printed without --show-initial: %q", l)
		}
	}
}
