package decode

import (
	"fmt"

	"github.com/kcmlab/kcm/kube/api"
	"github.com/kcmlab/kcm/kube/api/internal/objsrc"
	"github.com/kcmlab/kcm/kube/internal/jsonx"
)

// Codec turns the JSON of one object into a T. The client, the watch
// decoder and the informers take one, so the same code serves typed kinds
// (Typed[api.Pod]()) and any resource at all (Raw()).
type Codec[T api.Object] interface {
	// Decode parses data. The result may keep data (as its raw JSON), so
	// callers hand over ownership of the slice.
	Decode(data []byte) (T, error)
}

// typedCodec decodes into a fresh *S and remembers the raw JSON.
type typedCodec[S any, P api.TypedPtr[S]] struct{}

// Typed returns the codec for a typed kind, e.g. Typed[api.Pod]().
func Typed[S any, P api.TypedPtr[S]]() Codec[P] { return typedCodec[S, P]{} }

// Decode implements Codec.
func (typedCodec[S, P]) Decode(data []byte) (P, error) {
	p := P(new(S))
	if err := jsonx.Unmarshal(data, p); err != nil {
		return nil, fmt.Errorf("%w: %T: %v", api.ErrDecode, p, err)
	}
	p.GetObjectMeta().SetRaw(data)
	return p, nil
}

// rawCodec decodes RawObjects.
type rawCodec struct{}

// Raw returns the codec for api.RawObject: any resource, CRDs included.
func Raw() Codec[*api.RawObject] { return rawCodec{} }

// Decode implements Codec. Only apiVersion, kind and metadata are parsed;
// see decodeRaw.
func (rawCodec) Decode(data []byte) (*api.RawObject, error) { return decodeRaw(data, false) }

// decodeStripped implements stripDecoder: one scan finds metadata, cuts
// managedFields and decodes.
func (rawCodec) decodeStripped(data []byte, borrowed bool) (*api.RawObject, error) {
	o, err := decodeRaw(data, true)
	if err != nil || !borrowed {
		return o, err
	}
	if objsrc.Of(&o.ObjectMeta).Keeps(data) {
		o.SetRaw(append([]byte(nil), o.Raw()...)) // nothing was cut: keep a copy, not the buffer
	}
	return o, nil
}

// wholeObjectDecoder is implemented by the codecs of this package whose
// every successful decode proves that its input is exactly one JSON
// object: its strings end, its brackets balance and nothing follows its
// closing brace — at least by the shallow rules jsonx.Scanner finds the
// end of a value with. See ChecksWholeObject.
type wholeObjectDecoder interface{ checksWholeObject() bool }

// ChecksWholeObject reports whether every successful decode of c proves
// its input to be exactly one JSON object (strings ended, brackets
// balanced, nothing after it). Typed, Raw and Compact codecs do, and
// StrippingManagedFields of one: their decoders read every byte of the
// object, json-iterator included, and refuse bytes after it. A watch
// decoder may then let the codec confirm where an event ends (kube/rest
// frames the apiserver's newline-terminated events that way) instead of
// scanning each event's bytes first. Codecs of other packages never do.
func ChecksWholeObject[T api.Object](c Codec[T]) bool {
	w, ok := c.(wholeObjectDecoder)
	return ok && w.checksWholeObject()
}

func (typedCodec[S, P]) checksWholeObject() bool { return true } // json-iterator's Unmarshal
func (rawCodec) checksWholeObject() bool         { return true } // objectMembersInto, then nothing after it
func (s stripCodec[T]) checksWholeObject() bool  { return ChecksWholeObject(s.inner) }

// BorrowingDecoder is the optional fast path of a Codec, in the way
// io.WriterTo is that of an io.Reader: a codec that can decode bytes it
// does not own — a slice of a read buffer that the caller reuses next —
// copying only what the result keeps. Borrowed uses it when a codec
// has it. A codec that wraps another keeps the inner codec's fast path by
// implementing DecodeBorrowed with Borrowed(inner, data).
type BorrowingDecoder[T api.Object] interface {
	// DecodeBorrowed decodes data, which stays the caller's: the result
	// must not retain it.
	DecodeBorrowed(data []byte) (T, error)
}

// Borrowed decodes data that the caller does not hand over, as list
// and watch decoders do with their read buffers: through c's
// BorrowingDecoder when it has one, else by decoding a copy.
func Borrowed[T api.Object](c Codec[T], data []byte) (T, error) {
	if b, ok := c.(BorrowingDecoder[T]); ok {
		return b.DecodeBorrowed(data)
	}
	return c.Decode(append([]byte(nil), data...))
}

// StrippingManagedFields wraps a codec so decoded objects no longer carry
// metadata.managedFields, which is often half the bytes of an object and
// never needed by a controller. The cut happens on the bytes, before
// decoding, so the raw JSON kept by the object shrinks too.
func StrippingManagedFields[T api.Object](c Codec[T]) Codec[T] { return stripCodec[T]{c} }

type stripCodec[T api.Object] struct{ inner Codec[T] }

// stripDecoder is implemented by a codec that can cut managedFields
// itself while it decodes (the RawObject codec, in a single scan of the
// bytes). borrowed: data stays the caller's, so the result must not keep
// it.
type stripDecoder[T api.Object] interface {
	decodeStripped(data []byte, borrowed bool) (T, error)
}

// Decode implements Codec.
func (s stripCodec[T]) Decode(data []byte) (T, error) {
	if sd, ok := s.inner.(stripDecoder[T]); ok {
		return sd.decodeStripped(data, false)
	}
	cut, err := StripManagedFields(data)
	if err != nil {
		var zero T
		return zero, err
	}
	return s.inner.Decode(cut)
}

// DecodeBorrowed implements BorrowingDecoder. Usually the cut has just
// built a smaller copy without managedFields, which the object can keep:
// only when there was nothing to cut are the bytes copied.
func (s stripCodec[T]) DecodeBorrowed(data []byte) (T, error) {
	if sd, ok := s.inner.(stripDecoder[T]); ok {
		return sd.decodeStripped(data, true)
	}
	cut, err := StripManagedFields(data)
	if err != nil {
		var zero T
		return zero, err
	}
	if len(cut) > 0 && &cut[0] == &data[0] {
		return Borrowed(s.inner, data) // nothing was cut: still the caller's bytes
	}
	return s.inner.Decode(cut)
}
