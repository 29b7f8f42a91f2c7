package store

import (
	"errors"
	"fmt"
	"slices"
	"strings"
	"testing"
	"unsafe"

	"github.com/kcmlab/kcm/kube/api"
)

func TestNewPanicsOnNilUserIndexFunc(t *testing.T) {
	defer func() {
		r := recover()
		err, ok := r.(error)
		if !ok || !errors.Is(err, ErrNilIndexFunc) || !strings.Contains(err.Error(), `"node"`) {
			t.Fatalf("recover() = %v, want ErrNilIndexFunc naming node", r)
		}
	}()
	New(Options[*tobj]{Indexers: Indexers[*tobj]{"node": nil}})
}

func TestKeyFunc(t *testing.T) {
	for _, tc := range []struct {
		name string
		kf   func(*tobj) string
		obj  *tobj
		want string
	}{
		// Cache keys are "namespace/name", or "name" for cluster-scoped
		// objects (client-go's MetaNamespaceKeyFunc).
		{"namespaced", nil, mk("ns", "a"), "ns/a"},
		{"cluster-scoped", nil, mk("", "node-1"), "node-1"},
		{"custom", func(o *tobj) string { return "uid:" + o.Name }, mk("ns", "a"), "uid:a"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s := New(Options[*tobj]{KeyFunc: tc.kf})
			s.Set(tc.obj)
			if got := s.KeyOf(tc.obj); got != tc.want {
				t.Fatalf("KeyOf = %q, want %q", got, tc.want)
			}
			if got, ok := s.Get(tc.want); !ok || got != tc.obj {
				t.Fatalf("Get(%q) = %v, %v", tc.want, got, ok)
			}
		})
	}
}

func TestSetGet(t *testing.T) {
	a1, a2, b := mk("ns", "a", rev(1)), mk("ns", "a", rev(2)), mk("ns", "b")
	s := newTestStore()
	steps := []struct {
		name      string
		set       *tobj
		wantOld   *tobj
		wantExist bool
	}{
		{"add a", a1, nil, false},
		{"add b", b, nil, false},
		{"update a", a2, a1, true},
		{"same object again", a2, a2, true},
	}
	for _, st := range steps {
		old, existed := s.Set(st.set)
		if old != st.wantOld || existed != st.wantExist {
			t.Fatalf("%s: Set = (%v, %v), want (%v, %v)", st.name, old, existed, st.wantOld, st.wantExist)
		}
	}
	for _, tc := range []struct {
		key  string
		want *tobj
		ok   bool
	}{
		{"ns/a", a2, true}, {"ns/b", b, true}, {"ns/c", nil, false}, {"a", nil, false}, {"", nil, false},
	} {
		got, ok := s.Get(tc.key)
		if got != tc.want || ok != tc.ok {
			t.Errorf("Get(%q) = (%v, %v), want (%v, %v)", tc.key, got, ok, tc.want, tc.ok)
		}
	}
	if s.Len() != 2 {
		t.Errorf("Len = %d, want 2", s.Len())
	}
}

func TestDelete(t *testing.T) {
	a, b := mk("ns", "a", labels("app", "x")), mk("ns", "b", labels("app", "x"))
	for _, tc := range []struct {
		name      string
		del       func(s *Store[*tobj]) (*tobj, bool)
		wantOld   *tobj
		wantExist bool
		wantKeys  []string // IndexKeys(label, app=x) afterwards
	}{
		{"by key", func(s *Store[*tobj]) (*tobj, bool) { return s.Delete("ns/a") }, a, true, []string{"ns/b"}},
		{"by object", func(s *Store[*tobj]) (*tobj, bool) { return s.DeleteObject(mk("ns", "b")) }, b, true, []string{"ns/a"}},
		{"missing", func(s *Store[*tobj]) (*tobj, bool) { return s.Delete("ns/zz") }, nil, false, []string{"ns/a", "ns/b"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s := newTestStore(a, b)
			old, existed := tc.del(s)
			if old != tc.wantOld || existed != tc.wantExist {
				t.Fatalf("got (%v, %v), want (%v, %v)", old, existed, tc.wantOld, tc.wantExist)
			}
			keys, err := s.IndexKeys(IndexLabel, "app=x")
			if err != nil || !slices.Equal(keys, tc.wantKeys) {
				t.Fatalf("IndexKeys = %v, %v; want %v", keys, err, tc.wantKeys)
			}
			if s.Len() != len(tc.wantKeys) {
				t.Fatalf("Len = %d, want %d", s.Len(), len(tc.wantKeys))
			}
		})
	}
}

func TestListAndListKeys(t *testing.T) {
	for _, tc := range []struct {
		name  string
		items []*tobj
	}{
		{"empty", nil},
		{"one", []*tobj{mk("a", "x")}},
		{"several namespaces", []*tobj{mk("a", "x"), mk("b", "x"), mk("", "n1"), mk("a", "y")}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s := newTestStore(tc.items...)
			want := sortedKeys(tc.items)
			if got := sortedKeys(s.List()); !slices.Equal(got, want) {
				t.Errorf("List keys = %v, want %v", got, want)
			}
			got := s.ListKeys()
			slices.Sort(got)
			if !slices.Equal(got, want) {
				t.Errorf("ListKeys = %v, want %v", got, want)
			}
			if s.Len() != len(want) {
				t.Errorf("Len = %d, want %d", s.Len(), len(want))
			}
		})
	}
}

func TestUpdateMovesIndexEntries(t *testing.T) {
	s := newTestStore(mk("ns", "p", labels("app", "a"), owners("o1"), node("n1")))
	s.Set(mk("ns", "p", labels("app", "b"), owners("o2"), node("n2")))
	for _, tc := range []struct {
		index, value string
		want         []string
	}{
		{IndexLabel, "app=a", nil}, {IndexLabel, "app=b", []string{"ns/p"}},
		{IndexOwner, "o1", nil}, {IndexOwner, "o2", []string{"ns/p"}},
		{"node", "n1", nil}, {"node", "n2", []string{"ns/p"}},
		{IndexNamespace, "ns", []string{"ns/p"}},
	} {
		if got, _ := s.IndexKeys(tc.index, tc.value); !slices.Equal(got, tc.want) {
			t.Errorf("IndexKeys(%s, %s) = %v, want %v", tc.index, tc.value, got, tc.want)
		}
	}
}

func TestApply(t *testing.T) {
	a1, a2, b := mk("ns", "a", rev(1), labels("k", "1")), mk("ns", "a", rev(2), labels("k", "2")), mk("ns", "b")
	s := newTestStore(a1)
	ops := []Op[*tobj]{
		{Obj: b},
		{Obj: a2},
		{Delete: true, Key: "ns/b"},
		{Delete: true, Obj: mk("ns", "zz")},
		{Obj: b, Key: "custom-key"},
	}
	s.Apply(ops)
	for i, want := range []struct {
		old     *tobj
		existed bool
	}{{nil, false}, {a1, true}, {b, true}, {nil, false}, {nil, false}} {
		if ops[i].Old != want.old || ops[i].Existed != want.existed {
			t.Errorf("op %d: Old/Existed = %v/%v, want %v/%v", i, ops[i].Old, ops[i].Existed, want.old, want.existed)
		}
	}
	got := s.ListKeys()
	slices.Sort(got)
	if !slices.Equal(got, []string{"custom-key", "ns/a"}) {
		t.Errorf("keys = %v", got)
	}
	if k, _ := s.IndexKeys(IndexLabel, "k=2"); !slices.Equal(k, []string{"ns/a"}) {
		t.Errorf("IndexKeys(k=2) = %v", k)
	}
	if k, _ := s.IndexKeys(IndexLabel, "k=1"); k != nil {
		t.Errorf("IndexKeys(k=1) = %v, want none", k)
	}
	s.Apply(nil) // an empty batch is a no-op
}

func TestReplace(t *testing.T) {
	s := fixture()
	oldTable := s.tab.Load()
	x1, x2 := mk("default", "x", rev(1), labels("app", "web")), mk("default", "x", rev(2), labels("app", "new"))
	s.Replace([]*tobj{x1, mk("new", "y", labels("app", "new")), x2})
	for _, tc := range []struct {
		index, value string
		want         []string
	}{
		{IndexNamespace, "default", []string{"default/x"}},
		{IndexNamespace, "kube-system", nil},
		{IndexLabel, "app=web", nil}, // x1 was replaced by x2 within the list
		{IndexLabel, "app=new", []string{"default/x", "new/y"}},
		{IndexOwner, "rs1", nil},
	} {
		got, err := s.ByIndex(tc.index, tc.value)
		if err != nil || !slices.Equal(keysOf(got), tc.want) {
			t.Errorf("ByIndex(%s, %s) = %v, %v; want %v", tc.index, tc.value, keysOf(got), err, tc.want)
		}
	}
	if got, _ := s.Get("default/x"); got != x2 {
		t.Errorf("Get(default/x) = %v, want the last object given", got)
	}
	if s.Len() != 2 {
		t.Errorf("Len = %d, want 2", s.Len())
	}
	// The table a reader loaded before the swap is frozen and complete.
	if n := oldTable.n.Load(); n != 5 {
		t.Errorf("old table has %d items, want 5", n)
	}
	sn := oldTable.snap.Load()
	i, _ := sn.lookup(IndexNamespace)
	n := 0
	sn.tops[i].Ascend(func(g group[*tobj]) bool {
		n += g.h.keys.Load().Len()
		return true
	})
	if n != 5 {
		t.Errorf("old namespace index has %d entries, want 5", n)
	}
	s.Replace(nil)
	if s.Len() != 0 || s.ListIndexValues(IndexLabel) != nil {
		t.Errorf("after Replace(nil): Len %d, values %v", s.Len(), s.ListIndexValues(IndexLabel))
	}
}

func TestAddIndexers(t *testing.T) {
	s := New(Options[*tobj]{})
	s.Set(mk("a", "1", node("n1")))
	s.Set(mk("b", "2", node("n1")))
	if _, err := s.ByIndex("node", "n1"); !errors.Is(err, ErrNoIndex) {
		t.Fatalf("before AddIndexers: err = %v", err)
	}
	for _, tc := range []struct {
		name string
		add  Indexers[*tobj]
		err  error
	}{
		{"none", nil, nil},
		{"node and namespace", Indexers[*tobj]{"node": byNode, IndexNamespace: nil}, nil},
		{"again", Indexers[*tobj]{"node": byNode}, ErrIndexExists},
		{"nil user func", Indexers[*tobj]{"zone": nil}, ErrNilIndexFunc},
		{"all or none", Indexers[*tobj]{IndexLabel: nil, "node": byNode}, ErrIndexExists},
		{"user func under a built-in name", Indexers[*tobj]{IndexOwner: func(o *tobj) []string { return []string{"custom"} }}, nil},
	} {
		if err := s.AddIndexers(tc.add); !errors.Is(err, tc.err) {
			t.Errorf("%s: err = %v, want %v", tc.name, err, tc.err)
		}
	}
	if got, _ := s.IndexKeys("node", "n1"); !slices.Equal(got, []string{"a/1", "b/2"}) {
		t.Errorf("node index built from current items: %v", got)
	}
	if _, err := s.IndexKeys(IndexLabel, "x"); !errors.Is(err, ErrNoIndex) {
		t.Errorf("label index added by a failed call: err = %v", err)
	}
	if got, _ := s.IndexKeys(IndexOwner, "custom"); len(got) != 2 {
		t.Errorf("custom owner index: %v", got)
	}
	s.Set(mk("c", "3", node("n1")))
	if got, _ := s.IndexKeys("node", "n1"); !slices.Equal(got, []string{"a/1", "b/2", "c/3"}) {
		t.Errorf("node index after a later Set: %v", got)
	}
}

// A reader holding an old snapshot must not report an object under a value
// it has left since: the version's gen tells it to recheck.
func TestOldSnapshotRechecks(t *testing.T) {
	s := newTestStore(mk("ns", "moved", labels("app", "a")), mk("ns", "stays", labels("app", "a"), rev(1)))
	old := s.tab.Load().snap.Load()
	i, _ := old.lookup(IndexLabel)
	set := old.keys(i, "app=a")                          // the key set as published then
	s.Set(mk("ns", "moved", labels("app", "b")))         // changes index values: gen bumps
	s.Set(mk("ns", "stays", labels("app", "a"), rev(2))) // status-like update: same values
	var got []string
	set.Ascend(func(e kentry[*tobj]) bool {
		if o, ok := old.resolve(i, "app=a", e); ok {
			got = append(got, fmt.Sprintf("%s rev%d", o.Key(), o.Rev))
		}
		return true
	})
	if want := []string{"ns/stays rev2"}; !slices.Equal(got, want) {
		t.Fatalf("old key set resolves to %q, want %q", got, want)
	}
	// Through the old snapshot's top tree a reader finds the value's
	// current key set.
	if cur := old.keys(i, "app=a"); cur.Len() != 1 {
		t.Fatalf("old snapshot finds %d keys under app=a, want 1", cur.Len())
	}
	s.Delete("ns/stays")
	got = got[:0]
	set.Ascend(func(e kentry[*tobj]) bool {
		if _, ok := old.resolve(i, "app=a", e); ok {
			got = append(got, e.key)
		}
		return true
	})
	if len(got) != 0 {
		t.Fatalf("deleted keys still resolve: %v", got)
	}
	if cur := old.keys(i, "app=a"); cur != nil {
		t.Fatalf("emptied value still has a key set in an old snapshot: %d keys", cur.Len())
	}
}

// Index values are interned: an index keeps one copy of each value, never
// an object's own strings, and drops values nobody uses.
func TestInterning(t *testing.T) {
	s := newTestStore()
	a := mk("ns", "a", labels("app", "web"), owners("u1"))
	b := mk("ns", "b", labels("app", "web"), owners("u1"))
	s.Set(a)
	s.Set(b)
	t.Run("not the object's strings", func(t *testing.T) {
		sn := s.tab.Load().snap.Load()
		for _, index := range []string{IndexLabel, IndexOwner, IndexNamespace} {
			i, _ := sn.lookup(index)
			if sn.tops[i].Len() != 1 {
				t.Fatalf("%s: %d values, want 1", index, sn.tops[i].Len())
			}
			g, _ := sn.tops[i].Min()
			p := unsafe.StringData(g.value)
			if p == unsafe.StringData(a.Namespace) || p == unsafe.StringData(a.OwnerReferences[0].UID) ||
				p == unsafe.StringData(b.Namespace) || p == unsafe.StringData(b.OwnerReferences[0].UID) {
				t.Errorf("%s: value %q points into an object", index, g.value)
			}
		}
	})
	t.Run("released", func(t *testing.T) {
		s.Set(mk("ns", "a", labels("app", "db"), owners("u2")))
		s.Delete("ns/b")
		s.Delete("ns/a")
		for _, w := range s.tab.Load().w {
			if len(w.in.m) != 0 {
				t.Errorf("%s: interner keeps %v", w.def.name, w.in.m)
			}
		}
	})
}

// An index func may return a slice it does not own (here the object's own
// finalizers): the store must not reorder or change it.
func TestIndexFuncResultNotModified(t *testing.T) {
	s := New(Options[*tobj]{Indexers: Indexers[*tobj]{
		"fin": func(o *tobj) []string { return o.Finalizers },
	}})
	o := mk("ns", "a")
	o.Finalizers = []string{"z", "a", "z", "m"}
	s.Set(o)
	if !slices.Equal(o.Finalizers, []string{"z", "a", "z", "m"}) {
		t.Fatalf("finalizers modified: %v", o.Finalizers)
	}
	if got := s.ListIndexValues("fin"); !slices.Equal(got, []string{"a", "m", "z"}) {
		t.Fatalf("values = %v", got)
	}
}

func TestGetAllocatesNothing(t *testing.T) {
	s := fixture()
	if n := testing.AllocsPerRun(100, func() { s.Get("default/web-1") }); n != 0 {
		t.Errorf("Get allocates %v times", n)
	}
	if n := testing.AllocsPerRun(100, func() { _, _ = s.ByIndex(IndexNamespace, "default") }); n != 1 {
		t.Errorf("ByIndex allocates %v times, want 1 (the result)", n)
	}
	buf := make([]*tobj, 0, 16)
	if n := testing.AllocsPerRun(100, func() { buf, _ = s.AppendByIndex(buf[:0], IndexNamespace, "default") }); n != 0 {
		t.Errorf("AppendByIndex into a large enough buffer allocates %v times", n)
	}
	// An update that keeps its index values allocates its key only (the
	// KeyFunc's string): no version record, no tree copy, no label strings.
	b := New(Options[*tobj]{Indexers: BuiltinIndexers[*tobj]()})
	objs := []*tobj{
		mk("default", "web-1", labels("app", "web", "tier", "fe"), owners("rs1"), rev(1)),
		mk("default", "web-1", labels("app", "web", "tier", "fe"), owners("rs1"), rev(2)),
	}
	i := 0
	if n := testing.AllocsPerRun(100, func() { b.Set(objs[i%2]); i++ }); n != 1 {
		t.Errorf("Set of an update with unchanged index values allocates %v times, want 1", n)
	}
}

// An update of an existing key leaves the item table's shape alone: it
// swaps object pointers (in the cell and its slot) but no slot gets another
// cell and the table is never rebuilt by updates.
func TestUpdateLeavesItemTableAlone(t *testing.T) {
	s := fixture()
	tab := s.tab.Load()
	it := tab.items.Load()
	before := make([]*cell[*tobj], len(it.slots))
	for i := range it.slots {
		before[i] = it.slots[i].c.Load()
	}
	s.Set(mk("default", "web-1", labels("app", "moved"), node("n9")))
	s.Apply([]Op[*tobj]{{Obj: mk("default", "db-0", labels("app", "db"), rev(2))}})
	if tab.items.Load() != it {
		t.Fatal("an update rebuilt the item table")
	}
	for i := range it.slots {
		if c := it.slots[i].c.Load(); c != before[i] {
			t.Fatalf("an update changed slot %d", i)
		}
	}
	if keys, _ := s.IndexKeys(IndexLabel, "app=moved"); !slices.Equal(keys, []string{"default/web-1"}) {
		t.Fatalf("IndexKeys(app=moved) = %v", keys)
	}
}

// A slot is two words (cell, hash), so that a probe reads four per cache
// line; List's scan reads objs, one word a slot.
func TestSlotIsTwoWords(t *testing.T) {
	if n := unsafe.Sizeof(slot[*tobj]{}); n != 16 {
		t.Fatalf("slot is %d bytes, want 16", n)
	}
}

// A cell holds its object as one atomic pointer word, so the object type
// must be a pointer type; New says so at once instead of storing garbage.
func TestNewPanicsOnNonPointerType(t *testing.T) {
	defer func() {
		if r := recover(); r == nil || !strings.Contains(fmt.Sprint(r), "not a pointer type") {
			t.Fatalf("recover() = %v, want a panic naming the non-pointer type", r)
		}
	}()
	New(Options[api.Object]{})
}
