package api

import (
	"fmt"
	"reflect"

	"github.com/kcmlab/kcm/kube/internal/jsonx"
)

// DeepCopy returns an independent copy of obj that still remembers the raw
// JSON obj was read from, so rest.Resources.Update of the copy keeps
// unmodelled fields. Cached objects are shared and read-only: copy before
// you modify.
func DeepCopy[T Object](obj T) (T, error) {
	var zero T
	if r, ok := any(obj).(*RawObject); ok && r.IsProto() {
		return any(r.protoCopy()).(T), nil
	}
	data, err := jsonx.Marshal(obj)
	if err != nil {
		return zero, fmt.Errorf("copy %T: %w", obj, err)
	}
	if r, ok := any(obj).(*RawObject); ok {
		c, err := DecodeRawObject(r.Raw())
		if err != nil {
			return zero, err
		}
		return any(c).(T), nil
	}
	out := newLike(obj)
	if err := jsonx.Unmarshal(data, out); err != nil {
		return zero, fmt.Errorf("copy %T: %w", obj, err)
	}
	// The copy remembers where the original came from: its JSON, or what
	// rebuilds that JSON (for decode.Compact's objects, the original object
	// and its remainder).
	out.GetObjectMeta().src = obj.GetObjectMeta().src
	return out, nil
}

// newLike returns a new zero object of the same concrete type as obj.
func newLike[T Object](obj T) T {
	return reflect.New(reflect.TypeOf(obj).Elem()).Interface().(T)
}
