package objsrc

import "unsafe"

// Source is where an object's JSON comes from: see the package comment.
type Source struct {
	ptr unsafe.Pointer // JSON: its first byte; rebuilt: what rb rebuilds
	rb  *Rebuilder     // non-nil: the rebuilt form
	n   int            // JSON: its length
}

// A Source is exactly as large as a []byte (a compile-time check: any
// other size makes the index out of range).
var _ = [1]struct{}{}[unsafe.Sizeof(Source{})-unsafe.Sizeof([]byte(nil))]

// A Rebuilder turns the pointer of a rebuilt Source back into the JSON
// the object was decoded from: fn(ctx, ptr). Decoders keep one per kind
// of pointer (one in each remainder, for decode.Compact's objects; one
// that every family member's delta shares), name it by its address, and
// compare addresses to tell the forms apart. Kept inside what ctx points
// to, it costs no allocation of its own.
type Rebuilder struct {
	fn  func(ctx, ptr unsafe.Pointer) ([]byte, error)
	ctx unsafe.Pointer
}

// MakeRebuilder returns a Rebuilder that rebuilds with fn(ctx, ptr). fn
// should be a function, not a closure, so that a Rebuilder kept inside
// what ctx points to is all there is to allocate.
func MakeRebuilder(fn func(ctx, ptr unsafe.Pointer) ([]byte, error), ctx unsafe.Pointer) Rebuilder {
	return Rebuilder{fn: fn, ctx: ctx}
}

// emptyJSON is what ptr points to for an empty, non-nil JSON slice:
// unsafe.SliceData does not promise a pointer into an allocation then.
var emptyJSON byte

// JSON returns the JSON form holding b (none for nil). b is kept, not
// copied.
func JSON(b []byte) Source {
	switch {
	case b == nil:
		return Source{}
	case len(b) == 0:
		return Source{ptr: unsafe.Pointer(&emptyJSON)}
	}
	return Source{ptr: unsafe.Pointer(unsafe.SliceData(b)), n: len(b)}
}

// Rebuilt returns the rebuilt form: rb rebuilds the JSON from ptr, which
// must never change.
func Rebuilt(ptr unsafe.Pointer, rb *Rebuilder) Source { return Source{ptr: ptr, rb: rb} }

// protoForm marks the protobuf form: its address is the rb of every
// protobuf Source, whose ptr and n then hold the message.
var protoForm Rebuilder

// protoRebuilt is the n of a rebuilt Source whose Rebuilder rebuilds a
// protobuf message, not JSON (ProtoRebuilt): a rebuilt form's n is
// otherwise unused.
const protoRebuilt = -1

// ProtoRebuilt returns the rebuilt protobuf form: rb rebuilds the
// object's protobuf message (no envelope) from ptr, which must never
// change — a RawObject of a cache kept as a delta against its family's
// base message.
func ProtoRebuilt(ptr unsafe.Pointer, rb *Rebuilder) Source {
	return Source{ptr: ptr, rb: rb, n: protoRebuilt}
}

// Proto returns the protobuf form holding msg, an object's protobuf
// message without the envelope (none for nil). msg is kept, not copied.
func Proto(msg []byte) Source {
	if msg == nil {
		return Source{}
	}
	s := JSON(msg)
	s.rb = &protoForm
	return s
}

// Proto returns the message of a protobuf form, rebuilt for the rebuilt
// one; nil for the other forms.
func (s Source) Proto() ([]byte, error) {
	switch {
	case s.rb == &protoForm && s.n == 0:
		return []byte{}, nil
	case s.rb == &protoForm:
		return unsafe.Slice((*byte)(s.ptr), s.n), nil
	case s.rb != nil && s.n == protoRebuilt:
		return s.rb.fn(s.rb.ctx, s.ptr)
	}
	return nil, nil
}

// IsProto reports whether s is a protobuf form (kept or rebuilt).
func (s Source) IsProto() bool { return s.rb == &protoForm || s.rb != nil && s.n == protoRebuilt }

// JSON returns the JSON as read: the bytes kept, or the rebuilt form
// rebuilt; nil when there is no source or when the source is protobuf
// (see Proto).
func (s Source) JSON() ([]byte, error) {
	switch {
	case s.IsProto():
		return nil, nil
	case s.rb != nil:
		return s.rb.fn(s.rb.ctx, s.ptr)
	case s.ptr == nil:
		return nil, nil
	}
	return unsafe.Slice((*byte)(s.ptr), s.n), nil
}

// Keeps reports whether s is the JSON form holding b's bytes.
func (s Source) Keeps(b []byte) bool {
	return s.rb == nil && s.n > 0 && len(b) > 0 && s.ptr == unsafe.Pointer(unsafe.SliceData(b))
}

// Rebuilder returns the Rebuilder of the rebuilt form and the pointer it
// rebuilds from; nil for the other forms.
func (s Source) Rebuilder() (*Rebuilder, unsafe.Pointer) {
	if s.rb == nil || s.IsProto() {
		return nil, nil
	}
	return s.rb, s.ptr
}

// Of returns the Source field of meta, an *api.ObjectMeta. Package api
// sets it when it is initialised (see the package comment); it panics
// for any other type.
var Of func(meta any) *Source
