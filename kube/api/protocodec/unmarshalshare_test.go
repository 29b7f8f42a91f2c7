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

// TestUnmarshalSharingRefusesUnequalParts: a hint whose parts differ from
// the message's in ways the length checks do not see gives nothing of
// them: a label of the same key with another value; every pointer to a
// message pointing to another (zero) value; a map whose entries the
// message repeats (as many entries as the hint's map, fewer keys).
func TestUnmarshalSharingRefusesUnequalParts(t *testing.T) {
	pb, obj := decodeVector(t, "pod")
	fresh := func() *api.Pod {
		p := &api.Pod{}
		if err := Unmarshal(pb, p); err != nil {
			t.Fatal(err)
		}
		return p
	}
	otherLabel := fresh()
	for k := range otherLabel.Labels {
		otherLabel.Labels[k] += "-other"
	}
	otherPointees := fresh()
	if n := zeroPointees(reflect.ValueOf(otherPointees).Elem()); n == 0 {
		t.Fatal("the pod vector has no pointer to a message")
	}
	meta := appendString(nil, 1, "p")
	for range 2 {
		meta = appendBytes(meta, 11, appendString(appendString(nil, 1, "k"), 2, "v"))
	}
	dup := appendBytes(nil, 1, meta)
	dupWant := &api.Pod{}
	if err := Unmarshal(dup, dupWant); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name       string
		msg        []byte
		want, hint api.Object
	}{
		{"label value", pb, obj, otherLabel},
		{"pointees", pb, obj, otherPointees},
		{"repeated map entry", dup, dupWant, &api.Pod{ObjectMeta: api.ObjectMeta{Labels: map[string]string{"k": "v", "x": "y"}}}},
	} {
		t.Run(tc.name, func(t *testing.T) { checkSharing(t, "pod", tc.msg, tc.want, tc.hint) })
	}
}

// zeroPointees points every non-nil pointer to a struct in v (at any
// depth) to a new zero value, and counts them.
func zeroPointees(v reflect.Value) int {
	n := 0
	switch v.Kind() {
	case reflect.Pointer:
		if !v.IsNil() && v.Elem().Kind() == reflect.Struct && v.CanSet() {
			v.Set(reflect.New(v.Type().Elem()))
			return 1
		}
	case reflect.Struct:
		for i := range v.NumField() {
			if v.Type().Field(i).IsExported() {
				n += zeroPointees(v.Field(i))
			}
		}
	case reflect.Slice:
		for i := range v.Len() {
			n += zeroPointees(v.Index(i))
		}
	}
	return n
}

// TestUnmarshalSharingResultsOutliveLaterDecodes: the decoders are pooled
// and decode repeated fields and pointees into scratch memory they reuse,
// so an object UnmarshalSharing returned must hold none of it: objects
// kept from earlier decodes (of every vector, each with the previous
// result of its kind as hint, and changed copies in between) are still
// what Unmarshal gives after many later decodes.
func TestUnmarshalSharingResultsOutliveLaterDecodes(t *testing.T) {
	type kept struct {
		name string
		pb   []byte
		obj  api.Object
	}
	var all []kept
	last := map[string]api.Object{}
	for round := range 3 {
		for _, name := range vectorNames(t) {
			pb, _ := decodeVector(t, name)
			if round > 0 {
				changed := vectorKinds[name]()
				if err := Unmarshal(pb, changed); err != nil {
					t.Fatal(err)
				}
				change(changed, round)
				var err error
				if pb, err = Marshal(changed); err != nil {
					t.Fatal(err)
				}
			}
			got := vectorKinds[name]()
			var hint any
			if h := last[name]; h != nil {
				hint = h
			}
			if err := UnmarshalSharing(pb, got, hint); err != nil {
				t.Fatalf("%s round %d: %v", name, round, err)
			}
			last[name] = got
			all = append(all, kept{name, pb, got})
		}
	}
	for i, k := range all {
		want := vectorKinds[k.name]()
		if err := Unmarshal(k.pb, want); err != nil {
			t.Fatal(err)
		}
		if !reflect.DeepEqual(k.obj, want) {
			t.Errorf("%s (decode %d): changed by later decodes: %s", k.name, i, diff("", reflect.ValueOf(k.obj), reflect.ValueOf(want)))
		}
	}
}
