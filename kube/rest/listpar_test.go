package rest

import (
	"errors"
	"fmt"
	"io"
	"strings"
	"testing"
	"testing/iotest"

	"github.com/kcmlab/kcm/kube/api"
	"github.com/kcmlab/kcm/kube/api/decode"
)

// parList is a list body of n ConfigMaps named item-00000…, the item at bad
// (if 0 ≤ bad < n) not an object the codec accepts.
func parList(n, bad int) string {
	var b strings.Builder
	b.WriteString(`{"kind":"ConfigMapList","metadata":{"resourceVersion":"77"},"items":[`)
	for i := range n {
		if i > 0 {
			b.WriteByte(',')
		}
		if i == bad {
			b.WriteString(`{"metadata":{"name":7}}`)
			continue
		}
		fmt.Fprintf(&b, `{"metadata":{"name":"item-%05d","namespace":"ns"},"data":{"k":"%d"}}`, i, i)
	}
	b.WriteString(`]}`)
	return b.String()
}

// panicky is a codec that panics on the item named boom.
type panicky struct{ decode.Codec[*api.RawObject] }

func (p panicky) Decode(data []byte) (*api.RawObject, error) {
	if strings.Contains(string(data), `"boom"`) {
		panic("decoder bug")
	}
	return p.Codec.Decode(data)
}

// decodeNames runs decodeListWith with decoders goroutines and returns the
// names fn saw, in order.
func decodeNames(t *testing.T, body string, codec decode.Codec[*api.RawObject], decoders int, fn func(i int) error) ([]string, ListMeta, error) {
	t.Helper()
	var names []string
	meta, err := decodeListWith(strings.NewReader(body), DefaultMaxObjectBytes, newItemDecoder(codec, func(o *api.RawObject) error {
		names = append(names, o.Name)
		if fn != nil {
			return fn(len(names) - 1)
		}
		return nil
	}, decoders))
	return names, meta, err
}

// inOrder reports the first position where names is not item-00000… in
// order, or -1.
func inOrder(names []string) int {
	for i, n := range names {
		if n != fmt.Sprintf("item-%05d", i) {
			return i
		}
	}
	return -1
}

// TestParallelListDecodeKeepsTheSerialContract checks listpar.go's rules:
// items reach fn in the list's order, a bad
// item or fn's error stops the list at the same item as the serial path,
// a decoder panic is an error, and every decoder has returned when the
// list does (the package's goleak check).
func TestParallelListDecodeKeepsTheSerialContract(t *testing.T) {
	long := parallelAfter + 7*batchItems + 13 // decoders, full batches and a partial one
	for _, decoders := range []int{1, 2, 4} {
		t.Run(fmt.Sprint(decoders, " decoders"), func(t *testing.T) {
			names, meta, err := decodeNames(t, parList(long, -1), decode.Raw(), decoders, nil)
			if err != nil || len(names) != long || meta.ResourceVersion != "77" {
				t.Fatalf("%d items, rv %q, %v; want %d items, rv 77", len(names), meta.ResourceVersion, err, long)
			}
			if i := inOrder(names); i >= 0 {
				t.Fatalf("item %d is %q: out of order", i, names[i])
			}
			// A bad item in a full batch, and in the last partial one.
			for _, bad := range []int{parallelAfter + 3*batchItems + 5, long - 2} {
				names, _, err := decodeNames(t, parList(long, bad), decode.Raw(), decoders, nil)
				if !errors.Is(err, api.ErrDecode) || len(names) != bad || inOrder(names) >= 0 {
					t.Errorf("bad item %d: fn saw %d items (in order: %v), err %v; want %d, ErrDecode", bad, len(names), inOrder(names) < 0, err, bad)
				}
			}
			// Cut short: the items read before the cut are all delivered,
			// and a bad item before the cut is the error, as serially.
			cut := parList(long, -1)[:len(parList(long, -1))-500]
			serial, _, serr := decodeNames(t, cut, decode.Raw(), 1, nil)
			names, _, err = decodeNames(t, cut, decode.Raw(), decoders, nil)
			if !errors.Is(err, io.ErrUnexpectedEOF) || len(names) != len(serial) || inOrder(names) >= 0 {
				t.Errorf("list cut short: fn saw %d items, err %v; serially %d items, err %v", len(names), err, len(serial), serr)
			}
			badThenCut := parList(long, long-20)[:len(parList(long, long-20))-500]
			names, _, err = decodeNames(t, badThenCut, decode.Raw(), decoders, nil)
			if !errors.Is(err, api.ErrDecode) || len(names) != long-20 {
				t.Errorf("bad item %d, then cut short: fn saw %d items, err %v; want %d items, ErrDecode", long-20, len(names), err, long-20)
			}
			stop := errors.New("handler says stop")
			at := parallelAfter + 2*batchItems + 9
			names, _, err = decodeNames(t, parList(long, -1), decode.Raw(), decoders, func(i int) error {
				if i == at {
					return stop
				}
				if i > at {
					t.Errorf("fn called for item %d after it returned an error", i)
				}
				return nil
			})
			if !errors.Is(err, stop) || len(names) != at+1 {
				t.Errorf("fn error at %d: fn saw %d items, err %v; want %d, %v", at, len(names), err, at+1, stop)
			}
			body := strings.Replace(parList(long, -1), fmt.Sprintf("item-%05d", at), "boom", 1)
			names, _, err = decodeNames(t, body, panicky{decode.Raw()}, decoders, nil)
			if !errors.Is(err, api.ErrDecode) || !strings.Contains(fmt.Sprint(err), "decoder bug") || len(names) != at {
				t.Errorf("decoder panic at %d: fn saw %d items, err %v; want %d, ErrDecode with the panic", at, len(names), err, at)
			}
		})
	}
}

// TestParallelListDecodeStartsOnlyForLongLists: a list of parallelAfter
// items or fewer is decoded without a goroutine; a longer one starts the
// decoders.
func TestParallelListDecodeStartsOnlyForLongLists(t *testing.T) {
	for n, want := range map[int]int{10: 0, parallelAfter: 0, parallelAfter + 1: 3} {
		d := newItemDecoder(decode.Codec[*api.RawObject](decode.Raw()), func(*api.RawObject) error { return nil }, 3)
		fr := newFrameReader(strings.NewReader(parList(n, -1)), listBufferSize)
		if err := d.finish(walkList(fr, &ListMeta{}, d.item)); err != nil {
			t.Fatal(err)
		}
		if d.launched != want {
			t.Errorf("%d items: %d decoders started, want %d", n, d.launched, want)
		}
	}
}

// TestParallelListDecodeOneByteReads: the batches copy each item out of the
// read buffer, which the next read reuses.
func TestParallelListDecodeOneByteReads(t *testing.T) {
	long := parallelAfter + 3*batchItems + 1
	var names []string
	d := newItemDecoder(decode.Codec[*api.RawObject](decode.Raw()), func(o *api.RawObject) error { names = append(names, o.Name); return nil }, 3)
	_, err := decodeListWith(iotest.OneByteReader(strings.NewReader(parList(long, -1))), DefaultMaxObjectBytes, d)
	if err != nil || len(names) != long || inOrder(names) >= 0 {
		t.Fatalf("%d items (first out of order: %d), %v; want %d in order", len(names), inOrder(names), err, long)
	}
}
