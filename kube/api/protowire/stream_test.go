package protowire_test

import (
	"bytes"
	"errors"
	"io"
	"reflect"
	"testing"
	"testing/iotest"

	"github.com/kcmlab/kcm/kube/api/protowire"
)

// readList collects what ReadList hands out.
func readList(r io.Reader, max int) (typ [2]string, items [][]byte, lm protowire.ListMeta, err error) {
	lm, err = protowire.ReadList(r, max, func(v, k string) error {
		typ = [2]string{v, k}
		return nil
	}, func(msg []byte) error {
		items = append(items, bytes.Clone(msg))
		return nil
	})
	return typ, items, lm, err
}

// TestReadListMatchesSplitList: streaming the PodList upstream wrote gives
// the type, ListMeta and items SplitList cuts from the whole body, however
// the reads cut the bytes (one byte at a time, or halves).
func TestReadListMatchesSplitList(t *testing.T) {
	body := golden(t, "podlist.pb")
	u, err := protowire.Unwrap(body)
	if err != nil {
		t.Fatal(err)
	}
	want, err := protowire.SplitList(u.Raw)
	if err != nil {
		t.Fatal(err)
	}
	for name, r := range map[string]io.Reader{
		"whole":    bytes.NewReader(body),
		"one byte": iotest.OneByteReader(bytes.NewReader(body)),
		"halves":   iotest.HalfReader(bytes.NewReader(body)),
	} {
		typ, items, lm, err := readList(r, 0)
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		if typ != [2]string{"v1", "PodList"} {
			t.Errorf("%s: type %q", name, typ)
		}
		if !reflect.DeepEqual(lm, want.ListMeta) {
			t.Errorf("%s: ListMeta %+v, want %+v", name, lm, want.ListMeta)
		}
		if !reflect.DeepEqual(items, want.Items) {
			t.Errorf("%s: %d items differ from SplitList's %d", name, len(items), len(want.Items))
		}
	}
}

// envelope is an enveloped list of the given list message.
func envelope(list []byte) []byte { return protowire.Wrap(nil, "v1", "PodList", list) }

// TestReadListRules: what protobuf allows is read, what is malformed or
// over the limit is an error with its sentinel, and the caller's errors
// come back as they were.
func TestReadListRules(t *testing.T) {
	item := object(pw(nil).str(1, "a"))
	list := pw(nil).msg(1, pw(nil).str(2, "7")).msg(2, item).msg(2, item)
	good := envelope(list)
	t.Run("unknown fields and groups are skipped", func(t *testing.T) {
		odd := pw(nil).uint(9, 1).msg(1, pw(nil).str(2, "7")).append(0x5b, 0x08, 0x01, 0x5c). // group 11 {1: 1}
													msg(2, item).append(0x7d, 1, 2, 3, 4).msg(2, item).append(0x79, 1, 2, 3, 4, 5, 6, 7, 8)
		body := append(protowire.Wrap(nil, "v1", "PodList", odd), pw(nil).uint(7, 3)...)
		_, items, lm, err := readList(bytes.NewReader(body), 0)
		if err != nil || len(items) != 2 || lm.ResourceVersion != "7" {
			t.Fatalf("%d items, %+v, %v", len(items), lm, err)
		}
	})
	t.Run("an item over the limit", func(t *testing.T) {
		_, items, _, err := readList(bytes.NewReader(good), len(item)-1)
		if !errors.Is(err, protowire.ErrItemSize) || len(items) != 0 {
			t.Fatalf("%d items, %v, want ErrItemSize", len(items), err)
		}
		if _, _, _, err := readList(bytes.NewReader(good), len(item)); err != nil {
			t.Fatalf("at the limit: %v", err)
		}
	})
	t.Run("a huge announced length allocates nothing", func(t *testing.T) {
		body := envelope(pw(nil).append(0x12, 0xff, 0xff, 0xff, 0x0f)) // item of 4 GiB, no bytes
		if _, _, _, err := readList(bytes.NewReader(body), 0); !errors.Is(err, protowire.ErrItemSize) {
			t.Fatalf("%v, want ErrItemSize", err)
		}
		body = envelope(pw(nil).append(0x12, 0xff, 0xff, 0x3f)) // 1 MiB announced, none sent
		if _, _, _, err := readList(bytes.NewReader(body), 0); !errors.Is(err, protowire.ErrTruncated) {
			t.Fatalf("%v, want ErrTruncated", err)
		}
		// A raw that announces more than arrives ends in io.ErrUnexpectedEOF.
		body = append(protowire.Magic[:], 0x12, 0xff, 0xff, 0x3f, 0x12, 0xfb, 0xff, 0x3f, 1, 2, 3)
		if _, _, _, err := readList(bytes.NewReader(body), 0); !errors.Is(err, protowire.ErrTruncated) || !errors.Is(err, io.ErrUnexpectedEOF) {
			t.Fatalf("%v, want ErrTruncated and io.ErrUnexpectedEOF", err)
		}
	})
	t.Run("every cut is truncated", func(t *testing.T) {
		for n := range len(good) {
			_, _, _, err := readList(bytes.NewReader(good[:n]), 0)
			if n == 0 || n < len(protowire.Magic) {
				if !errors.Is(err, protowire.ErrMalformed) {
					t.Fatalf("cut at %d: %v", n, err)
				}
				continue
			}
			// Cut between the envelope's fields the list is only shorter;
			// inside raw it is truncated.
			if err != nil && !errors.Is(err, protowire.ErrTruncated) {
				t.Fatalf("cut at %d: %v, want ErrTruncated", n, err)
			}
			if err == nil && n > len(good)-len(list) {
				t.Fatalf("cut at %d inside raw: no error", n)
			}
		}
	})
	t.Run("malformed", func(t *testing.T) {
		for name, c := range map[string]struct {
			body []byte
			want error
		}{
			"no magic":              {[]byte("k8s\x01"), protowire.ErrMagic},
			"two lists":             {append(bytes.Clone(good), pw(nil).msg(2, list)...), protowire.ErrTwoLists},
			"item as varint":        {envelope(pw(nil).uint(2, 5)), protowire.ErrFieldType},
			"raw as varint":         {append(protowire.Magic[:], pw(nil).uint(2, 1)...), protowire.ErrFieldType},
			"field zero":            {envelope(pw{0x00, 0x01}), protowire.ErrFieldNumber},
			"end group alone":       {envelope(pw{0x0c}), protowire.ErrWireType},
			"wire type 7":           {envelope(pw{0x0f}), protowire.ErrWireType},
			"varint overflow":       {envelope(pw{0x48, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x7f}), protowire.ErrOverflow},
			"item crosses raw":      {append(protowire.Magic[:], pw(nil).msg(1, pw(nil).str(2, "Pod")).append(0x12, 0x02, 0x12, 0x05, 1, 2, 3, 4, 5)...), protowire.ErrTruncated},
			"deep groups":           {envelope(bytes.Repeat([]byte{0x5b}, protowire.MaxGroupDepth+1)), protowire.ErrDepth},
			"content encoding gzip": {append(bytes.Clone(good), pw(nil).str(3, "gzip")...), protowire.ErrContent},
		} {
			_, _, _, err := readList(bytes.NewReader(c.body), 0)
			if !errors.Is(err, c.want) {
				t.Errorf("%s: %v, want %v", name, err, c.want)
			}
		}
	})
	t.Run("the caller's errors stop the read", func(t *testing.T) {
		stop := errors.New("stop")
		n := 0
		_, err := protowire.ReadList(bytes.NewReader(good), 0, func(string, string) error { return nil },
			func([]byte) error { n++; return stop })
		if err != stop || n != 1 {
			t.Fatalf("%v after %d items, want stop after 1", err, n)
		}
		_, err = protowire.ReadList(bytes.NewReader(good), 0, func(string, string) error { return stop },
			func([]byte) error { t.Fatal("item after onType failed"); return nil })
		if err != stop {
			t.Fatalf("%v, want stop", err)
		}
	})
	t.Run("the reader's errors come back", func(t *testing.T) {
		boom := errors.New("connection reset")
		_, _, _, err := readList(io.MultiReader(bytes.NewReader(good[:len(good)-3]), iotest.ErrReader(boom)), 0)
		if !errors.Is(err, boom) || errors.Is(err, protowire.ErrMalformed) {
			t.Fatalf("%v, want the reader's error and no ErrMalformed", err)
		}
	})
}

// TestReadListGrowsWithTheData: an item that announces nearly the whole
// limit but sends a few bytes makes ReadList hold about its chunk and read
// buffer, not the announced size.
func TestReadListGrowsWithTheData(t *testing.T) {
	const announced = 15 << 20
	body := append(protowire.Magic[:], 0x12, 0xff, 0xff, 0xff, 0x0f) // raw: 32 MiB announced
	body = protowire.AppendVarint(append(body, 0x12), announced)     // one item of 15 MiB, then 100 bytes
	body = append(body, make([]byte, 100)...)
	var before, after runtimeMem
	before.read()
	_, _, _, err := readList(bytes.NewReader(body), protowire.DefaultMaxFrame)
	after.read()
	if !errors.Is(err, protowire.ErrTruncated) {
		t.Errorf("got %v, want ErrTruncated", err)
	}
	if grew := after.total - before.total; grew > 1<<20 {
		t.Errorf("reading an item that announced %d bytes and sent 100 allocated %d bytes", announced, grew)
	}
}

// TestReadListReusesItsBuffer: items after the first allocate nothing
// when they fit the buffer: memory is one item, whatever the list's
// length.
func TestReadListReusesItsBuffer(t *testing.T) {
	var list []byte
	for range 1000 {
		list = protowire.AppendBytes(list, 2, []byte("0123456789"))
	}
	body := envelope(list)
	items := 0
	allocs := testing.AllocsPerRun(5, func() {
		_, err := protowire.ReadList(bytes.NewReader(body), 0, func(string, string) error { return nil },
			func([]byte) error { items++; return nil })
		if err != nil {
			t.Fatal(err)
		}
	})
	if items != 6000 || allocs > 10 {
		t.Errorf("%d items, %v allocations per list of 1000, want a few", items, allocs)
	}
}
