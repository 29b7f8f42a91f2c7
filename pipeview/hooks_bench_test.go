package pipeview

import (
	"context"
	"testing"
	"time"

	"github.com/kcmlab/kcm/internal/testing/podgen"
	"github.com/kcmlab/kcm/kube/api"
	"github.com/kcmlab/kcm/kube/api/decode"
	"github.com/kcmlab/kcm/store"
	"github.com/kcmlab/kcm/tap"
)

// BenchmarkHooksPerEvent is what one watch event the view wants in full
// (a followed object's, or one of the sample) costs the pipeline's
// reporting sites, apart from the pipeline's own work: the same calls, in
// the same order, as the reflector, the FIFO, the informer's apply, a
// handler, the queue and (one event in ten) a sync make for a realistic
// pod. Events not wanted cost a Want call each instead. Compare with the
// pipeline's cost per event (BenchmarkViewCost's cpu-ns/event).
func BenchmarkHooksPerEvent(b *testing.B) {
	dec := decode.StrippingManagedFields(decode.Raw())
	old, err := dec.Decode(podgen.PodVersion(7, 0, "100"))
	if err != nil {
		b.Fatal(err)
	}
	cur, err := dec.Decode(podgen.PodVersion(7, 1, "101"))
	if err != nil {
		b.Fatal(err)
	}
	ix := store.BuiltinIndexers[*api.RawObject]()
	h := New(Options{})
	h.Tap().SetOn(true)
	tp := h.Tap()
	socket, fifo, st := tp.Point(tap.Socket, "pods", ""), tp.Point(tap.FIFO, "pods", ""), tp.Point(tap.Store, "pods", "")
	handler, enqueue := tp.Point(tap.Handler, "pods", "rs"), tp.Point(tap.Enqueue, "rs", "")
	sync := tp.Point(tap.Sync, "rs", "")
	b.ReportAllocs()
	b.ResetTimer()
	for i := range b.N {
		if !socket.On() {
			b.Fatal("off")
		}
		m := cur.GetObjectMeta()
		socket.Emit(tap.Event{Op: "MODIFIED", Resource: "pods", Key: m.Key(), RV: m.ResourceVersion, UID: m.UID, Bytes: 4000})
		fifo.Emit(tap.Event{Op: "Updated", Resource: "pods", Key: m.Key(), RV: m.ResourceVersion, UID: m.UID, Depth: 1})
		st.Emit(tap.Event{Op: "Updated", Resource: "pods", Key: m.Key(), RV: m.ResourceVersion, UID: m.UID,
			Index: store.IndexChanges(ix, old, true, cur, true)})
		e := tap.Event{Op: tap.OpBegin, Resource: "pods", Key: m.Key(), RV: m.ResourceVersion, UID: m.UID}
		start := handler.Now()
		e.At = start
		handler.Emit(e)
		enqueue.Emit(tap.Event{Op: "Add", Key: "ns/rs", Depth: 1})
		e.At, e.Op = handler.Now(), "OnUpdate"
		e.Took = e.At.Sub(start)
		handler.Emit(e)
		if i%10 == 0 {
			ref := tap.SyncRef{Controller: "rs", Key: "ns/rs", Seq: tp.NextSeq()}
			se := tap.Event{Op: tap.OpBegin, Key: "ns/rs", Sync: ref, At: sync.Now()}
			sync.Emit(se)
			_ = tap.WithSync(context.Background(), ref)
			se.At, se.Op = sync.Now(), "success"
			se.Took = time.Since(se.At)
			sync.Emit(se)
		}
	}
}
