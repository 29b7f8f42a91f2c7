package protocodec

import (
	"fmt"
	"reflect"
	"testing"
	"unsafe"

	"github.com/kcmlab/kcm/kube/api"
)

// TestUnmarshalSharing: with any hint — none, the object itself, each
// changed copy (a new label: the map has an entry more than the hint's;
// a container dropped or a toleration added: slices of another length; a
// changed image: a slice of the same length that differs) and the other
// way round (the hint has more) — UnmarshalSharing gives what Unmarshal
// gives and leaves the hint as it was, for every vector.
func TestUnmarshalSharing(t *testing.T) {
	for _, name := range vectorNames(t) {
		pb, obj := decodeVector(t, name)
		hints := map[string]api.Object{"none": nil, "itself": obj}
		for n := range 5 {
			changed := vectorKinds[name]()
			if err := Unmarshal(pb, changed); err != nil {
				t.Fatal(err)
			}
			change(changed, n)
			hints[fmt.Sprintf("changed %d", n)] = changed
		}
		for hname, hint := range hints {
			t.Run(name+"/"+hname, func(t *testing.T) {
				if hint == nil {
					got := vectorKinds[name]()
					if err := UnmarshalSharing(pb, got, nil); err != nil || !reflect.DeepEqual(got, obj) {
						t.Fatalf("no hint: %v", err)
					}
					return
				}
				checkSharing(t, name, pb, obj, hint)
				// And the changed object's message, decoded with the
				// original as hint.
				cb, err := Marshal(hint)
				if err != nil {
					t.Fatal(err)
				}
				want := vectorKinds[name]()
				if err := Unmarshal(cb, want); err != nil {
					t.Fatal(err)
				}
				checkSharing(t, name, cb, want, obj)
			})
		}
	}
}

// TestUnmarshalSharingTakesTheHints: a pod decoded with its own decode as
// hint holds the hint's strings, maps, pointers and slices, not copies.
func TestUnmarshalSharingTakesTheHints(t *testing.T) {
	pb, obj := decodeVector(t, "pod")
	hint := obj.(*api.Pod)
	got := &api.Pod{}
	if err := UnmarshalSharing(pb, got, hint); err != nil {
		t.Fatal(err)
	}
	same := func(what string, a, b any) {
		t.Helper()
		va, vb := reflect.ValueOf(a), reflect.ValueOf(b)
		var pa, pb unsafe.Pointer
		switch va.Kind() {
		case reflect.String:
			pa, pb = unsafe.Pointer(unsafe.StringData(va.String())), unsafe.Pointer(unsafe.StringData(vb.String()))
		default:
			pa, pb = va.UnsafePointer(), vb.UnsafePointer()
		}
		if pa == nil || pa != pb {
			t.Errorf("%s: not the hint's (%p, hint %p)", what, pa, pb)
		}
	}
	same("metadata.name", got.Name, hint.Name)
	same("metadata.labels", got.Labels, hint.Labels)
	same("spec.containers", got.Spec.Containers, hint.Spec.Containers)
	same("spec.tolerations", got.Spec.Tolerations, hint.Spec.Tolerations)
	same("spec.terminationGracePeriodSeconds", got.Spec.TerminationGracePeriodSeconds, hint.Spec.TerminationGracePeriodSeconds)
	same("status.conditions", got.Status.Conditions, hint.Status.Conditions)
}
