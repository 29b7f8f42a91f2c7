package objsrc_test

import (
	"errors"
	"testing"
	"unsafe"

	"github.com/kcmlab/kcm/kube/api/internal/objsrc"
	"go.uber.org/goleak"
)

func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

// TestSourceForms: each form gives back what it was made from, and only
// the JSON form holding a slice's bytes keeps that slice.
func TestSourceForms(t *testing.T) {
	doc := []byte(`{"kind":"Pod"}`)
	other := []byte(`{"kind":"Pod"}`)
	errBroken := errors.New("broken")
	rebuild := objsrc.MakeRebuilder(func(ctx, ptr unsafe.Pointer) ([]byte, error) {
		if ctx == nil {
			return nil, errBroken
		}
		return append([]byte(nil), *(*[]byte)(ptr)...), nil
	}, unsafe.Pointer(&doc))
	failing := objsrc.MakeRebuilder(func(ctx, ptr unsafe.Pointer) ([]byte, error) { return nil, errBroken }, nil)
	fixed := objsrc.MakeRebuilder(func(ctx, ptr unsafe.Pointer) ([]byte, error) { return []byte("{}"), nil }, nil)
	for _, tc := range []struct {
		name      string
		src       objsrc.Source
		want      []byte
		wantErr   error
		keepsDoc  bool
		rebuilder *objsrc.Rebuilder
	}{
		{name: "none", src: objsrc.Source{}},
		{name: "JSON of nil", src: objsrc.JSON(nil)},
		{name: "JSON", src: objsrc.JSON(doc), want: doc, keepsDoc: true},
		{name: "empty JSON", src: objsrc.JSON([]byte{}), want: []byte{}},
		{name: "rebuilt", src: objsrc.Rebuilt(unsafe.Pointer(&other), &rebuild), want: other, rebuilder: &rebuild},
		// A rebuilt form's pointer may be any memory, a JSON's first
		// byte too: it does not keep that JSON.
		{name: "rebuilt from those bytes", src: objsrc.Rebuilt(unsafe.Pointer(unsafe.SliceData(doc)), &fixed), want: []byte("{}"), rebuilder: &fixed},
		{name: "rebuild fails", src: objsrc.Rebuilt(unsafe.Pointer(&other), &failing), wantErr: errBroken, rebuilder: &failing},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, err := tc.src.JSON()
			if !errors.Is(err, tc.wantErr) || string(got) != string(tc.want) || (got == nil) != (tc.want == nil) {
				t.Errorf("JSON() = %q (nil: %v), %v; want %q (nil: %v), %v", got, got == nil, err, tc.want, tc.want == nil, tc.wantErr)
			}
			if keeps := tc.src.Keeps(doc); keeps != tc.keepsDoc {
				t.Errorf("Keeps(doc) = %v, want %v", keeps, tc.keepsDoc)
			}
			if tc.src.Keeps(other) {
				t.Error("Keeps a slice with equal bytes elsewhere")
			}
			if rb, _ := tc.src.Rebuilder(); rb != tc.rebuilder {
				t.Errorf("Rebuilder() = %p, want %p", rb, tc.rebuilder)
			}
		})
	}
}

// TestProtoForm: the protobuf form holds a message and no JSON; it is no
// rebuilt form, keeps no JSON, and the other forms are not protobuf.
func TestProtoForm(t *testing.T) {
	msg := []byte{0x0a, 0x03, 0x0a, 0x01, 'a'}
	s := objsrc.Proto(msg)
	if !s.IsProto() || unsafe.SliceData(s.Proto()) != unsafe.SliceData(msg) || len(s.Proto()) != len(msg) {
		t.Fatalf("Proto() = %x, IsProto %v", s.Proto(), s.IsProto())
	}
	if js, err := s.JSON(); js != nil || err != nil {
		t.Errorf("JSON() = %q, %v; want nil", js, err)
	}
	if rb, _ := s.Rebuilder(); rb != nil || s.Keeps(msg) {
		t.Errorf("the protobuf form reads as rebuilt (%v) or as keeping JSON (%v)", rb != nil, s.Keeps(msg))
	}
	if e := objsrc.Proto([]byte{}); !e.IsProto() || e.Proto() == nil || len(e.Proto()) != 0 {
		t.Errorf("empty message: %v %x", e.IsProto(), e.Proto())
	}
	if n := objsrc.Proto(nil); n.IsProto() || n.Proto() != nil {
		t.Errorf("Proto(nil) is a protobuf form")
	}
	fixed := objsrc.MakeRebuilder(func(ctx, ptr unsafe.Pointer) ([]byte, error) { return []byte("{}"), nil }, nil)
	for name, o := range map[string]objsrc.Source{"none": {}, "JSON": objsrc.JSON(msg), "rebuilt": objsrc.Rebuilt(unsafe.Pointer(&msg), &fixed)} {
		if o.IsProto() || o.Proto() != nil {
			t.Errorf("%s form reads as protobuf", name)
		}
	}
}
