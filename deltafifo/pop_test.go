package deltafifo

import (
	"context"
	"errors"
	"slices"
	"testing"
)

// collect returns a process func that records the rendered batch.
func collect(dst *[]string) func([]Delta[*obj]) error {
	return func(b []Delta[*obj]) error {
		for _, d := range b {
			*dst = append(*dst, render(d))
		}
		return nil
	}
}

// waiting installs the test hook and returns a channel that receives each
// time Pop is about to block.
func waiting(f *FIFO[*obj]) <-chan struct{} {
	ch := make(chan struct{}, 16)
	f.waitHook = func() { ch <- struct{}{} }
	return ch
}

func TestPopBatchesInArrivalOrder(t *testing.T) {
	f := New(Options[*obj]{})
	for _, k := range []string{"ns/b", "ns/a", "ns/b", "ns/c", "ns/a"} {
		if err := f.Update(mk(k, "1")); err != nil {
			t.Fatal(err)
		}
	}
	var got []string
	err := f.Pop(context.Background(), 2, func(b []Delta[*obj]) error {
		if n := f.Len(); n != 5 {
			t.Errorf("Len during process = %d, want 5 (in-flight deltas are pending)", n)
		}
		if err := f.checkInvariant(); err != nil {
			t.Error(err)
		}
		return collect(&got)(b)
	})
	if err != nil {
		t.Fatal(err)
	}
	if n := f.Len(); n != 3 {
		t.Errorf("Len after first batch = %d, want 3", n)
	}
	for _, max := range []int{0, 100} { // 0 counts as 1
		if err := f.Pop(context.Background(), max, collect(&got)); err != nil {
			t.Fatal(err)
		}
	}
	want := []string{"Updated ns/b@1", "Updated ns/a@1", "Updated ns/b@1", "Updated ns/c@1", "Updated ns/a@1"}
	if !slices.Equal(got, want) {
		t.Errorf("got %q, want %q", got, want)
	}
}

func TestPopProcessErrorConsumesBatch(t *testing.T) {
	f := New(Options[*obj]{})
	_ = f.Add(mk("ns/a", "1"))
	_ = f.Add(mk("ns/b", "1"))
	boom := errors.New("boom")
	err := f.Pop(context.Background(), 1, func([]Delta[*obj]) error { return boom })
	if !errors.Is(err, boom) {
		t.Fatalf("Pop = %v, want it to wrap boom", err)
	}
	if n := f.Len(); n != 1 {
		t.Errorf("Len after failed batch = %d, want 1 (the batch is consumed, not re-queued)", n)
	}
	var got []string
	if err := f.Pop(context.Background(), 10, collect(&got)); err != nil {
		t.Fatal(err)
	}
	if want := []string{"Added ns/b@1"}; !slices.Equal(got, want) {
		t.Errorf("next Pop got %q, want %q", got, want)
	}
	if err := f.checkInvariant(); err != nil {
		t.Error(err)
	}
}

func TestPopProcessPanicConsumesBatch(t *testing.T) {
	f := New(Options[*obj]{})
	_ = f.Add(mk("ns/a", "1"))
	_ = f.Add(mk("ns/b", "1"))
	func() {
		defer func() {
			if recover() == nil {
				t.Error("panic did not propagate")
			}
		}()
		_ = f.Pop(context.Background(), 1, func([]Delta[*obj]) error { panic("handler bug") })
	}()
	if err := f.checkInvariant(); err != nil {
		t.Fatal(err)
	}
	var got []string
	if err := f.Pop(context.Background(), 10, collect(&got)); err != nil {
		t.Fatalf("Pop after a panicking one = %v", err)
	}
	if want := []string{"Added ns/b@1"}; !slices.Equal(got, want) {
		t.Errorf("got %q, want %q", got, want)
	}
}

func TestPopWakesOnAdd(t *testing.T) {
	f := New(Options[*obj]{})
	blocked := waiting(f)
	var got []string
	done := make(chan error)
	go func() { done <- f.Pop(context.Background(), 10, collect(&got)) }()
	<-blocked
	if err := f.Add(mk("ns/a", "1")); err != nil {
		t.Fatal(err)
	}
	if err := <-done; err != nil {
		t.Fatal(err)
	}
	if want := []string{"Added ns/a@1"}; !slices.Equal(got, want) {
		t.Errorf("got %q, want %q", got, want)
	}
}

func TestCloseUnblocksPop(t *testing.T) {
	f := New(Options[*obj]{})
	blocked := waiting(f)
	done := make(chan error)
	go func() {
		done <- f.Pop(context.Background(), 10, func([]Delta[*obj]) error {
			t.Error("process called on an empty, closed FIFO")
			return nil
		})
	}()
	<-blocked
	f.Close()
	if err := <-done; !errors.Is(err, ErrClosed) {
		t.Fatalf("Pop = %v, want ErrClosed", err)
	}
}

func TestCloseDropsPendingAndRefusesProducers(t *testing.T) {
	f := New(Options[*obj]{Known: newStore(mk("ns/a", "1"))})
	_ = f.Add(mk("ns/b", "1"))
	r := f.StartReplace("1")
	f.Close()
	f.Close() // idempotent
	if !f.IsClosed() || f.Len() != 0 {
		t.Errorf("IsClosed=%v Len=%d, want true 0", f.IsClosed(), f.Len())
	}
	for name, err := range map[string]error{
		"Add":            f.Add(mk("ns/c", "1")),
		"Update":         f.Update(mk("ns/c", "1")),
		"Delete":         f.Delete(mk("ns/a", "1")),
		"Resync":         f.Resync(),
		"Replace":        f.Replace(nil, "2"),
		"open r.Add":     r.Add(mk("ns/c", "1")),
		"open r.Finish":  r.Finish(),
		"Pop":            f.Pop(context.Background(), 1, nil),
		"new StartRepl.": f.StartReplace("3").Finish(),
	} {
		if !errors.Is(err, ErrClosed) {
			t.Errorf("%s after Close = %v, want ErrClosed", name, err)
		}
	}
	if err := f.checkInvariant(); err != nil {
		t.Error(err)
	}
}

func TestCloseDuringProcess(t *testing.T) {
	f := New(Options[*obj]{})
	_ = f.Add(mk("ns/a", "1"))
	_ = f.Add(mk("ns/b", "1"))
	err := f.Pop(context.Background(), 1, func([]Delta[*obj]) error { f.Close(); return nil })
	if err != nil {
		t.Fatalf("Pop whose process closed the FIFO = %v, want nil", err)
	}
	if err := f.Pop(context.Background(), 1, nil); !errors.Is(err, ErrClosed) {
		t.Fatalf("next Pop = %v, want ErrClosed", err)
	}
}

func TestPopContextCancel(t *testing.T) {
	t.Run("while waiting", func(t *testing.T) {
		f := New(Options[*obj]{})
		blocked := waiting(f)
		ctx, cancel := context.WithCancel(context.Background())
		done := make(chan error)
		go func() { done <- f.Pop(ctx, 10, nil) }()
		<-blocked
		cancel()
		if err := <-done; !errors.Is(err, context.Canceled) {
			t.Fatalf("Pop = %v, want context.Canceled", err)
		}
	})
	t.Run("already done wins over queued deltas", func(t *testing.T) {
		f := New(Options[*obj]{})
		_ = f.Add(mk("ns/a", "1"))
		ctx, cancel := context.WithCancel(context.Background())
		cancel()
		if err := f.Pop(ctx, 10, nil); !errors.Is(err, context.Canceled) {
			t.Fatalf("Pop = %v, want context.Canceled", err)
		}
		if n := f.Len(); n != 1 {
			t.Errorf("Len = %d, want 1: a cancelled Pop takes nothing", n)
		}
		var got []string
		if err := f.Pop(context.Background(), 10, collect(&got)); err != nil || len(got) != 1 {
			t.Errorf("next Pop = %v, got %q", err, got)
		}
	})
}

func TestConcurrentPopRefused(t *testing.T) {
	f := New(Options[*obj]{})
	_ = f.Add(mk("ns/a", "1"))
	err := f.Pop(context.Background(), 1, func([]Delta[*obj]) error {
		return f.Pop(context.Background(), 1, nil)
	})
	if !errors.Is(err, ErrConcurrentPop) {
		t.Fatalf("nested Pop = %v, want ErrConcurrentPop", err)
	}
	t.Run("also while the first one waits", func(t *testing.T) {
		f := New(Options[*obj]{})
		blocked := waiting(f)
		ctx, cancel := context.WithCancel(context.Background())
		done := make(chan error)
		go func() { done <- f.Pop(ctx, 1, nil) }()
		<-blocked
		if err := f.Pop(context.Background(), 1, nil); !errors.Is(err, ErrConcurrentPop) {
			t.Errorf("second Pop = %v, want ErrConcurrentPop", err)
		}
		cancel()
		<-done
	})
}

// Deltas count as pending until process returns: a Delete of a key whose
// Added is being applied right now must not be ignored, even though the
// store does not have the key yet.
func TestInFlightKeysArePending(t *testing.T) {
	s := newStore()
	f := New(Options[*obj]{Known: s})
	_ = f.Add(mk("ns/a", "1"))
	var got []string
	err := f.Pop(context.Background(), 10, func(b []Delta[*obj]) error {
		// Producer calls while the batch is in flight, before it is applied.
		if err := f.Delete(mk("ns/a", "2")); err != nil {
			return err
		}
		if err := f.Resync(); err != nil {
			return err
		}
		if err := f.checkInvariant(); err != nil {
			return err
		}
		for _, d := range b {
			if err := s.apply(d); err != nil {
				return err
			}
		}
		return collect(&got)(b)
	})
	if err != nil {
		t.Fatal(err)
	}
	// And a Delete while that Deleted is in flight merges into it.
	err = f.Pop(context.Background(), 10, func(b []Delta[*obj]) error {
		if err := f.Delete(mk("ns/a", "3")); err != nil {
			return err
		}
		for _, d := range b {
			if err := s.apply(d); err != nil {
				return err
			}
		}
		return collect(&got)(b)
	})
	if err != nil {
		t.Fatal(err)
	}
	if want := []string{"Added ns/a@1", "Deleted ns/a@2"}; !slices.Equal(got, want) {
		t.Errorf("got %q, want %q", got, want)
	}
	if n := f.Len(); n != 0 {
		t.Errorf("Len = %d, want 0", n)
	}
}

// A replace's Finish while an item is in flight takes the tombstone's object
// from the batch: the store may not have it yet.
func TestFinishTombstonesInFlightKey(t *testing.T) {
	s := newStore()
	f := New(Options[*obj]{Known: s})
	_ = f.Add(mk("ns/a", "7"))
	var got []string
	err := f.Pop(context.Background(), 10, func(b []Delta[*obj]) error {
		if err := f.Replace(nil, "9"); err != nil {
			return err
		}
		for _, d := range b {
			if err := s.apply(d); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if err := f.Pop(context.Background(), 10, collect(&got)); err != nil {
		t.Fatal(err)
	}
	if want := []string{"Deleted ns/a@7 tomb init"}; !slices.Equal(got, want) {
		t.Errorf("got %q, want %q", got, want)
	}
}
