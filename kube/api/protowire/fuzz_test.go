package protowire_test

import (
	"bytes"
	"errors"
	"io"
	"reflect"
	"testing"

	"github.com/kcmlab/kcm/kube/api"
	"github.com/kcmlab/kcm/kube/api/protowire"
)

// FuzzDecode feeds arbitrary bytes to every entry point: none may panic,
// every error must wrap ErrMalformed (or be ErrContent, io.EOF), and an
// object that decodes must decode again, to the same metadata, from its
// own kept message — which has no managedFields left when they were
// dropped.
func FuzzDecode(f *testing.F) {
	for _, name := range []string{"pod.pb", "podlist.pb", "watch.pb", "status.pb"} {
		b := golden(f, name)
		f.Add(b)
		f.Add(b[:len(b)/2])
		if u, err := protowire.Unwrap(b); err == nil {
			f.Add(u.Raw)
		}
	}
	f.Add(object(pw(nil).str(1, "a").msg(17, pw("m")).msg(11, pw(nil).str(1, "k"))))
	f.Fuzz(func(t *testing.T, data []byte) {
		check := func(what string, err error) {
			if err != nil && !errors.Is(err, protowire.ErrMalformed) && !errors.Is(err, protowire.ErrContent) && err != io.EOF {
				t.Fatalf("%s: error %v wraps no sentinel", what, err)
			}
		}
		_, err := protowire.Unwrap(data)
		check("Unwrap", err)
		_, err = protowire.Decode(data, protowire.Options{DropManagedFields: true})
		check("Decode", err)
		if l, err := protowire.SplitList(data); err == nil {
			for _, it := range l.Items {
				_, err := protowire.DecodeMessage(api.TypeMeta{}, it, protowire.Options{})
				check("DecodeMessage item", err)
			}
		} else {
			check("SplitList", err)
		}
		_, err = protowire.DecodeEvent(data)
		check("DecodeEvent", err)
		_, err = protowire.DecodeStatus(data)
		check("DecodeStatus", err)
		// ReadList streams what Unwrap and SplitList read whole: where
		// both succeed they agree.
		var streamed [][]byte
		lm, err := protowire.ReadList(bytes.NewReader(data), 1<<16, func(string, string) error { return nil },
			func(msg []byte) error { streamed = append(streamed, bytes.Clone(msg)); return nil })
		check("ReadList", err)
		if err == nil {
			if u, uerr := protowire.Unwrap(data); uerr == nil {
				if l, lerr := protowire.SplitList(u.Raw); lerr == nil && len(streamed) > 0 {
					if !reflect.DeepEqual(l.ListMeta, lm) || len(l.Items) != len(streamed) {
						t.Fatalf("ReadList %+v (%d items), SplitList %+v (%d items)", lm, len(streamed), l.ListMeta, len(l.Items))
					}
					for i := range streamed {
						if !bytes.Equal(streamed[i], l.Items[i]) {
							t.Fatalf("item %d differs", i)
						}
					}
				}
			}
		}
		fr := protowire.NewFrameReader(bytes.NewReader(data), 1<<16)
		for range 8 {
			frame, err := fr.Next()
			if err != nil {
				check("FrameReader", err)
				break
			}
			_, err = protowire.DecodeEvent(frame)
			check("DecodeEvent frame", err)
		}
		for _, drop := range []bool{false, true} {
			o, err := protowire.DecodeMessage(api.TypeMeta{}, data, protowire.Options{DropManagedFields: drop})
			if err != nil {
				check("DecodeMessage", err)
				continue
			}
			again, err := protowire.DecodeMessage(api.TypeMeta{}, o.Message(), protowire.Options{})
			if err != nil {
				t.Fatalf("drop=%v: the kept message does not decode: %v", drop, err)
			}
			if !reflect.DeepEqual(exported(again.ObjectMeta), exported(o.ObjectMeta)) {
				t.Fatalf("drop=%v: the kept message reads differently:\n%+v\n%+v", drop, again.ObjectMeta, o.ObjectMeta)
			}
			fam, err := protowire.DecodeMessage(api.TypeMeta{}, data, protowire.Options{DropManagedFields: drop, FamilyDelta: true})
			if err != nil || !bytes.Equal(fam.Message(), o.Message()) {
				t.Fatalf("drop=%v: with FamilyDelta the message differs (%v)", drop, err)
			}
			if drop && hasManagedFields(t, o.Message()) {
				t.Fatalf("managedFields kept: %x", o.Message())
			}
			if !drop && !bytes.Equal(o.Message(), data) {
				t.Fatalf("without drop the kept message differs from the input")
			}
		}
	})
}

// hasManagedFields reports whether a well-formed message's metadata has a
// field 17.
func hasManagedFields(t *testing.T, msg []byte) bool {
	top, err := readAll(msg)
	if err != nil {
		t.Fatalf("kept message is malformed: %v", err)
	}
	for _, f := range top {
		if f.Num != 1 {
			continue
		}
		meta, err := readAll(f.Data)
		if err != nil {
			t.Fatalf("kept metadata is malformed: %v", err)
		}
		for _, m := range meta {
			if m.Num == 17 {
				return true
			}
		}
	}
	return false
}
