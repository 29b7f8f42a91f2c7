package rest

import (
	"runtime"
	"sync"
	"sync/atomic"

	"github.com/kcmlab/kcm/kube/api"
	"github.com/kcmlab/kcm/kube/api/decode"
)

// Decoding a long list on several cores.
//
// Reading a LIST is two jobs of very different weight: finding where each
// item ends (a byte scan, about a tenth of the work) and decoding the item
// into an object (the rest, with its allocations). client-go does both on
// the goroutine that reads the response. decodeList does both there for
// the first parallelAfter items; a longer list then has its items copied,
// in batches, to up to listDecoders goroutines that decode them, while the
// reading goroutine goes on scanning and hands the decoded objects to fn in
// the list's order. A 50 000-pod start-up decodes on every core the
// process may use instead of one.
//
// What stays as in the serial path:
//   - fn sees the items in order, one call at a time, on the reading
//     goroutine.
//   - An item that fails to decode stops the list: fn has seen exactly the
//     items before it, and the error is that item's. An error from fn stops
//     it too; fn is not called again.
//   - A decoder panic is an error, not a crash.
//   - The decoders are started by the list and have all returned when
//     decodeList returns, whatever the outcome: each finishes at most the
//     batch it holds (a few milliseconds).
//
// Memory: at most 2·decoders+1 batches are in flight, each up to
// batchItems items or batchBytes bytes of copied JSON, and their decoded
// objects until fn has taken them.

// parallelAfter is the number of items decoded serially before a list
// starts decoders: shorter lists (nearly all of them) start no goroutine.
// batchItems and batchBytes bound a batch.
const (
	parallelAfter = 2048
	batchItems    = 32
	batchBytes    = 256 << 10
	maxDecoders   = 4
)

// listDecoders is how many goroutines decode a long list: GOMAXPROCS, at
// most maxDecoders. With one processor nothing runs beside the reader, and
// lists decode serially.
func listDecoders() int { return min(runtime.GOMAXPROCS(0), maxDecoders) }

// itemBatch is a run of consecutive list items: their bytes, copied out of
// the read buffer, and once decoded their objects, or the error of the
// first item that failed (objs then holds the items before it).
type itemBatch[T api.Object] struct {
	buf  []byte
	ends []int
	objs []T
	err  error
	done chan struct{}
}

// decodeAll decodes b's items in order, stopping at the first failure.
func (b *itemBatch[T]) decodeAll(codec decode.Codec[T]) {
	defer close(b.done)
	defer func() {
		if p := recover(); p != nil {
			b.err = decodePanic(p)
		}
	}()
	start := 0
	for _, end := range b.ends {
		obj, err := decode.Borrowed(codec, b.buf[start:end])
		if err != nil {
			b.err = err
			return
		}
		b.objs = append(b.objs, obj)
		start = end
	}
}

// itemDecoder is the item callback of decodeList: serial for the first
// parallelAfter items, then batched to decoders.
type itemDecoder[T api.Object] struct {
	codec    decode.Codec[T]
	fn       func(T) error
	decoders int
	// after and batch are parallelAfter and batchItems (tests lower them).
	after, batch int
	// itemErr is the error item returned: an item that failed to decode
	// or fn's error. The list stops there.
	itemErr error

	seen int
	// fnErr is the error fn returned, which stops the list.
	fnErr error
	// cur collects the items of the next batch; pending holds the batches
	// handed to the decoders, oldest first; work carries them there.
	cur     *itemBatch[T]
	pending []*itemBatch[T]
	work    chan *itemBatch[T]
	wg      sync.WaitGroup
	// launched counts the decoders started.
	launched int
	// stopped tells the decoders to skip the batches left once the list
	// has failed.
	stopped atomic.Bool
	// free holds delivered batches whose buffers can be reused.
	free []*itemBatch[T]
}

func newItemDecoder[T api.Object](codec decode.Codec[T], fn func(T) error, decoders int) *itemDecoder[T] {
	return &itemDecoder[T]{codec: codec, fn: fn, decoders: decoders, after: parallelAfter, batch: batchItems}
}

// item takes the next item's bytes, which are valid only during the call.
func (d *itemDecoder[T]) item(raw []byte) error {
	d.itemErr = d.take(raw)
	return d.itemErr
}

// take decodes raw at once while the list is short, or else adds it to
// the current batch, submitting the batch once full.
func (d *itemDecoder[T]) take(raw []byte) error {
	d.seen++
	if d.decoders <= 1 || d.seen <= d.after {
		obj, err := decode.Borrowed(d.codec, raw)
		if err != nil {
			return err
		}
		return d.deliver(obj)
	}
	if d.work == nil {
		d.start()
	}
	if d.cur == nil {
		d.cur = d.newBatch()
	}
	d.cur.buf = append(d.cur.buf, raw...)
	d.cur.ends = append(d.cur.ends, len(d.cur.buf))
	if len(d.cur.ends) >= d.batch || len(d.cur.buf) >= batchBytes {
		return d.submit()
	}
	return nil
}

// deliver hands obj to fn, remembering fn's error.
func (d *itemDecoder[T]) deliver(obj T) error {
	if d.fnErr = d.fn(obj); d.fnErr != nil {
		return d.fnErr
	}
	return nil
}

// start launches the decoders.
func (d *itemDecoder[T]) start() {
	work := make(chan *itemBatch[T], 2*d.decoders)
	d.work = work
	for range d.decoders {
		d.launched++
		d.wg.Add(1)
		go func() {
			defer d.wg.Done()
			for b := range work {
				if d.stopped.Load() {
					close(b.done)
					continue
				}
				b.decodeAll(d.codec)
			}
		}()
	}
}

// newBatch returns an empty batch, reusing a delivered one's memory.
func (d *itemDecoder[T]) newBatch() *itemBatch[T] {
	if n := len(d.free); n > 0 {
		b := d.free[n-1]
		d.free = d.free[:n-1]
		b.buf, b.ends, b.objs, b.err = b.buf[:0], b.ends[:0], b.objs[:0], nil
		b.done = make(chan struct{})
		return b
	}
	return &itemBatch[T]{
		buf:  make([]byte, 0, batchBytes),
		ends: make([]int, 0, batchItems),
		objs: make([]T, 0, batchItems),
		done: make(chan struct{}),
	}
}

// submit hands the current batch to the decoders, then delivers what is
// decoded at the head of the line; with too many batches in flight it
// waits for the oldest.
func (d *itemDecoder[T]) submit() error {
	b := d.cur
	d.cur = nil
	d.pending = append(d.pending, b)
	d.work <- b // never blocks: at most 2·decoders batches are pending
	return d.drain(len(d.pending) >= 2*d.decoders)
}

// drain delivers the decoded batches at the head of pending, in order. With
// wait, it first waits for the oldest batch.
func (d *itemDecoder[T]) drain(wait bool) error {
	for len(d.pending) > 0 {
		b := d.pending[0]
		if wait {
			<-b.done
			wait = false
		} else {
			select {
			case <-b.done:
			default:
				return nil
			}
		}
		d.pending = d.pending[1:]
		for i, obj := range b.objs {
			if err := d.deliver(obj); err != nil {
				return err
			}
			var zero T
			b.objs[i] = zero // fn owns it now; the batch must not keep it alive
		}
		if b.err != nil {
			return b.err
		}
		d.free = append(d.free, b)
	}
	return nil
}

// finish ends the list once walkList has returned walkErr, and stops the
// decoders in every case. Unless an item stopped the list, the items read
// before the end are delivered first, as the serial path would have done
// before it met the end: a list cut short or malformed after an item that
// fails to decode reports that item's error, and one whose items all
// decode delivers them all and then reports walkErr.
func (d *itemDecoder[T]) finish(walkErr error) error {
	err := d.itemErr
	if err == nil && d.cur != nil { // a batch exists only with an item in it
		err = d.submit()
	}
	for err == nil && len(d.pending) > 0 {
		err = d.drain(true)
	}
	if err == nil {
		err = walkErr
	}
	d.stop()
	return err
}

// stop ends the decoders and waits for them; it may be called again. It is
// deferred too, so that a panic in fn does not leave decoders behind.
func (d *itemDecoder[T]) stop() {
	if d.work == nil {
		return
	}
	if len(d.pending) > 0 { // the list failed: what is left is not wanted
		d.stopped.Store(true)
	}
	close(d.work)
	d.work = nil
	d.wg.Wait()
}
