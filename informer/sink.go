package informer

import (
	"github.com/kcmlab/kcm/deltafifo"
	"github.com/kcmlab/kcm/kube"
	"github.com/kcmlab/kcm/reflector"
)

// fifoSink is the reflector's view of the FIFO: objects pass the transform
// on the way in, so the FIFO and the store only ever hold what the cache
// keeps.
type fifoSink[T kube.Object] struct {
	f         *deltafifo.FIFO[T]
	transform func(T) (T, error)
}

func (s fifoSink[T]) prep(obj T) (T, error) {
	if s.transform == nil {
		return obj, nil
	}
	return s.transform(obj)
}

func (s fifoSink[T]) Add(obj T) error {
	obj, err := s.prep(obj)
	if err != nil {
		return err
	}
	return s.f.Add(obj)
}

func (s fifoSink[T]) Update(obj T) error {
	obj, err := s.prep(obj)
	if err != nil {
		return err
	}
	return s.f.Update(obj)
}

func (s fifoSink[T]) Delete(obj T) error {
	obj, err := s.prep(obj)
	if err != nil {
		return err
	}
	return s.f.Delete(obj)
}

func (s fifoSink[T]) StartReplace() reflector.Replacer[T] {
	return &replacer[T]{r: s.f.StartReplace(""), sink: s}
}

// replacer adapts a deltafifo replace to the reflector's Replacer.
type replacer[T kube.Object] struct {
	r    *deltafifo.Replacer[T]
	sink fifoSink[T]
}

func (r *replacer[T]) Add(obj T) error {
	obj, err := r.sink.prep(obj)
	if err != nil {
		return err
	}
	return r.r.Add(obj)
}

func (r *replacer[T]) Finish(string) error { return r.r.Finish() }
func (r *replacer[T]) Abort()              { r.r.Abort() }
