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
// is the input byte for byte, and with the name changed decodes to the
// changed object. Seeds: every vector and every changed vector.
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
			back.GetObjectMeta().Name += "-fuzz"
			merged, err := MarshalMerge(data, obj, back)
			if err != nil {
				t.Fatalf("%s: MarshalMerge: %v", kind, err)
			}
			again := vectorKinds[kind]()
			if err := Unmarshal(merged, again); err != nil {
				t.Fatalf("%s: Unmarshal(MarshalMerge): %v", kind, err)
			}
			if !reflect.DeepEqual(again, back) {
				t.Fatalf("%s: MarshalMerge decodes to another object: %s", kind, diff("", reflect.ValueOf(again), reflect.ValueOf(back)))
			}
		}
	})
}
