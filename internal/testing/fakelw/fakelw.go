package fakelw

import (
	"context"
	"testing"
	"time"

	"github.com/kcmlab/kcm/kube/api"
	"github.com/kcmlab/kcm/kube/rest"
	"github.com/kcmlab/kcm/reflector"
)

// Patience is how long a blocking helper waits before it fails the test.
const Patience = 10 * time.Second

// LW is a ListerWatcher whose every request is answered by the test.
type LW[T api.Object] struct {
	t     testing.TB
	calls chan *Call[T]
}

var _ reflector.ListerWatcher[*api.RawObject] = (*LW[*api.RawObject])(nil)

// New returns an LW reporting failures to t.
func New[T api.Object](t testing.TB) *LW[T] {
	return &LW[T]{t: t, calls: make(chan *Call[T])}
}

// Call is one request waiting for its answer.
type Call[T api.Object] struct {
	lw *LW[T]
	// IsList tells a LIST from a WATCH.
	IsList bool
	// Options are the LIST's options, or the WATCH's.
	Options rest.ListOptions
	// Watch is the WATCH's full options (zero for a LIST).
	Watch rest.WatchOptions

	ctx    context.Context
	answer chan answer[T]
}

type answer[T api.Object] struct {
	items  []T
	meta   rest.ListMeta
	err    error
	stream *Stream[T]
}

// Expect returns the next request, failing the test if none comes within
// Patience.
func (lw *LW[T]) Expect() *Call[T] {
	lw.t.Helper()
	select {
	case c := <-lw.calls:
		return c
	case <-time.After(Patience):
		lw.t.Fatalf("fakelw: no LIST or WATCH within %v", Patience)
		return nil
	}
}

// ExpectList is Expect, failing the test unless the request is a LIST.
func (lw *LW[T]) ExpectList() *Call[T] {
	lw.t.Helper()
	c := lw.Expect()
	if !c.IsList {
		lw.t.Fatalf("fakelw: got WATCH %+v, want a LIST", c.Options)
	}
	return c
}

// ExpectWatch is Expect, failing the test unless the request is a WATCH.
func (lw *LW[T]) ExpectWatch() *Call[T] {
	lw.t.Helper()
	c := lw.Expect()
	if c.IsList {
		lw.t.Fatalf("fakelw: got LIST %+v, want a WATCH", c.Options)
	}
	return c
}

// List answers a LIST with items (each handed to the caller's callback, in
// order) and the list's metadata.
func (c *Call[T]) List(meta rest.ListMeta, items ...T) {
	c.reply(answer[T]{items: items, meta: meta})
}

// FailAfter answers a LIST by handing it items, then failing with err (a
// list that broke midway).
func (c *Call[T]) FailAfter(err error, items ...T) {
	c.reply(answer[T]{items: items, err: err})
}

// Fail answers the request with err.
func (c *Call[T]) Fail(err error) { c.reply(answer[T]{err: err}) }

// Open answers a WATCH with an open stream.
func (c *Call[T]) Open() *Stream[T] {
	s := &Stream[T]{t: c.lw.t, ctx: c.ctx, events: make(chan next[T]), closed: make(chan struct{})}
	c.reply(answer[T]{stream: s})
	return s
}

func (c *Call[T]) reply(a answer[T]) {
	c.lw.t.Helper()
	select {
	case c.answer <- a:
	case <-time.After(Patience):
		c.lw.t.Fatalf("fakelw: the caller stopped waiting for its answer")
	}
}

// call hands a request to the test and waits for the answer, or for ctx.
func (lw *LW[T]) call(ctx context.Context, c *Call[T]) (answer[T], error) {
	c.lw, c.ctx, c.answer = lw, ctx, make(chan answer[T])
	select {
	case lw.calls <- c:
	case <-ctx.Done():
		return answer[T]{}, ctx.Err()
	}
	select {
	case a := <-c.answer:
		return a, nil
	case <-ctx.Done():
		return answer[T]{}, ctx.Err()
	}
}

// ListEach implements reflector.ListerWatcher.
func (lw *LW[T]) ListEach(ctx context.Context, opts rest.ListOptions, fn func(T) error) (rest.ListMeta, error) {
	a, err := lw.call(ctx, &Call[T]{IsList: true, Options: opts})
	if err != nil {
		return rest.ListMeta{}, err
	}
	for _, obj := range a.items {
		if err := fn(obj); err != nil {
			return rest.ListMeta{}, err
		}
	}
	return a.meta, a.err
}

// Watch implements reflector.ListerWatcher.
func (lw *LW[T]) Watch(ctx context.Context, opts rest.WatchOptions) (reflector.Watch[T], error) {
	a, err := lw.call(ctx, &Call[T]{Options: opts.ListOptions, Watch: opts})
	if err != nil {
		return nil, err
	}
	if a.err != nil {
		return nil, a.err
	}
	return a.stream, nil
}
