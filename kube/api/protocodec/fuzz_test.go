package protocodec

import (
	"bytes"
	"errors"
	"path/filepath"
	"reflect"
	"slices"
	"testing"

	"github.com/kcmlab/kcm/kube/api"
)

// FuzzUnmarshal holds Unmarshal, Marshal and MarshalMerge to their
// guarantees on any bytes, as a pod and as one other kind (picked by the
// input's length): no panic; an error wraps api.ErrDecode; a decoded
// object round-trips through Marshal; MarshalMerge with nothing changed
// is the input byte for byte, and with a change (see change) decodes to
// the changed object; UnmarshalAliasing gives what Unmarshal gives, and
// so does UnmarshalSharing with any hint (checkSharing), and
// UnmarshalRemainder writes AppendRemainder's remainder
// (checkUnmarshalRemainder).
// Seeds: every vector and every changed vector.
func FuzzUnmarshal(f *testing.F) {
	seeds, _ := filepath.Glob("testdata/vectors/*.pb")
	more, _ := filepath.Glob("testdata/changes/*.pb")
	for _, s := range append(seeds, more...) {
		f.Add(readFile(f, s))
	}
	f.Add(unknownFields())
	names := make([]string, 0, len(vectorKinds))
	for n := range vectorKinds {
		names = append(names, n)
	}
	slices.Sort(names)
	f.Fuzz(func(t *testing.T, data []byte) {
		for _, kind := range []string{"pod", names[len(data)%len(names)]} {
			obj := vectorKinds[kind]()
			if err := Unmarshal(data, obj); err != nil {
				if !errors.Is(err, api.ErrDecode) {
					t.Fatalf("%s: %v does not wrap ErrDecode", kind, err)
				}
				continue
			}
			out, err := Marshal(obj)
			if err != nil {
				t.Fatal(err)
			}
			back := vectorKinds[kind]()
			if err := Unmarshal(out, back); err != nil {
				t.Fatalf("%s: Unmarshal(Marshal(x)): %v", kind, err)
			}
			if !reflect.DeepEqual(back, obj) {
				t.Fatalf("%s: Unmarshal(Marshal(x)) != x: %s", kind, diff("", reflect.ValueOf(back), reflect.ValueOf(obj)))
			}
			same, err := MarshalMerge(data, obj, back)
			if err != nil || !bytes.Equal(same, data) {
				t.Fatalf("%s: unchanged MarshalMerge is not the input (err %v)", kind, err)
			}
			aliased := vectorKinds[kind]()
			if err := UnmarshalAliasing(data, aliased); err != nil || !reflect.DeepEqual(aliased, obj) {
				t.Fatalf("%s: UnmarshalAliasing differs from Unmarshal (err %v)", kind, err)
			}
			checkSharing(t, kind, data, obj, obj)
			checkSharing(t, kind, data, obj, back)
			checkUnmarshalRemainder(t, data, vectorKinds[kind]())
			change(back, len(data))
			checkSharing(t, kind, data, obj, back)
			merged, err := MarshalMerge(data, obj, back)
			if err != nil {
				t.Fatalf("%s: MarshalMerge: %v", kind, err)
			}
			again := vectorKinds[kind]()
			if err := Unmarshal(merged, again); err != nil {
				t.Fatalf("%s: Unmarshal(MarshalMerge): %v", kind, err)
			}
			if !equalMessage(mustMessage(t, again), reflect.ValueOf(again).Elem(), reflect.ValueOf(back).Elem()) { // an emptied slice reads back nil
				t.Fatalf("%s: MarshalMerge decodes to another object: %s", kind, diff("", reflect.ValueOf(again), reflect.ValueOf(back)))
			}
			checkSharing(t, kind, merged, again, obj)
		}
	})
}

// change makes one of a few changes to obj, picked by n: a new name, a
// new label; for a pod also a first container's image, a container
// dropped, a toleration added or hostNetwork flipped.
func change(obj api.Object, n int) {
	m := obj.GetObjectMeta()
	m.Name += "-fuzz"
	if n%2 == 0 {
		if m.Labels == nil {
			m.Labels = map[string]string{}
		}
		m.Labels["fuzz"] = "x"
	}
	p, ok := obj.(*api.Pod)
	if !ok {
		return
	}
	switch cs := p.Spec.Containers; n % 5 {
	case 0:
		if len(cs) > 0 {
			cs[0].Image += ":fuzz"
		}
	case 1:
		if len(cs) > 0 {
			p.Spec.Containers = cs[:len(cs)-1]
		}
	case 2:
		p.Spec.Tolerations = append(p.Spec.Tolerations, api.Toleration{Key: "fuzz"})
	case 3:
		p.Spec.HostNetwork = !p.Spec.HostNetwork
	}
}

// checkSharing: UnmarshalSharing(data) with hint gives want, what
// Unmarshal gave, and leaves the hint as it was.
func checkSharing(t *testing.T, kind string, data []byte, want, hint api.Object) {
	t.Helper()
	before, err := Marshal(hint)
	if err != nil {
		t.Fatal(err)
	}
	got := vectorKinds[kind]()
	if err := UnmarshalSharing(data, got, hint); err != nil {
		t.Fatalf("%s: UnmarshalSharing: %v", kind, err)
	}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("%s: UnmarshalSharing differs from Unmarshal: %s", kind, diff("", reflect.ValueOf(got), reflect.ValueOf(want)))
	}
	after, err := Marshal(hint)
	if err != nil || !bytes.Equal(after, before) {
		t.Fatalf("%s: UnmarshalSharing changed its hint (err %v)", kind, err)
	}
}
