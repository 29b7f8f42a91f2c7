package deltafifo

import (
	"context"
	"fmt"
)

// Pop waits until at least one delta is queued, then hands up to max of the
// oldest deltas, in arrival order, to process (max < 1 counts as 1). With
// Options.GatherReplaces it waits, while a replace is open, until max
// deltas are queued or the replace ends.
//
// process runs without the FIFO's lock, so producers are never blocked by
// it. The batch slice is reused by the next Pop: process must neither retain
// nor modify it (copy what it needs, the Objects included). The deltas are
// consumed when process returns, whatever it returns: until then their keys
// count as pending (a Delete of such a key is not ignored, Resync skips it,
// Finish takes its last object from the batch). If process returns an error
// the batch is not re-queued; Pop returns the error wrapped, and the caller
// decides (the informer logs it and pops on). If process panics, the batch
// is consumed and the panic goes on up.
//
// Pop returns ErrClosed once the FIFO is closed (pending deltas are dropped,
// not drained), the context's error if ctx is done before a batch is taken
// (a done ctx wins over queued deltas), and ErrConcurrentPop if another Pop
// is running: there is one consumer.
func (f *FIFO[T]) Pop(ctx context.Context, max int, process func(batch []Delta[T]) error) error {
	if err := f.startPop(); err != nil {
		return err
	}
	batch, err := f.take(ctx, max)
	if err != nil {
		f.endPop(nil)
		return err
	}
	defer f.endPop(batch)
	if err := process(batch); err != nil {
		return fmt.Errorf("deltafifo: process batch: %w", err)
	}
	return nil
}

// startPop claims the single consumer slot.
func (f *FIFO[T]) startPop() error {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.closed {
		return ErrClosed
	}
	if f.popping {
		return ErrConcurrentPop
	}
	f.popping = true
	return nil
}

// take waits for queued deltas and moves up to limit of them into the batch.
func (f *FIFO[T]) take(ctx context.Context, limit int) ([]Delta[T], error) {
	for {
		if b, err := f.tryTake(ctx, limit); b != nil || err != nil {
			return b, err
		}
		if f.waitHook != nil {
			f.waitHook()
		}
		select {
		case <-ctx.Done():
		case <-f.notify:
		case <-f.closedCh:
		}
	}
}

// tryTake takes a batch if one is queued; (nil, nil) means wait.
func (f *FIFO[T]) tryTake(ctx context.Context, limit int) ([]Delta[T], error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.closed {
		return nil, ErrClosed
	}
	if err := ctx.Err(); err != nil {
		return nil, fmt.Errorf("deltafifo: pop: %w", err)
	}
	limit = max(1, limit)
	n := min(f.queue.Len(), limit)
	if n == 0 {
		return nil, nil
	}
	if f.gather && f.replace != nil && !f.replace.atomic && n < limit {
		f.gatherAt = limit // wait for a full batch, or the replace's end
		return nil, nil
	}
	f.gatherAt = 0
	if cap(f.batch) < n {
		f.batch = make([]Delta[T], n)
	}
	b := f.batch[:n]
	f.queue.PopInto(b)
	f.head += uint64(n)
	return b, nil
}

// endPop marks batch consumed and frees the consumer slot.
func (f *FIFO[T]) endPop(batch []Delta[T]) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if !f.closed {
		for i := range batch {
			switch d := &batch[i]; {
			case d.Type == ReplacedAll:
				f.wholePending--
			case !d.keyless():
				f.consumeLocked(d.Key)
			}
		}
		f.done += uint64(len(batch))
	}
	clear(batch)
	f.popping = false
}

// consumeLocked drops one pending delta of key from the bookkeeping.
func (f *FIFO[T]) consumeLocked(key string) {
	st := f.keys[key]
	if st.pending--; st.pending == 0 {
		delete(f.keys, key)
		return
	}
	f.keys[key] = st
}
