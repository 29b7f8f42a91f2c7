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

// TestProtoForm: the protobuf forms hold or rebuild a message and have
// no JSON; they are no rebuilt JSON form, keep no JSON, and the other
// forms are not protobuf.
func TestProtoForm(t *testing.T) {
	msg := []byte{0x0a, 0x03, 0x0a, 0x01, 'a'}
	s := objsrc.Proto(msg)
	got, err := s.Proto()
	if !s.IsProto() || err != nil || unsafe.SliceData(got) != unsafe.SliceData(msg) || len(got) != len(msg) {
		t.Fatalf("Proto() = %x, %v, IsProto %v", got, err, s.IsProto())
	}
	errBroken := errors.New("broken")
	rebuild := objsrc.MakeRebuilder(func(ctx, ptr unsafe.Pointer) ([]byte, error) {
		if ptr == nil {
			return nil, errBroken
		}
		return append([]byte(nil), *(*[]byte)(ptr)...), nil
	}, nil)
	r := objsrc.ProtoRebuilt(unsafe.Pointer(&msg), &rebuild)
	if got, err := r.Proto(); !r.IsProto() || err != nil || string(got) != string(msg) || unsafe.SliceData(got) == unsafe.SliceData(msg) {
		t.Fatalf("rebuilt Proto() = %x, %v, IsProto %v", got, err, r.IsProto())
	}
	if _, err := objsrc.ProtoRebuilt(nil, &rebuild).Proto(); !errors.Is(err, errBroken) {
		t.Errorf("a failing rebuild: %v", err)
	}
	for name, p := range map[string]objsrc.Source{"kept": s, "rebuilt": r} {
		if js, err := p.JSON(); js != nil || err != nil {
			t.Errorf("%s: JSON() = %q, %v; want nil", name, js, err)
		}
		if rb, _ := p.Rebuilder(); rb != nil || p.Keeps(msg) {
			t.Errorf("%s: the protobuf form reads as rebuilt JSON (%v) or as keeping JSON (%v)", name, rb != nil, p.Keeps(msg))
		}
	}
	if e, _ := objsrc.Proto([]byte{}).Proto(); !objsrc.Proto([]byte{}).IsProto() || e == nil || len(e) != 0 {
		t.Errorf("empty message: %x", e)
	}
	if n := objsrc.Proto(nil); n.IsProto() {
		t.Errorf("Proto(nil) is a protobuf form")
	}
	fixed := objsrc.MakeRebuilder(func(ctx, ptr unsafe.Pointer) ([]byte, error) { return []byte("{}"), nil }, nil)
	for name, o := range map[string]objsrc.Source{"none": {}, "JSON": objsrc.JSON(msg), "rebuilt": objsrc.Rebuilt(unsafe.Pointer(&msg), &fixed)} {
		if b, _ := o.Proto(); o.IsProto() || b != nil {
			t.Errorf("%s form reads as protobuf", name)
		}
	}
}
