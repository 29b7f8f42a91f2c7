package protocodec

import (
	"bytes"
	"errors"
	"reflect"
	"testing"

	"github.com/kcmlab/kcm/kube/api"
	"github.com/kcmlab/kcm/kube/api/protowire"
)

// rebuilt is Rebuild(Marshal(Unmarshal(msg)), Remainder(msg)) for obj's
// type, and the remainder.
func rebuilt(t *testing.T, msg []byte, obj any) (out, rem []byte) {
	t.Helper()
	typ := reflect.TypeOf(obj).Elem()
	rem, err := Remainder(msg, typ)
	if err != nil {
		t.Fatal(err)
	}
	if err := Unmarshal(msg, obj); err != nil {
		t.Fatal(err)
	}
	mb, err := Marshal(obj)
	if err != nil {
		t.Fatal(err)
	}
	out, err = Rebuild(mb, rem, typ)
	if err != nil {
		t.Fatal(err)
	}
	return out, rem
}

// TestRemainderRebuildsVectors: every vector, as upstream's generated
// code wrote it (managedFields and the fields kcm does not model
// included), is rebuilt byte for byte from its decode and its remainder;
// so is each with unknown fields of every wire type injected at every
// depth of a pod; a message of modelled fields only (Marshal's) has no
// remainder.
func TestRemainderRebuildsVectors(t *testing.T) {
	for _, name := range vectorNames(t) {
		t.Run(name, func(t *testing.T) {
			pb := readFile(t, "testdata/vectors/"+name+".pb")
			out, rem := rebuilt(t, pb, vectorKinds[name]())
			if !bytes.Equal(out, pb) {
				t.Fatalf("rebuilt %d bytes, want %d; first difference at %d", len(out), len(pb), firstDiff(out, pb))
			}
			if len(rem) == 0 || len(rem) >= len(pb) {
				t.Errorf("remainder of %d bytes for a message of %d", len(rem), len(pb))
			}
			mb, err := Marshal(vectorKinds[name]())
			if err != nil {
				t.Fatal(err)
			}
			obj := vectorKinds[name]()
			if err := Unmarshal(pb, obj); err != nil {
				t.Fatal(err)
			}
			if mb, err = Marshal(obj); err != nil {
				t.Fatal(err)
			}
			if r, err := Remainder(mb, reflect.TypeOf(obj).Elem()); err != nil || r != nil {
				t.Errorf("Marshal's message has a remainder of %d bytes (%v)", len(r), err)
			}
		})
	}
	t.Run("pod with unknown fields at every depth", func(t *testing.T) {
		pb, _ := decodeVector(t, "pod")
		injected := injectAll(t, pb, podDepths)
		out, _ := rebuilt(t, injected, &api.Pod{})
		if !bytes.Equal(out, injected) {
			t.Fatalf("rebuilt %d bytes, want %d; first difference at %d", len(out), len(injected), firstDiff(out, injected))
		}
	})
}

// TestRemainderOfChangedObject: the rebuild from a changed copy of the
// object is the message with the change and every unmodelled field: what
// MarshalMerge gives for the change.
func TestRemainderOfChangedObject(t *testing.T) {
	pb, _ := decodeVector(t, "pod")
	injected := injectAll(t, pb, podDepths)
	rem, err := Remainder(injected, reflect.TypeFor[api.Pod]())
	if err != nil {
		t.Fatal(err)
	}
	before := &api.Pod{}
	if err := Unmarshal(injected, before); err != nil {
		t.Fatal(err)
	}
	after, err := api.DeepCopy(before)
	if err != nil {
		t.Fatal(err)
	}
	vectorChanges["pod-label-add"].change(after)
	mb, err := Marshal(after)
	if err != nil {
		t.Fatal(err)
	}
	out, err := Rebuild(mb, rem, reflect.TypeFor[api.Pod]())
	if err != nil {
		t.Fatal(err)
	}
	want, err := MarshalMerge(injected, before, after)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(out, want) {
		t.Fatalf("got %d bytes, want %d; first difference at %d", len(out), len(want), firstDiff(out, want))
	}
}

// TestRemainderNotCanonical (UnmarshalRemainder too): a message out of ascending field order, or
// with a singular message given twice, at any depth, has no remainder
// (an ErrDecode): Rebuild could not put its fields back where they were.
func TestRemainderNotCanonical(t *testing.T) {
	meta := appendString(nil, 1, "a")
	for name, msg := range map[string][]byte{
		"top out of order":     appendBytes(appendBytes(nil, 2, nil), 1, meta),
		"nested out of order":  appendBytes(nil, 1, appendString(appendString(nil, 3, "ns"), 1, "a")),
		"metadata twice":       appendBytes(appendBytes(nil, 1, meta), 1, meta),
		"unknown before lower": appendBytes(nil, 1, appendString(appendVarint(appendKey(nil, 900, wireVarint), 1), 13, "")),
	} {
		if _, err := Remainder(msg, reflect.TypeFor[api.Pod]()); !errors.Is(err, api.ErrDecode) || !errors.Is(err, errNotCanonical) {
			t.Errorf("%s: %v, want errNotCanonical", name, err)
		}
		if _, err := UnmarshalRemainder(msg, &api.Pod{}, nil, nil, RemainderOptions{}); !errors.Is(err, ErrNoRemainder) || !errors.Is(err, errNotCanonical) {
			t.Errorf("%s: UnmarshalRemainder: %v, want ErrNoRemainder", name, err)
		}
	}
	ok := appendBytes(appendBytes(nil, 1, meta), 2, appendBytes(appendBytes(nil, 2, nil), 2, nil)) // two containers
	if _, err := Remainder(ok, reflect.TypeFor[api.Pod]()); err != nil {
		t.Errorf("repeated elements in a row: %v", err)
	}
}

// TestRemainderDropManagedFields: a remainder taken with
// DropManagedFields rebuilds every vector as protowire's
// StripManagedFields writes it, byte for byte, and so does the pod with
// unknown fields at every depth (only the top-level metadata's
// managedFields go); without the option the remainder appended to a
// scratch buffer's tail is Remainder's.
func TestRemainderDropManagedFields(t *testing.T) {
	check := func(t *testing.T, pb []byte, obj any) {
		t.Helper()
		typ := reflect.TypeOf(obj).Elem()
		want, err := protowire.StripManagedFields(pb)
		if err != nil {
			t.Fatal(err)
		}
		rem, err := AppendRemainder(nil, pb, typ, RemainderOptions{DropManagedFields: true})
		if err != nil {
			t.Fatal(err)
		}
		if err := Unmarshal(pb, obj); err != nil {
			t.Fatal(err)
		}
		mb, err := Marshal(obj)
		if err != nil {
			t.Fatal(err)
		}
		out, err := Rebuild(mb, rem, typ)
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(out, want) {
			t.Fatalf("rebuilt %d bytes, want %d; first difference at %d", len(out), len(want), firstDiff(out, want))
		}
		full, err := Remainder(pb, typ)
		if err != nil {
			t.Fatal(err)
		}
		scratch := []byte("scratch")
		tail, err := AppendRemainder(scratch, pb, typ, RemainderOptions{})
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(tail[len(scratch):], full) || string(tail[:len(scratch)]) != "scratch" {
			t.Fatalf("AppendRemainder onto a buffer: %q, want scratch + Remainder's %d bytes", tail, len(full))
		}
		checkUnmarshalRemainder(t, pb, obj)
	}
	for _, name := range vectorNames(t) {
		t.Run(name, func(t *testing.T) {
			check(t, readFile(t, "testdata/vectors/"+name+".pb"), vectorKinds[name]())
		})
	}
	t.Run("pod with unknown fields at every depth", func(t *testing.T) {
		pb, _ := decodeVector(t, "pod")
		check(t, injectAll(t, pb, podDepths), &api.Pod{})
	})
}

// checkUnmarshalRemainder: UnmarshalRemainder decodes pb as Unmarshal
// does and writes the remainder AppendRemainder writes, with and without
// DropManagedFields, onto a buffer's tail, with no hint and with the
// object itself as hint; a message with no remainder is ErrNoRemainder.
func checkUnmarshalRemainder(t *testing.T, pb []byte, obj any) {
	t.Helper()
	typ := reflect.TypeOf(obj).Elem()
	want := reflect.New(typ).Interface()
	if err := Unmarshal(pb, want); err != nil {
		t.Fatal(err)
	}
	for _, opt := range []RemainderOptions{{}, {DropManagedFields: true}} {
		wantRem, remErr := AppendRemainder(nil, pb, typ, opt)
		for _, hint := range []any{nil, want} {
			got := reflect.New(typ).Interface()
			rem, err := UnmarshalRemainder(pb, got, hint, []byte("scratch"), opt)
			switch {
			case remErr != nil:
				if !errors.Is(err, ErrNoRemainder) {
					t.Fatalf("%+v: UnmarshalRemainder: %v, want ErrNoRemainder (Remainder: %v)", opt, err, remErr)
				}
			case err != nil:
				t.Fatalf("%+v: UnmarshalRemainder: %v", opt, err)
			case !bytes.Equal(rem, append([]byte("scratch"), wantRem...)):
				t.Fatalf("%+v: UnmarshalRemainder wrote %d bytes, AppendRemainder %d; first difference at %d",
					opt, len(rem)-len("scratch"), len(wantRem), firstDiff(rem[len("scratch"):], wantRem))
			}
			if !errors.Is(err, ErrNoRemainder) && !reflect.DeepEqual(got, want) {
				t.Fatalf("%+v: UnmarshalRemainder decoded another object than Unmarshal", opt)
			}
		}
	}
}
