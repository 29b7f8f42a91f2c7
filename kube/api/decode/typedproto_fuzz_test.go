package decode_test

import (
	"bytes"
	"errors"
	"os"
	"path/filepath"
	"reflect"
	"testing"

	"github.com/kcmlab/kcm/kube/api"
	"github.com/kcmlab/kcm/kube/api/decode"
	"github.com/kcmlab/kcm/kube/api/protowire"
)

// FuzzTypedDecodeProto: the typed protobuf entry points (Typed and the
// cache's StrippingManagedFields(CompactCached) DecodeProto) never panic
// on hostile bytes; they fail together, with errors wrapping
// api.ErrDecode; on success both give the same pod, Typed keeps the bytes
// as they were given, the cache's rebuilt message decodes to the same pod
// and rebuilds to itself, and the caller's slice is never modified by
// the cache's (borrowing) decode.
func FuzzTypedDecodeProto(f *testing.F) {
	files, _ := filepath.Glob(vectorDir + "*pod.pb")
	for _, name := range files {
		b, err := os.ReadFile(name)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(b)
	}
	f.Add([]byte{})
	f.Add([]byte{0x0a, 0x03, 0x0a, 0x01, 'x'})
	f.Add([]byte{0x0a, 0x05, 0x8a, 0x01, 0x02, 0x0a, 0x00})
	tm := api.TypeMeta{APIVersion: "v1", Kind: "Pod"}
	typed, _ := decode.AsProto(decode.Typed[api.Pod]())
	cache, _ := decode.AsProto(decode.StrippingManagedFields(decode.CompactCached[api.Pod](
		func(string, string) (*api.Pod, bool) { return nil, false })))
	f.Fuzz(func(t *testing.T, data []byte) {
		in := bytes.Clone(data)
		cp, cerr := decode.BorrowedProto(cache, tm, data)
		if !bytes.Equal(in, data) {
			t.Fatal("input modified")
		}
		tp, terr := typed.DecodeProto(tm, bytes.Clone(data))
		if cerr != nil || terr != nil {
			for _, err := range []error{cerr, terr} {
				if err != nil && !errors.Is(err, api.ErrDecode) {
					t.Fatalf("error %v does not wrap ErrDecode", err)
				}
			}
			if terr == nil {
				// The cache refuses only what Typed refuses, or what
				// the managedFields cut refuses.
				if _, err := protowire.StripManagedFields(data); err == nil {
					t.Fatalf("the cache refused what Typed read: %v", cerr)
				}
			}
			return
		}
		if src, _ := tp.OriginalProto(); !tp.IsProto() || !bytes.Equal(src, data) {
			t.Fatal("Typed's source is not its input")
		}
		cut, err := protowire.StripManagedFields(data)
		if err != nil {
			t.Fatalf("the cache read what the cut refuses: %v", err)
		}
		// The cache's message is rebuilt from the struct and the
		// remainder: the same object (byte for byte only for messages
		// in upstream's field order, which the vectors test), and
		// rebuilt again it is itself.
		src, err := cp.OriginalProto()
		if err != nil || !cp.IsProto() {
			t.Fatalf("the cache's source: %v", err)
		}
		again, err := typed.DecodeProto(tm, bytes.Clone(src))
		if err != nil {
			t.Fatalf("the cache's rebuilt message does not decode: %v", err)
		}
		a, b := *again, *cp
		a.SetRaw(nil)
		b.SetRaw(nil)
		if !reflect.DeepEqual(a, b) {
			t.Fatalf("the rebuilt message decodes to another pod:\n%+v\n%+v", a, b)
		}
		if len(cut) == len(data) {
			// Nothing cut: the remainder of the rebuilt message is
			// the input's, so it rebuilds to itself.
			cp2, err := decode.BorrowedProto(cache, tm, src)
			if err != nil {
				t.Fatal(err)
			}
			if src2, err := cp2.OriginalProto(); err != nil || !bytes.Equal(src2, src) {
				t.Fatalf("rebuilt twice: %d bytes, then %d (%v)", len(src), len(src2), err)
			}
		}
		a, b = *tp, *cp
		a.SetRaw(nil)
		b.SetRaw(nil)
		if !reflect.DeepEqual(a, b) {
			t.Fatalf("Typed and the cache differ:\n%+v\n%+v", a, b)
		}
	})
}
