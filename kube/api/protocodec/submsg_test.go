package protocodec

import (
	"bytes"
	"errors"
	"testing"

	"github.com/kcmlab/kcm/kube/api"
)

// TestFieldAndSetField: Field reads a sub-message by path (absent at any
// depth: not found; several occurrences: their concatenation); SetField
// replaces it at its first occurrence, inserts it in number order or
// creates its path, and keeps every other field's bytes.
func TestFieldAndSetField(t *testing.T) {
	a, b, c := msgField(1, []byte("a")), msgField(2, []byte("b")), msgField(3, []byte("c"))
	cat := func(parts ...[]byte) []byte { return bytes.Join(parts, nil) }
	for _, tc := range []struct {
		name      string
		msg       []byte
		path      []int32
		get       []byte
		found     bool
		set       []byte // SetField(msg, "X", path)
		setResult []byte
	}{
		{"top level", cat(a, b, c), []int32{2}, []byte("b"), true, nil, cat(a, msgField(2, []byte("X")), c)},
		{"absent: inserted in number order", cat(a, c), []int32{2}, nil, false, nil, cat(a, msgField(2, []byte("X")), c)},
		{"absent: appended", cat(a, b), []int32{5}, nil, false, nil, cat(a, b, msgField(5, []byte("X")))},
		{"empty message", nil, []int32{2}, nil, false, nil, msgField(2, []byte("X"))},
		{"nested", cat(a, msgField(2, cat(a, b, c)), c), []int32{2, 2}, []byte("b"), true, nil,
			cat(a, msgField(2, cat(a, msgField(2, []byte("X")), c)), c)},
		{"nested path created", cat(a, c), []int32{2, 4}, nil, false, nil, cat(a, msgField(2, msgField(4, []byte("X"))), c)},
		{"given twice: concatenated, written once where first", cat(msgField(2, a), c, msgField(2, b)), []int32{2},
			cat(a, b), true, nil, cat(msgField(2, []byte("X")), c)},
		{"varint fields kept", cat(varintField(1, 300), b, varintField(3, 1)), []int32{2}, []byte("b"), true, nil,
			cat(varintField(1, 300), msgField(2, []byte("X")), varintField(3, 1))},
	} {
		t.Run(tc.name, func(t *testing.T) {
			orig := bytes.Clone(tc.msg)
			got, found, err := Field(tc.msg, tc.path...)
			if err != nil || found != tc.found || !bytes.Equal(got, tc.get) {
				t.Fatalf("Field = %q %v %v, want %q %v", got, found, err, tc.get, tc.found)
			}
			out, err := SetField(tc.msg, []byte("X"), tc.path...)
			if err != nil || !bytes.Equal(out, tc.setResult) {
				t.Fatalf("SetField = %x %v, want %x", out, err, tc.setResult)
			}
			if !bytes.Equal(tc.msg, orig) {
				t.Fatal("the message was modified")
			}
		})
	}
	// A long payload needs a longer length: the enclosing lengths follow.
	long := bytes.Repeat([]byte("y"), 300)
	out, err := SetField(cat(a, msgField(2, b)), long, 2, 2)
	if err != nil {
		t.Fatal(err)
	}
	if got, _, err := Field(out, 2, 2); err != nil || !bytes.Equal(got, long) {
		t.Fatalf("long payload read back as %d bytes (%v)", len(got), err)
	}
}

// TestFieldErrors: a malformed message, or a field of the path that is
// not length-delimited, is an error wrapping api.ErrDecode.
func TestFieldErrors(t *testing.T) {
	for name, msg := range map[string][]byte{
		"truncated":       msgField(2, []byte("abc"))[:3],
		"wrong wire type": varintField(2, 7),
		"bad key":         {0x00},
	} {
		if _, _, err := Field(msg, 2); !errors.Is(err, api.ErrDecode) {
			t.Errorf("%s: Field error %v", name, err)
		}
		if _, err := SetField(msg, nil, 2); !errors.Is(err, api.ErrDecode) {
			t.Errorf("%s: SetField error %v", name, err)
		}
	}
	if _, err := SetField(nil, nil); !errors.Is(err, ErrNoProtobuf) {
		t.Errorf("SetField without a path: %v", err)
	}
}

// TestSetFieldIsUpstreamsMarshal: replacing a Deployment vector's
// template (spec.template, field 2.3) by the template of another vector
// gives the bytes Marshal gives for the struct with that template: the
// lengths of spec and of the object are rewritten as upstream writes
// them.
func TestSetFieldIsUpstreamsMarshal(t *testing.T) {
	var d api.Deployment
	if err := Unmarshal(readFile(t, "testdata/vectors/deployment.pb"), &d); err != nil {
		t.Fatal(err)
	}
	msg, err := Marshal(&d)
	if err != nil {
		t.Fatal(err)
	}
	d.Spec.Template.Spec.Containers = append(d.Spec.Template.Spec.Containers, api.Container{Name: "extra", Image: "x"})
	d.Spec.Template.Labels = map[string]string{"a": "b"}
	want, err := Marshal(&d)
	if err != nil {
		t.Fatal(err)
	}
	tmpl, err := Marshal(&d.Spec.Template)
	if err != nil {
		t.Fatal(err)
	}
	got, err := SetField(msg, tmpl, 2, 3)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(got, want) {
		t.Fatalf("SetField gave %d bytes, Marshal %d", len(got), len(want))
	}
}
