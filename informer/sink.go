package informer

import (
	"errors"
	"fmt"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/kcmlab/kcm/deltafifo"
	"github.com/kcmlab/kcm/internal/promreg"
	"github.com/kcmlab/kcm/kube/api"
	"github.com/kcmlab/kcm/reflector"
	"github.com/kcmlab/kcm/tap"
)

// ErrTransform wraps the error of an Options.Transform that refused an
// object. The reflector backs off and asks for the object again.
var ErrTransform = errors.New("transform failed")

// fifoSink is the reflector's view of the FIFO: objects pass the transform
// on the way in, so the FIFO and the store only ever hold what the cache
// keeps.
type fifoSink[T api.Object] struct {
	f         *deltafifo.FIFO[T]
	transform func(T) (T, error)
	// failures counts the transform's errors; nil without metrics.
	failures prometheus.Counter
	// queued reports each delta queued (nil without a Tap); resource is
	// the informer's resource.
	queued   *tap.Point
	resource string
}

// report tells the tap that obj was queued as a delta of type t.
func (s fifoSink[T]) report(t deltafifo.DeltaType, obj T) {
	m := obj.GetObjectMeta()
	s.queued.Emit(tap.Event{Op: string(t), Resource: s.resource, Key: m.Key(), RV: m.ResourceVersion, UID: m.UID,
		Depth: s.f.Len()})
}

func (s fifoSink[T]) prep(obj T) (T, error) {
	if s.transform == nil {
		return obj, nil
	}
	out, err := s.transform(obj)
	if err != nil {
		if s.failures != nil {
			s.failures.Inc()
		}
		m := obj.GetObjectMeta()
		return out, fmt.Errorf("%w: %s/%s at resourceVersion %s: %w", ErrTransform, m.Namespace, m.Name, m.ResourceVersion, err)
	}
	return out, nil
}

func (s fifoSink[T]) Add(obj T) error {
	obj, err := s.prep(obj)
	if err != nil {
		return err
	}
	if err := s.f.Add(obj); err != nil {
		return err
	}
	s.queuedAs(deltafifo.Added, obj)
	return nil
}

func (s fifoSink[T]) Update(obj T) error {
	obj, err := s.prep(obj)
	if err != nil {
		return err
	}
	if err := s.f.Update(obj); err != nil {
		return err
	}
	s.queuedAs(deltafifo.Updated, obj)
	return nil
}

func (s fifoSink[T]) Delete(obj T) error {
	obj, err := s.prep(obj)
	if err != nil {
		return err
	}
	if err := s.f.Delete(obj); err != nil {
		return err
	}
	s.queuedAs(deltafifo.Deleted, obj)
	return nil
}

// queuedAs reports obj handed to the FIFO as a delta of type t, while
// someone watches. (A Delete of a key the FIFO and the store do not know is
// dropped by the FIFO; it is reported all the same, as what the socket
// delivered.)
func (s fifoSink[T]) queuedAs(t deltafifo.DeltaType, obj T) {
	if s.queued.On() {
		if m := obj.GetObjectMeta(); s.queued.Want(m.Namespace, m.Name) {
			s.report(t, obj)
		}
	}
}

// Bookmark hands the FIFO a watch bookmark's resourceVersion, to reach
// the store in order with the events.
func (s fifoSink[T]) Bookmark(rv string) error { return s.f.Bookmark(rv) }

func (s fifoSink[T]) StartReplace() reflector.Replacer[T] {
	return &replacer[T]{r: s.f.StartReplace(""), sink: s}
}

// replacer adapts a deltafifo replace to the reflector's Replacer.
type replacer[T api.Object] struct {
	r    *deltafifo.Replacer[T]
	sink fifoSink[T]
}

func (r *replacer[T]) Add(obj T) error {
	obj, err := r.sink.prep(obj)
	if err != nil {
		return err
	}
	if err := r.r.Add(obj); err != nil {
		return err
	}
	r.sink.queuedAs(deltafifo.Replaced, obj)
	return nil
}

func (r *replacer[T]) Finish(rv string) error { return r.r.FinishAt(rv) }
func (r *replacer[T]) Abort()                 { r.r.Abort() }

// newTransformErrors returns the informer_transform_errors_total family
// registered with reg, or the identical family an informer registered
// earlier with the same reg (all informers share one). A nil reg means no
// metrics.
func newTransformErrors(reg prometheus.Registerer) (*prometheus.CounterVec, error) {
	if reg == nil {
		return nil, nil
	}
	c := prometheus.NewCounterVec(prometheus.CounterOpts{
		Name: "informer_transform_errors_total",
		Help: "Objects the informer's Transform refused with an error, by informer; each is asked for again after the reflector's backoff.",
	}, []string{"informer"})
	c, err := promreg.Register(reg, c)
	if err != nil {
		return nil, fmt.Errorf("registering informer_transform_errors_total: %w", err)
	}
	return c, nil
}
