package decode_test

import (
	"bytes"
	"testing"

	"github.com/kcmlab/kcm/kube/api"
	"github.com/kcmlab/kcm/kube/api/decode"
)

// A pod as the apiserver sends it, with and without managedFields.
const (
	borrowPodMF   = `{"apiVersion":"v1","kind":"Pod","metadata":{"name":"web-0","namespace":"default","managedFields":[{"manager":"kubelet","operation":"Update","fieldsV1":{"f:status":{}}}],"labels":{"app":"web"}},"spec":{"containers":[{"name":"web","image":"nginx"}]}}`
	borrowPodNoMF = `{"apiVersion":"v1","kind":"Pod","metadata":{"name":"web-0","namespace":"default","labels":{"app":"web"}},"spec":{"containers":[{"name":"web","image":"nginx"}]}}`
)

// countingCodec wraps a codec the way code outside package decode would (to
// count decodes, say) and keeps the inner codec's fast path by
// implementing BorrowingDecoder with decode.Borrowed.
type countingCodec[T api.Object] struct {
	inner             decode.Codec[T]
	decodes, borrowed int
}

func (c *countingCodec[T]) Decode(data []byte) (T, error) {
	c.decodes++
	return c.inner.Decode(data)
}

func (c *countingCodec[T]) DecodeBorrowed(data []byte) (T, error) {
	c.borrowed++
	return decode.Borrowed(c.inner, data)
}

// plainCodec wraps a codec without the optional interface, so
// Borrowed must hand it a copy.
type plainCodec[T api.Object] struct {
	inner decode.Codec[T]
	got   []byte // the last slice Decode was given
}

func (c *plainCodec[T]) Decode(data []byte) (T, error) {
	c.got = data
	return c.inner.Decode(data)
}

// TestBorrowedKeepsNothingBorrowed: whatever the codec, an object
// decoded from a borrowed buffer is unchanged when the buffer is reused,
// and equals what Decode makes of its own copy.
func TestBorrowedKeepsNothingBorrowed(t *testing.T) {
	raws := map[string]func() decode.Codec[*api.RawObject]{
		"Raw":                         decode.Raw,
		"StrippingManagedFields(Raw)": func() decode.Codec[*api.RawObject] { return decode.StrippingManagedFields(decode.Raw()) },
		"wrapper(Stripping(Raw))": func() decode.Codec[*api.RawObject] {
			return &countingCodec[*api.RawObject]{inner: decode.StrippingManagedFields(decode.Raw())}
		},
		"plain wrapper(Stripping(Raw))": func() decode.Codec[*api.RawObject] {
			return &plainCodec[*api.RawObject]{inner: decode.StrippingManagedFields(decode.Raw())}
		},
	}
	typed := map[string]func() decode.Codec[*api.Pod]{
		"Typed":                         decode.Typed[api.Pod],
		"StrippingManagedFields(Typed)": func() decode.Codec[*api.Pod] { return decode.StrippingManagedFields(decode.Typed[api.Pod]()) },
		"wrapper(Stripping(Typed))": func() decode.Codec[*api.Pod] {
			return &countingCodec[*api.Pod]{inner: decode.StrippingManagedFields(decode.Typed[api.Pod]())}
		},
	}
	for _, in := range []string{borrowPodMF, borrowPodNoMF} {
		for name, mk := range raws {
			checkBorrowed(t, name, mk(), in)
		}
		for name, mk := range typed {
			checkBorrowed(t, name, mk(), in)
		}
	}
}

func checkBorrowed[T api.Object](t *testing.T, name string, c decode.Codec[T], in string) {
	t.Helper()
	buf := []byte(in)
	got, err := decode.Borrowed(c, buf)
	if err != nil {
		t.Fatalf("%s: %v", name, err)
	}
	want, err := c.Decode([]byte(in))
	if err != nil {
		t.Fatalf("%s: %v", name, err)
	}
	if string(buf) != in {
		t.Fatalf("%s: the borrowed buffer was written to", name)
	}
	copy(buf, bytes.Repeat([]byte{'x'}, len(buf))) // the caller reuses its buffer
	if g, w := got.GetObjectMeta().Raw(), want.GetObjectMeta().Raw(); !bytes.Equal(g, w) || got.GetObjectMeta().Name != "web-0" {
		t.Fatalf("%s: after the buffer was reused the object holds %q, want %q", name, g, w)
	}
}

// TestBorrowedUsesFastPath: the stripping codecs and a wrapper that
// implements BorrowingDecoder skip the copy a plain wrapper costs; the
// plain wrapper gets a copy, never the borrowed buffer.
func TestBorrowedUsesFastPath(t *testing.T) {
	in := []byte(borrowPodMF)
	wrapper := &countingCodec[*api.RawObject]{inner: decode.StrippingManagedFields(decode.Raw())}
	if _, err := decode.Borrowed[*api.RawObject](wrapper, in); err != nil {
		t.Fatal(err)
	}
	if wrapper.borrowed != 1 || wrapper.decodes != 0 {
		t.Fatalf("wrapper: %d borrowed, %d plain decodes; want the borrowed path only", wrapper.borrowed, wrapper.decodes)
	}
	plain := &plainCodec[*api.RawObject]{inner: decode.StrippingManagedFields(decode.Raw())}
	if _, err := decode.Borrowed[*api.RawObject](plain, in); err != nil {
		t.Fatal(err)
	}
	if &plain.got[0] == &in[0] {
		t.Fatal("a codec without DecodeBorrowed was handed the borrowed buffer")
	}

	allocs := func(c decode.Codec[*api.RawObject]) float64 {
		return testing.AllocsPerRun(20, func() { _, _ = decode.Borrowed(c, in) })
	}
	fast, wrapped, copied := allocs(decode.StrippingManagedFields(decode.Raw())), allocs(wrapper), allocs(plain)
	if wrapped != fast || copied != fast+1 {
		t.Fatalf("allocations: stripping codec %v, wrapper %v, plain wrapper %v; want the plain wrapper alone to pay one copy", fast, wrapped, copied)
	}
	typedAllocs := func(c decode.Codec[*api.Pod]) float64 {
		return testing.AllocsPerRun(20, func() { _, _ = decode.Borrowed(c, in) })
	}
	typedFast := typedAllocs(decode.StrippingManagedFields(decode.Typed[api.Pod]()))
	typedCopied := typedAllocs(&plainCodec[*api.Pod]{inner: decode.StrippingManagedFields(decode.Typed[api.Pod]())})
	if typedCopied != typedFast+1 {
		t.Fatalf("typed allocations: stripping codec %v, plain wrapper %v; want the cut to be the only copy", typedFast, typedCopied)
	}
}
