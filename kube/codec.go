package kube

import (
	"fmt"

	jsoniter "github.com/json-iterator/go"
)

// jsonx is the one JSON configuration kcm uses: json-iterator, behaving like
// encoding/json (tags, Marshaler methods, escaping, sorted map keys), but
// without reflection costs on the hot paths, and matching object keys to
// struct fields the way kube-apiserver does:
//
//   - CaseSensitive: "Metadata" is not "metadata" (Kubernetes decodes
//     case-sensitively; encoding/json would fold case). It also spares a
//     strings.ToLower per unmatched key.
//   - ObjectFieldMustBeSimpleString: struct field names are looked up in
//     the read buffer instead of being copied into a new string first —
//     one allocation less per key of every struct with more than ten
//     fields (ObjectMeta, PodSpec, Container, ...). Kubernetes field names
//     never contain escapes.
var jsonx = jsoniter.Config{EscapeHTML: true, SortMapKeys: true, ValidateJsonRawMessage: true,
	CaseSensitive: true, ObjectFieldMustBeSimpleString: true}.Froze()

// jsonNumbers decodes numbers into json.Number, so that merging documents
// never rounds an int64 through float64.
var jsonNumbers = jsoniter.Config{EscapeHTML: true, SortMapKeys: true, ValidateJsonRawMessage: true, UseNumber: true}.Froze()

// Codec turns the JSON of one object into a T. The client, the watch
// decoder and the informers take one, so the same code serves typed kinds
// (Typed[Pod]()) and any resource at all (Raw()).
type Codec[T Object] interface {
	// Decode parses data. The result may keep data (as its raw JSON), so
	// callers hand over ownership of the slice.
	Decode(data []byte) (T, error)
}

// TypedPtr is the constraint satisfied by *S for each typed kind S.
type TypedPtr[S any] interface {
	*S
	Object
}

// typedCodec decodes into a fresh *S and remembers the raw JSON.
type typedCodec[S any, P TypedPtr[S]] struct{}

// Typed returns the codec for a typed kind, e.g. Typed[Pod]().
func Typed[S any, P TypedPtr[S]]() Codec[P] { return typedCodec[S, P]{} }

// Decode implements Codec.
func (typedCodec[S, P]) Decode(data []byte) (P, error) {
	p := P(new(S))
	if err := jsonx.Unmarshal(data, p); err != nil {
		return nil, fmt.Errorf("%w: %T: %v", ErrDecode, p, err)
	}
	p.GetObjectMeta().SetRaw(data)
	return p, nil
}

// rawCodec decodes RawObjects.
type rawCodec struct{}

// Raw returns the codec for RawObject: any resource, CRDs included.
func Raw() Codec[*RawObject] { return rawCodec{} }

// Decode implements Codec. Only apiVersion, kind and metadata are parsed;
// see decodeRaw.
func (rawCodec) Decode(data []byte) (*RawObject, error) { return decodeRaw(data, false) }

// StrippingManagedFields wraps a codec so decoded objects no longer carry
// metadata.managedFields, which is often half the bytes of an object and
// never needed by a controller. The cut happens on the bytes, before
// decoding, so the raw JSON kept by the object shrinks too.
func StrippingManagedFields[T Object](c Codec[T]) Codec[T] { return stripCodec[T]{c} }

type stripCodec[T Object] struct{ inner Codec[T] }

// Decode implements Codec.
func (s stripCodec[T]) Decode(data []byte) (T, error) {
	if _, ok := any(s.inner).(rawCodec); ok {
		// One scan finds metadata, cuts managedFields and decodes.
		o, err := decodeRaw(data, true)
		return any(o).(T), err
	}
	cut, err := StripManagedFields(data)
	if err != nil {
		var zero T
		return zero, err
	}
	return s.inner.Decode(cut)
}

// decodeBorrowed decodes data that the caller does not hand over (a slice
// of a read buffer, about to be reused). The stripping RawObject codec
// copies only the bytes it keeps — usually it has just built a smaller copy
// without managedFields — instead of the caller copying every object first.
func decodeBorrowed[T Object](c Codec[T], data []byte) (T, error) {
	s, ok := c.(stripCodec[T])
	if !ok {
		return c.Decode(append([]byte(nil), data...))
	}
	if _, ok := any(s.inner).(rawCodec); !ok {
		return c.Decode(append([]byte(nil), data...))
	}
	o, err := decodeRaw(data, true)
	if err != nil {
		var zero T
		return zero, err
	}
	if r := o.Raw(); len(r) > 0 && &r[0] == &data[0] {
		o.SetRaw(append([]byte(nil), r...)) // nothing was cut: keep a copy, not the buffer
	}
	return any(o).(T), nil
}

// DeepCopy returns an independent copy of obj that still remembers the raw
// JSON obj was read from, so Update of the copy keeps unmodelled fields.
// Cached objects are shared and read-only: copy before you modify.
func DeepCopy[T Object](obj T) (T, error) {
	var zero T
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
	out.GetObjectMeta().SetRaw(obj.GetObjectMeta().Raw())
	return out, nil
}
