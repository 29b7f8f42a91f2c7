package processor

import (
	"context"
	"strconv"
	"testing"
	"testing/synctest"

	"github.com/rs/zerolog"

	"github.com/kcmlab/kcm/kube/api"
)

// TestTakeWaitsForWork: the listener goroutine's take blocks while the
// buffer is empty and returns only once a notification arrives (client-go's
// processorListener.pop likewise waits on its channel). A take that returned
// an empty batch would leave the goroutine spinning on the lock instead.
func TestTakeWaitsForWork(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		l := newListener[*api.Pod]("h", HandlerFuncs[*api.Pod]{}, zerolog.Nop(), nil, func() bool { return true })
		type result struct {
			n  int
			ok bool
		}
		got := make(chan result, 1)
		go func() {
			b, ok := l.take(context.Background(), make([]Notification[*api.Pod], 0, batchSize))
			got <- result{len(b), ok}
		}()
		synctest.Wait() // take is blocked, or has wrongly returned
		select {
		case r := <-got:
			t.Fatalf("take on an empty buffer returned %d notifications, ok=%v, instead of waiting", r.n, r.ok)
		default:
		}
		l.add(AddNotification(pod("ns", "a", 1), false))
		if r := <-got; r.n != 1 || !r.ok {
			t.Fatalf("take after one add = %d notifications, ok=%v; want 1, true", r.n, r.ok)
		}
	})
}

// TestTakeBatches: take moves at most batchSize notifications, oldest
// first, and leaves the rest buffered and counted by pending.
func TestTakeBatches(t *testing.T) {
	l := newListener[*api.Pod]("h", HandlerFuncs[*api.Pod]{}, zerolog.Nop(), nil, func() bool { return true })
	const n = batchSize + 5
	for i := range n {
		l.add(AddNotification(pod("ns", "a", i), false))
	}
	b, ok := l.take(context.Background(), make([]Notification[*api.Pod], 0, batchSize))
	if !ok || len(b) != batchSize {
		t.Fatalf("take = %d notifications, ok=%v; want %d, true", len(b), ok, batchSize)
	}
	for i, x := range b {
		if x.Obj.ResourceVersion != strconv.Itoa(i) {
			t.Fatalf("batch[%d] = %s, want version of notification %d", i, x.Obj.ResourceVersion, i)
		}
	}
	if got := l.pending(); got != n {
		t.Fatalf("pending = %d with %d taken and %d buffered, want %d", got, batchSize, n-batchSize, n)
	}
}
