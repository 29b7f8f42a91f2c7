package informer

import (
	"time"

	"github.com/kcmlab/kcm/deltafifo"
	"github.com/kcmlab/kcm/kube/api"
	"github.com/kcmlab/kcm/processor"
	"github.com/kcmlab/kcm/store"
	"github.com/kcmlab/kcm/tap"
)

// applyBatch applies a popped batch in order, under the processor's lock
// so that a handler added concurrently sees each change exactly once. Its
// runs of object deltas are written with one store Apply each (one index
// publish per run, far cheaper than one per delta); a Bookmark moves the
// store's resourceVersion; a ReplacedAll swaps the whole content at once.
func (i *Informer[T]) applyBatch(batch []deltafifo.Delta[T]) error {
	var start time.Time
	if i.series != nil {
		start = i.clk.Now()
	}
	i.proc.Apply(func(emit func(processor.Notification[T])) {
		for len(batch) > 0 {
			n := 0
			for n < len(batch) && !keyless(&batch[n]) {
				n++
			}
			if n > 0 {
				i.applyObjects(batch[:n], emit)
				batch = batch[n:]
				continue
			}
			switch d := &batch[0]; d.Type {
			case deltafifo.Bookmark:
				i.bookmark(d.Info.ResourceVersion)
				if i.obs != nil {
					i.obs.Applied(*d, false, i.fifo.Len())
				}
			case deltafifo.ReplacedAll:
				i.applyReplacedAll(d.Info, emit)
			}
			batch = batch[1:]
		}
	})
	if i.series != nil {
		i.series.processed(i.clk.Since(start))
	}
	return nil
}

func keyless[T api.Object](d *deltafifo.Delta[T]) bool {
	return d.Type == deltafifo.Bookmark || d.Type == deltafifo.ReplacedAll
}

// applyObjects writes a run of object deltas with one store Apply, moves
// the store's resourceVersion to the run's newest event, then hands the
// handlers the notifications: a handler that hears of an event finds the
// store at least at its resourceVersion.
func (i *Informer[T]) applyObjects(run []deltafifo.Delta[T], emit func(processor.Notification[T])) {
	ops := i.ops[:0]
	for _, d := range run {
		ops = append(ops, store.Op[T]{Delete: d.Type == deltafifo.Deleted, Obj: d.Object, Key: d.Key})
	}
	i.store.Apply(ops)
	if rv := eventRV(run); rv != "" {
		i.bookmark(rv)
	}
	for j, d := range run {
		// A Deleted of a key the store does not hold follows a
		// ReplacedAll that dropped it: nobody holds it, nothing to say.
		if d.Type != deltafifo.Deleted || ops[j].Existed {
			emit(notification(d, &ops[j]))
		}
		if i.obs != nil {
			i.obs.Applied(d, ops[j].Existed, i.fifo.Len())
		}
	}
	if i.stored.On() {
		i.reportApplied(run, ops)
	}
	clear(ops) // do not keep objects alive through the reused buffer
	i.ops = ops[:0]
}

// applyReplacedAll swaps the store's whole content for a relist's (one
// store ReplaceOps: a reader sees the old content or the new, never a
// mixture), sets the store's resourceVersion to the list's, then tells
// the handlers, as client-go's AtomicFIFO does: first a delete
// (finalStateUnknown) for each key the list no longer has, in key order,
// then an update or an add for each listed object, in list order.
func (i *Informer[T]) applyReplacedAll(all *deltafifo.Info[T], emit func(processor.Notification[T])) {
	ops := i.ops[:0]
	for _, obj := range all.Objects {
		ops = append(ops, store.Op[T]{Obj: obj})
	}
	removed := i.store.ReplaceOps(ops, i.removed[:0])
	i.bookmark(all.ResourceVersion)
	depth := i.fifo.Len()
	for j := range removed {
		op := &removed[j]
		d := deltafifo.Delta[T]{Type: deltafifo.Deleted, Object: op.Old, Key: op.Key, FinalStateUnknown: true}
		emit(notification(d, op))
		if i.obs != nil {
			i.obs.Applied(d, true, depth)
		}
	}
	for j := range ops {
		op := &ops[j]
		d := deltafifo.Delta[T]{Type: deltafifo.Replaced, Object: op.Obj, Key: op.Key}
		emit(notification(d, op))
		if i.obs != nil {
			i.obs.Applied(d, op.Existed, depth)
		}
	}
	if i.stored.On() {
		i.reportReplacedAll(removed, ops)
	}
	clear(ops)
	clear(removed)
	i.ops, i.removed = ops[:0], removed[:0]
}

// bookmark records rv as the store's resourceVersion, and in the
// informer_store_resource_version gauge.
func (i *Informer[T]) bookmark(rv string) {
	i.store.Bookmark(rv)
	if i.series != nil {
		i.series.storeResourceVersion(rv)
	}
}

// eventRV is the resourceVersion of a run's newest watch event (Added,
// Updated, or a Deleted that is not a relist's tombstone), or "": the
// items of a streamed list come in no resourceVersion order, and a
// tombstone or a Sync carries an older state. The list's own
// resourceVersion comes after them, as a Bookmark.
func eventRV[T api.Object](run []deltafifo.Delta[T]) string {
	for j := len(run) - 1; j >= 0; j-- {
		switch d := &run[j]; d.Type {
		case deltafifo.Added, deltafifo.Updated:
			return d.Object.GetObjectMeta().ResourceVersion
		case deltafifo.Deleted:
			if !d.FinalStateUnknown {
				return d.Object.GetObjectMeta().ResourceVersion
			}
		}
	}
	return ""
}

// reportApplied reports a run written to the store: each delta the view
// wants, with the index entries its write moved.
func (i *Informer[T]) reportApplied(run []deltafifo.Delta[T], ops []store.Op[T]) {
	at, depth := i.stored.Now(), i.fifo.Len()
	for j, d := range run {
		i.reportOne(at, depth, d, &ops[j])
	}
}

// reportReplacedAll reports a relist swapped in: its removed keys as
// tombstones, then its objects.
func (i *Informer[T]) reportReplacedAll(removed, ops []store.Op[T]) {
	at, depth := i.stored.Now(), i.fifo.Len()
	for j := range removed {
		op := &removed[j]
		i.reportOne(at, depth, deltafifo.Delta[T]{Type: deltafifo.Deleted, Object: op.Old, Key: op.Key, FinalStateUnknown: true}, op)
	}
	for j := range ops {
		op := &ops[j]
		i.reportOne(at, depth, deltafifo.Delta[T]{Type: deltafifo.Replaced, Object: op.Obj, Key: op.Key}, op)
	}
}

func (i *Informer[T]) reportOne(at time.Time, depth int, d deltafifo.Delta[T], op *store.Op[T]) {
	m := d.Object.GetObjectMeta()
	if !i.stored.Want(m.Namespace, m.Name) {
		return
	}
	e := tap.Event{At: at, Op: string(d.Type), Resource: tap.ResourceOf(i.name), Key: d.Key, Depth: depth}
	e.RV, e.UID = m.ResourceVersion, m.UID
	if d.FinalStateUnknown {
		e.Op += " (final state unknown)"
	}
	e.Index = store.IndexChanges(i.indexers, op.Old, op.Existed, d.Object, d.Type != deltafifo.Deleted)
	i.stored.Emit(e)
}

// notification is what handlers are told about delta d, given what the
// store held before it (op.Old, op.Existed).
func notification[T api.Object](d deltafifo.Delta[T], op *store.Op[T]) processor.Notification[T] {
	switch {
	case d.Type == deltafifo.Deleted:
		obj := d.Object
		if op.Existed && d.FinalStateUnknown {
			obj = op.Old // the cache's last state is the newest known one
		}
		return processor.DeleteNotification(obj, d.FinalStateUnknown)
	case d.Type == deltafifo.Sync:
		return processor.SyncNotification(op.Old, d.Object)
	case op.Existed:
		return processor.UpdateNotification(op.Old, d.Object)
	}
	return processor.AddNotification(d.Object, d.InitialList)
}
