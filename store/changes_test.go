package store

import (
	"reflect"
	"testing"

	"github.com/kcmlab/kcm/kube/api"
)

func TestIndexChanges(t *testing.T) {
	mk := func(labels map[string]string, owners ...string) *api.RawObject {
		o := &api.RawObject{ObjectMeta: api.ObjectMeta{Namespace: "ns", Name: "p", Labels: labels}}
		for _, u := range owners {
			o.OwnerReferences = append(o.OwnerReferences, api.OwnerReference{UID: u})
		}
		return o
	}
	ix := BuiltinIndexers[*api.RawObject]()
	ix["byName"] = func(o *api.RawObject) []string { return []string{o.Name} }
	ix["unknown-builtin-less"] = nil // a nil func under a name that is no built-in: no index
	a := mk(map[string]string{"app": "web", "tier": "fe"}, "rs-1")
	b := mk(map[string]string{"app": "web", "tier": "be"}, "rs-2")
	for _, tc := range []struct {
		name           string
		old            *api.RawObject
		hadOld, hasCur bool
		cur            *api.RawObject
		want           []string
	}{
		{"add files the object under every index", nil, false, true, a,
			[]string{"+byName:p", "+label:app=web", "+label:tier=fe", "+namespace:ns", "+owner:rs-1"}},
		{"update moves only what changed", a, true, true, b,
			[]string{"+label:tier=be", "+owner:rs-2", "-label:tier=fe", "-owner:rs-1"}},
		{"unchanged update moves nothing", a, true, true, a, nil},
		{"delete removes every entry", b, true, false, nil,
			[]string{"-byName:p", "-label:app=web", "-label:tier=be", "-namespace:ns", "-owner:rs-2"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got := IndexChanges(ix, tc.old, tc.hadOld, tc.cur, tc.hasCur)
			if !reflect.DeepEqual(got, tc.want) {
				t.Fatalf("IndexChanges = %q, want %q", got, tc.want)
			}
		})
	}
}
