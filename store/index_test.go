package store

import (
	"slices"
	"testing"
)

// TestHasAgreesWithIndexFuncs: the reader's recheck (indexDef.has) says an
// object is under a value exactly when the index's reference IndexFunc
// lists that value for it, for every built-in kind and a user func,
// including label keys and values that contain '=' (valid label keys never
// do, but the recheck must agree with LabelIndexFunc whatever they hold).
func TestHasAgreesWithIndexFuncs(t *testing.T) {
	objs := []*tobj{
		mk("", "cluster-scoped"),
		mk("ns", "plain", labels("app", "web", "tier", ""), owners("u1", "u2"), node("n1")),
		mk("ns", "eq-in-value", labels("a", "b=c")),
		mk("other", "eq-in-key", labels("a=b", "c")),
	}
	values := []string{"", "ns", "other", "n", "app=web", "app=we", "app=", "app", "=web", "tier=", "tier",
		"a=b=c", "a=b", "a", "b=c", "u1", "u2", "u", "n1", "n2", "=", "web"}
	for _, d := range []*indexDef[*tobj]{
		{name: IndexNamespace, kind: kindNamespace},
		{name: IndexLabel, kind: kindLabel},
		{name: IndexOwner, kind: kindOwner},
		{name: "node", kind: kindFunc, fn: byNode},
	} {
		ref := map[indexKind]IndexFunc[*tobj]{kindNamespace: NamespaceIndexFunc[*tobj], kindLabel: LabelIndexFunc[*tobj],
			kindOwner: OwnerIndexFunc[*tobj], kindFunc: byNode}[d.kind]
		matched := 0
		for _, o := range objs {
			for _, v := range values {
				want := slices.Contains(ref(o), v)
				if got := d.has(o, v); got != want {
					t.Errorf("%s: has(%s, %q) = %v, want %v", d.name, o.Key(), v, got, want)
				}
				if want {
					matched++
				}
			}
		}
		if matched == 0 {
			t.Errorf("%s: no value matched: the table tests only misses", d.name)
		}
	}
}

// TestKeysSortedWithoutDuplicates: an object's index values come sorted
// and once each, whatever order and repetition the IndexFunc returns them
// in, appended after what dst already holds.
func TestKeysSortedWithoutDuplicates(t *testing.T) {
	d := &indexDef[*tobj]{name: "fin", kind: kindFunc, fn: func(o *tobj) []string { return o.Finalizers }}
	for _, tc := range []struct {
		in   []string
		want []string
	}{
		{nil, nil},
		{[]string{"x"}, []string{"x"}},
		{[]string{"b", "a"}, []string{"a", "b"}},
		{[]string{"b", "a", "b", "a"}, []string{"a", "b"}},
		{[]string{"z", "z"}, []string{"z"}},
	} {
		o := mk("ns", "p")
		o.Finalizers = tc.in
		pre := []internKey{{a: "zz-kept"}, {a: "aa-kept"}}
		got := d.keys(slices.Clone(pre), o)
		if !slices.Equal(got[:2], pre) {
			t.Errorf("%v: keys changed what dst held: %v", tc.in, got[:2])
		}
		var vals []string
		for _, k := range got[2:] {
			vals = append(vals, k.a)
		}
		if !slices.Equal(vals, tc.want) {
			t.Errorf("keys(%v) = %v, want %v", tc.in, vals, tc.want)
		}
	}
}

// TestUpdateKeepsValueSpelledTwice: LabelIndexFunc yields one value for
// each label as key+"="+value, so labels {"a": "b=c", "a=b": "c"} put an
// object under "a=b=c" twice. An update that drops one of the two pairs
// leaves the object under "a=b=c" (the other pair still spells it), and
// one that drops both removes it. (Valid label keys never hold '=', but
// the index must agree with its IndexFunc whatever they hold.)
func TestUpdateKeepsValueSpelledTwice(t *testing.T) {
	for _, tc := range []struct {
		name     string
		old, new []string // label pairs
		want     []string // keys under "a=b=c"
	}{
		{"drop the key with '='", []string{"a", "b=c", "a=b", "c"}, []string{"a", "b=c"}, []string{"ns/p"}},
		{"drop the value with '='", []string{"a", "b=c", "a=b", "c"}, []string{"a=b", "c"}, []string{"ns/p"}},
		{"swap one spelling for the other", []string{"a", "b=c"}, []string{"a=b", "c"}, []string{"ns/p"}},
		{"drop both", []string{"a", "b=c", "a=b", "c"}, []string{"x", "y"}, nil},
	} {
		s := New(Options[*tobj]{Indexers: BuiltinIndexers[*tobj](IndexLabel)})
		s.Set(mk("ns", "p", labels(tc.old...)))
		s.Set(mk("ns", "p", labels(tc.new...)))
		if got, _ := s.IndexKeys(IndexLabel, "a=b=c"); !slices.Equal(got, tc.want) {
			t.Errorf("%s: IndexKeys(a=b=c) = %v, want %v", tc.name, got, tc.want)
		}
		if got, _ := s.ByIndex(IndexLabel, "a=b=c"); len(got) != len(tc.want) {
			t.Errorf("%s: ByIndex(a=b=c) has %d objects, want %d", tc.name, len(got), len(tc.want))
		}
	}
}
