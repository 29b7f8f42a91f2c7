package deltafifo

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"sync"
	"testing"
)

// consumer is an apply loop in its own goroutine. It applies every delta to
// the store, checks what the FIFO promises about the stream, and closes
// drained when its Pop is about to wait after the delta for sentinelKey
// arrived: in an arrival-ordered FIFO everything enqueued before the
// sentinel has then been applied and consumed (the sentinel's batch
// included, so HasSynced already counts it).
type consumer struct {
	f           *FIFO[*obj]
	s           *store
	sentinelKey string
	// sawSentinel is set by apply; drained is closed by the FIFO's
	// waitHook. Both run on the consumer goroutine only.
	sawSentinel bool
	drained     chan struct{}
	errs        chan error // the first violation, or the loop's end

	lastGen  map[string]int64     // per producer namespace: the last generation seen
	lastType map[string]DeltaType // per key: the last delta type
}

func startConsumer(f *FIFO[*obj], s *store, sentinelKey string) *consumer {
	c := &consumer{
		f: f, s: s, sentinelKey: sentinelKey,
		drained:  make(chan struct{}),
		errs:     make(chan error, 1),
		lastGen:  map[string]int64{},
		lastType: map[string]DeltaType{},
	}
	f.waitHook = func() {
		if c.sawSentinel {
			c.sawSentinel = false
			close(c.drained)
		}
	}
	go c.loop()
	return c
}

func (c *consumer) loop() {
	for {
		err := c.f.Pop(context.Background(), 64, c.apply)
		if errors.Is(err, ErrClosed) {
			c.errs <- nil
			return
		}
		if err != nil {
			c.errs <- err
			return
		}
	}
}

func (c *consumer) apply(b []Delta[*obj]) error {
	for _, d := range b {
		if d.Key == c.sentinelKey {
			c.sawSentinel = true
			continue
		}
		if d.Type == Deleted && c.lastType[d.Key] == Deleted {
			return fmt.Errorf("two Deleted in a row for %s", d.Key)
		}
		c.lastType[d.Key] = d.Type
		// Watch events of one producer must arrive in the order it issued
		// them, across all of its keys (Sync re-delivers stored objects and
		// tombstones carry old ones: neither is a new event).
		if d.Type != Sync && !d.FinalStateUnknown && d.Type != Replaced {
			ns, g := d.Object.Namespace, d.Object.Generation
			if g <= c.lastGen[ns] {
				return fmt.Errorf("%s: generation %d after %d: out of arrival order", d.Key, g, c.lastGen[ns])
			}
			c.lastGen[ns] = g
		}
		if err := c.s.apply(d); err != nil {
			return err
		}
	}
	return nil
}

// finish waits until the consumer has drained up to the sentinel (or
// failed), closes the FIFO and returns the consumer's verdict. Waiting for
// the consumer to go idle, not merely for the sentinel to be applied, makes
// sure the sentinel's batch was consumed before Close: a batch still being
// processed at Close never counts as consumed.
func (c *consumer) finish(t *testing.T) {
	t.Helper()
	select {
	case <-c.drained:
	case err := <-c.errs:
		t.Fatalf("consumer stopped before the sentinel: %v", err)
	}
	c.f.Close()
	if err := <-c.errs; err != nil {
		t.Fatal(err)
	}
}

// Producers on disjoint keys, a resyncer and one consumer, under -race.
func TestConcurrentProducersConsumer(t *testing.T) {
	const producers, ops, keysPer = 4, 1500, 16
	s := newStore()
	f := New(Options[*obj]{Known: s})
	c := startConsumer(f, s, "zz/sentinel")

	truth := make([]map[string]*obj, producers)
	var wg sync.WaitGroup
	for p := range producers {
		truth[p] = map[string]*obj{}
		wg.Go(func() {
			rng := rand.New(rand.NewPCG(uint64(p), 7))
			ns := fmt.Sprintf("p%d", p)
			for gen := int64(1); gen <= ops; gen++ {
				o := mk(fmt.Sprintf("%s/k%d", ns, rng.IntN(keysPer)), fmt.Sprint(gen))
				o.Generation = gen
				var err error
				switch _, exists := truth[p][o.Key()]; {
				case !exists:
					err = f.Add(o)
					truth[p][o.Key()] = o
				case rng.IntN(3) == 0:
					err = f.Delete(o)
					delete(truth[p], o.Key())
				default:
					err = f.Update(o)
					truth[p][o.Key()] = o
				}
				if err != nil {
					t.Error(err)
					return
				}
			}
		})
	}
	wg.Go(func() {
		for range 30 {
			if err := f.Resync(); err != nil {
				t.Error(err)
				return
			}
		}
	})
	wg.Wait()
	if err := f.checkInvariant(); err != nil {
		t.Fatal(err)
	}
	if err := f.Add(mk("zz/sentinel", "0")); err != nil {
		t.Fatal(err)
	}
	c.finish(t)

	want := newStore()
	for _, m := range truth {
		for _, o := range m {
			want.m[o.Key()] = o
		}
	}
	if got, w := s.String(), want.String(); got != w {
		t.Errorf("store after drain:\n  %s\nwant\n  %s", got, w)
	}
}

// The reflector streams a relist while the apply loop consumes it.
func TestConcurrentStreamingReplace(t *testing.T) {
	const items = 3000
	s := newStore(mk("ns/gone1", "1"), mk("ns/gone2", "1"), mk("ns/i7", "1"))
	f := New(Options[*obj]{Known: s})
	c := startConsumer(f, s, "zz/sentinel")

	r := f.StartReplace("42")
	for i := range items {
		if err := r.Add(mk(fmt.Sprintf("ns/i%d", i), "42")); err != nil {
			t.Fatal(err)
		}
	}
	if err := r.Finish(); err != nil {
		t.Fatal(err)
	}
	if err := f.Add(mk("zz/sentinel", "0")); err != nil {
		t.Fatal(err)
	}
	c.finish(t)
	if !f.HasSynced() {
		t.Error("not synced after the initial list was applied")
	}
	if n := len(s.ListKeys()); n != items {
		t.Errorf("store holds %d keys, want %d", n, items)
	}
	if s.has("ns/gone1") || s.has("ns/gone2") {
		t.Error("keys missing from the relist were not tombstoned")
	}
	if o, _ := s.GetByKey("ns/i7"); o == nil || o.ResourceVersion != "42" {
		t.Errorf("ns/i7 = %+v, want the listed version", o)
	}
}
