package store

import (
	"errors"
	"fmt"
	"maps"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"github.com/kcmlab/kcm/kube/api"
)

// The property test drives a Store and a dumb oracle — a plain map and
// linear scans over the reference index funcs — through random operation
// sequences and, after every step, compares every read and every index
// query, plus the store's internal invariants.

// oracleFuncs are the reference definitions of every index the test uses.
var oracleFuncs = map[string]IndexFunc[*tobj]{
	IndexNamespace: NamespaceIndexFunc[*tobj],
	IndexLabel:     LabelIndexFunc[*tobj],
	IndexOwner:     OwnerIndexFunc[*tobj],
	"node":         byNode,
	// Returns the object's own slice, duplicates included.
	"fin": func(o *tobj) []string { return o.Finalizers },
	// Several values per object, one repeated.
	"multi": func(o *tobj) []string { return []string{"m:" + o.Namespace, "m:" + o.Name, "m:" + o.Namespace} },
}

// storeIndexers is how the store is told about each index: built-ins by
// name, user funcs as themselves.
func storeIndexers(names ...string) Indexers[*tobj] {
	out := Indexers[*tobj]{}
	for _, n := range names {
		switch n {
		case IndexNamespace, IndexLabel, IndexOwner:
			out[n] = nil
		default:
			out[n] = oracleFuncs[n]
		}
	}
	return out
}

type oracle struct {
	items   map[string]*tobj
	indexes map[string]bool
}

type pair struct{ value, key string }

// entries lists the (value, key) pairs of an index by linear scan, sorted
// and without duplicates.
func (o *oracle) entries(index string) []pair {
	var out []pair
	for k, obj := range o.items {
		for _, v := range oracleFuncs[index](obj) {
			out = append(out, pair{v, k})
		}
	}
	slices.SortFunc(out, func(a, b pair) int {
		if c := strings.Compare(a.value, b.value); c != 0 {
			return c
		}
		return strings.Compare(a.key, b.key)
	})
	return slices.Compact(out)
}

func (o *oracle) set(obj *tobj) (*tobj, bool) {
	old, ok := o.items[obj.Key()]
	o.items[obj.Key()] = obj
	return old, ok
}

func (o *oracle) del(key string) (*tobj, bool) {
	old, ok := o.items[key]
	delete(o.items, key)
	return old, ok
}

// gen makes random objects from a small universe so that keys, values and
// owners collide often.
type gen struct{ r *rand.Rand }

var (
	genNS     = []string{"", "a", "b", "c"}
	genLabelK = []string{"app", "tier", "env", "a", "a=b"} // "a"="b=c" and "a=b"="c" give one value
	genLabelV = []string{"", "1", "2", "c", "b=c"}
	genUIDs   = []string{"u1", "u2", "u3"}
	genNodes  = []string{"", "n1", "n2"}
	genFins   = []string{"f1", "f2", "f3"}
)

func (g gen) pick(s []string) string { return s[g.r.IntN(len(s))] }

func (g gen) key() string {
	ns, name := g.pick(genNS), fmt.Sprint(g.r.IntN(10))
	if ns == "" {
		return name
	}
	return ns + "/" + name
}

func (g gen) obj() *tobj {
	o := &tobj{}
	o.Namespace, o.Name = g.pick(genNS), fmt.Sprint(g.r.IntN(10))
	o.Rev = g.r.IntN(1000)
	if n := g.r.IntN(4); n > 0 {
		o.Labels = map[string]string{}
		for range n {
			o.Labels[g.pick(genLabelK)] = g.pick(genLabelV)
		}
	}
	for range g.r.IntN(4) {
		o.OwnerReferences = append(o.OwnerReferences, api.OwnerReference{UID: g.pick(genUIDs)})
	}
	o.Node = g.pick(genNodes)
	for range g.r.IntN(4) {
		o.Finalizers = append(o.Finalizers, g.pick(genFins))
	}
	return o
}

// sameIndexes copies o with a new Rev only: an update that keeps every
// index value (the common status update).
func sameIndexes(o *tobj) *tobj {
	c := *o
	c.Rev++
	return &c
}

func TestPropertyAgainstOracle(t *testing.T) {
	seeds, steps := 200, 60
	if testing.Short() || raceEnabled {
		seeds = 30
	}
	for seed := range seeds {
		runProperty(t, uint64(seed), steps)
		if t.Failed() {
			t.Fatalf("seed %d failed", seed)
		}
	}
}

func runProperty(t *testing.T, seed uint64, steps int) {
	g := gen{rand.New(rand.NewPCG(seed, 99))}
	all := slices.Sorted(maps.Keys(oracleFuncs))
	var initial []string
	for _, n := range all {
		if g.r.IntN(2) == 0 {
			initial = append(initial, n)
		}
	}
	s := New(Options[*tobj]{Indexers: storeIndexers(initial...)})
	o := &oracle{items: map[string]*tobj{}, indexes: map[string]bool{}}
	for _, n := range initial {
		o.indexes[n] = true
	}
	for step := range steps {
		what := applyRandom(t, g, s, o, all)
		if t.Failed() {
			t.Fatalf("seed %d step %d (%s)", seed, step, what)
		}
		checkStore(t, g, s, o)
		if t.Failed() {
			t.Fatalf("seed %d step %d (%s): store and oracle disagree", seed, step, what)
		}
	}
}

func applyRandom(t *testing.T, g gen, s *Store[*tobj], o *oracle, all []string) string {
	switch p := g.r.IntN(100); {
	case p < 40:
		obj := g.obj()
		gotOld, gotOK := s.Set(obj)
		wantOld, wantOK := o.set(obj)
		if gotOld != wantOld || gotOK != wantOK {
			t.Errorf("Set returned (%v, %v), want (%v, %v)", gotOld, gotOK, wantOld, wantOK)
		}
		return "set"
	case p < 50:
		keys := slices.Sorted(maps.Keys(o.items))
		if len(keys) == 0 {
			return "noop"
		}
		obj := sameIndexes(o.items[keys[g.r.IntN(len(keys))]])
		s.Set(obj)
		o.set(obj)
		return "update keeping index values"
	case p < 68:
		key := g.key()
		gotOld, gotOK := s.Delete(key)
		wantOld, wantOK := o.del(key)
		if gotOld != wantOld || gotOK != wantOK {
			t.Errorf("Delete returned (%v, %v), want (%v, %v)", gotOld, gotOK, wantOld, wantOK)
		}
		return "delete"
	case p < 85:
		ops := make([]Op[*tobj], g.r.IntN(7))
		for i := range ops {
			if g.r.IntN(3) == 0 {
				ops[i] = Op[*tobj]{Delete: true, Key: g.key()}
			} else {
				ops[i] = Op[*tobj]{Obj: g.obj()}
			}
		}
		s.Apply(ops)
		for i, op := range ops {
			var wantOld *tobj
			var wantOK bool
			if op.Delete {
				wantOld, wantOK = o.del(op.Key)
			} else {
				wantOld, wantOK = o.set(op.Obj)
			}
			if op.Old != wantOld || op.Existed != wantOK {
				t.Errorf("Apply op %d: (%v, %v), want (%v, %v)", i, op.Old, op.Existed, wantOld, wantOK)
			}
		}
		return "apply"
	case p < 89:
		items := make([]*tobj, g.r.IntN(25))
		o.items = map[string]*tobj{}
		for i := range items {
			items[i] = g.obj()
			o.set(items[i])
		}
		s.Replace(items)
		return "replace"
	case p < 93:
		replaceOps(t, g, s, o)
		return "replace ops"
	default:
		var add []string
		for _, n := range all {
			if !o.indexes[n] && g.r.IntN(2) == 0 {
				add = append(add, n)
			}
		}
		err := s.AddIndexers(storeIndexers(add...))
		if err != nil {
			t.Errorf("AddIndexers(%v): %v", add, err)
		}
		for _, n := range add {
			o.indexes[n] = true
		}
		if len(o.indexes) > 0 {
			existing := slices.Sorted(maps.Keys(o.indexes))[0]
			if err := s.AddIndexers(storeIndexers(existing)); !errors.Is(err, ErrIndexExists) {
				t.Errorf("AddIndexers(%s) again: %v", existing, err)
			}
		}
		return fmt.Sprintf("add indexers %v", add)
	}
}

func checkStore(t *testing.T, g gen, s *Store[*tobj], o *oracle) {
	t.Helper()
	checkItems(t, s, o)
	for _, index := range slices.Sorted(maps.Keys(oracleFuncs)) {
		if !o.indexes[index] {
			if _, err := s.ByIndex(index, "x"); !errors.Is(err, ErrNoIndex) {
				t.Errorf("ByIndex on absent index %s: %v", index, err)
			}
			continue
		}
		checkIndex(t, g, s, o, index)
	}
	checkInternals(t, s, o)
}

func checkItems(t *testing.T, s *Store[*tobj], o *oracle) {
	t.Helper()
	if s.Len() != len(o.items) {
		t.Errorf("Len = %d, want %d", s.Len(), len(o.items))
	}
	list := s.List()
	for _, obj := range list {
		if o.items[obj.Key()] != obj {
			t.Errorf("List has %s not in the oracle", obj.Key())
		}
	}
	if len(list) != len(o.items) {
		t.Errorf("List has %d items, want %d", len(list), len(o.items))
	}
	keys := s.ListKeys()
	slices.Sort(keys)
	if want := slices.Sorted(maps.Keys(o.items)); !slices.Equal(keys, want) {
		t.Errorf("ListKeys = %v, want %v", keys, want)
	}
	for _, ns := range genNS {
		for n := range 10 {
			key := (&api.ObjectMeta{Namespace: ns, Name: fmt.Sprint(n)}).Key()
			got, ok := s.Get(key)
			want, wantOK := o.items[key]
			if got != want || ok != wantOK {
				t.Errorf("Get(%s) = (%v, %v), want (%v, %v)", key, got, ok, want, wantOK)
			}
		}
	}
}

func checkIndex(t *testing.T, g gen, s *Store[*tobj], o *oracle, index string) {
	t.Helper()
	ents := o.entries(index)
	var values []string
	byValue := map[string][]string{}
	for _, e := range ents {
		if len(values) == 0 || values[len(values)-1] != e.value {
			values = append(values, e.value)
		}
		byValue[e.value] = append(byValue[e.value], e.key)
	}
	if got := s.ListIndexValues(index); !slices.Equal(got, values) {
		t.Errorf("%s: ListIndexValues = %q, want %q", index, got, values)
	}
	for vi, v := range append(slices.Clone(values), "", "zz", "app=") {
		want := byValue[v]
		objs, err := s.ByIndex(index, v)
		if err != nil || !slices.Equal(keysOf(objs), want) {
			t.Errorf("%s: ByIndex(%q) = %v, %v; want %v", index, v, keysOf(objs), err, want)
		}
		for _, obj := range objs {
			if o.items[obj.Key()] != obj {
				t.Errorf("%s: ByIndex(%q) returned a stale object for %s", index, v, obj.Key())
			}
		}
		if app, err := s.AppendByIndex(nil, index, v); err != nil || !slices.Equal(keysOf(app), want) {
			t.Errorf("%s: AppendByIndex(%q) = %v, want %v", index, v, keysOf(app), want)
		}
		if keys, err := s.IndexKeys(index, v); err != nil || !slices.Equal(keys, want) {
			t.Errorf("%s: IndexKeys(%q) = %v, want %v", index, v, keys, want)
		}
		if n, err := s.IndexLen(index, v); err != nil || n != len(want) {
			t.Errorf("%s: IndexLen(%q) = %d, %v; want %d", index, v, n, err, len(want))
		}
		if vi%3 != 0 {
			continue // pages for a third of the values keep the test quick
		}
		limit := 1 + g.r.IntN(3)
		var paged []string
		after := ""
		for range len(want) + 2 {
			page, next, err := s.ByIndexPage(index, v, after, limit)
			if err != nil || len(page) > limit {
				t.Errorf("%s: ByIndexPage(%q, %q, %d) = %d items, %v", index, v, after, limit, len(page), err)
			}
			paged = append(paged, keysOf(page)...)
			if next == "" {
				break
			}
			after = next
		}
		if !slices.Equal(paged, want) {
			t.Errorf("%s: pages of %q = %v, want %v", index, v, paged, want)
		}
	}
	checkRange(t, g, s, index, ents, values)
}

func checkRange(t *testing.T, g gen, s *Store[*tobj], index string, ents []pair, values []string) {
	t.Helper()
	bounds := append(slices.Clone(values), "", "a", "m:", "zz", "app=", "app>")
	from, to := g.pick(bounds), g.pick(bounds)
	var want []string
	for _, e := range ents {
		if e.value >= from && (to == "" || e.value < to) {
			want = append(want, e.key)
		}
	}
	all, next, err := s.ByIndexRange(index, from, to, Cursor{}, 0)
	if err != nil || next != (Cursor{}) || !slices.Equal(keysOf(all), want) {
		t.Errorf("%s: ByIndexRange(%q, %q) = %v next %v err %v; want %v", index, from, to, keysOf(all), next, err, want)
	}
	limit := 1 + g.r.IntN(4)
	var paged []string
	var after Cursor
	for range len(want) + 2 {
		page, next, err := s.ByIndexRange(index, from, to, after, limit)
		if err != nil || len(page) > limit {
			t.Errorf("%s: ByIndexRange page after %v: %d items, %v", index, after, len(page), err)
		}
		paged = append(paged, keysOf(page)...)
		if next == (Cursor{}) {
			break
		}
		after = next
	}
	if !slices.Equal(paged, want) {
		t.Errorf("%s: range pages [%q, %q) = %v, want %v", index, from, to, paged, want)
	}
}

// checkInternals checks what the public API cannot show: every published
// change is visible (no version newer than the snapshot), entries point at
// the live cell of their key, the writer's trees equal the published ones,
// no value is published empty, and the interners count exactly the values
// in use.
func checkInternals(t *testing.T, s *Store[*tobj], o *oracle) {
	t.Helper()
	tab := s.tab.Load()
	sn := tab.snap.Load()
	cells := map[string]*cell[*tobj]{}
	checkItemTable(t, s, tab)
	tab.forLive(func(c *cell[*tobj], _ *tobj) {
		cells[c.key] = c
		if g := c.gen.Load(); g > sn.gen {
			t.Errorf("%s: cell gen %d newer than snapshot %d", c.key, g, sn.gen)
		}
	})
	for i, w := range tab.w {
		if len(w.dirty) != 0 || w.topDirty {
			t.Errorf("%s: writer changes not published", w.def.name)
		}
		if w.top.Len() != sn.tops[i].Len() || len(w.byValue) != w.top.Len() {
			t.Errorf("%s: top trees: writer %d, snapshot %d, byValue %d", w.def.name, w.top.Len(), sn.tops[i].Len(), len(w.byValue))
		}
		sn.tops[i].Ascend(func(g group[*tobj]) bool {
			set := g.h.keys.Load()
			switch {
			case set == nil || set.Len() == 0:
				t.Errorf("%s: value %q published without keys", w.def.name, g.value)
			case w.byValue[g.value] != g.h || g.h.value != g.value:
				t.Errorf("%s: value %q has a stray holder", w.def.name, g.value)
			case g.h.w.Len() != set.Len():
				t.Errorf("%s: value %q: writer has %d keys, published %d", w.def.name, g.value, g.h.w.Len(), set.Len())
			default:
				set.Ascend(func(e kentry[*tobj]) bool {
					if cells[e.key] != e.c {
						t.Errorf("%s: entry %s/%s does not point at its key's cell", w.def.name, g.value, e.key)
					}
					return true
				})
			}
			return true
		})
		want := map[internKey]int{}
		for _, obj := range o.items {
			for _, k := range w.def.keys(nil, obj) {
				want[k]++
			}
		}
		got := map[internKey]int{}
		for k, r := range w.in.m {
			got[k] = r.n
		}
		if !maps.Equal(got, want) {
			t.Errorf("%s: interner counts %v, want %v", w.def.name, got, want)
		}
	}
}

// replaceOps replaces the content with ReplaceOps and checks what it
// reports against the oracle: each op's Old and Existed (the content
// before, the same for a key given twice), and the removed keys in key
// order with their last objects.
func replaceOps(t *testing.T, g gen, s *Store[*tobj], o *oracle) {
	t.Helper()
	before := maps.Clone(o.items)
	ops := make([]Op[*tobj], g.r.IntN(25))
	o.items = map[string]*tobj{}
	for i := range ops {
		ops[i].Obj = g.obj()
		o.set(ops[i].Obj)
	}
	removed := s.ReplaceOps(ops, nil)
	for i, op := range ops {
		want, ok := before[op.Obj.Key()]
		if op.Old != want || op.Existed != ok || op.Key != op.Obj.Key() {
			t.Errorf("ReplaceOps op %d (%s): (%v, %v), want (%v, %v)", i, op.Key, op.Old, op.Existed, want, ok)
		}
	}
	var wantGone []string
	for _, k := range slices.Sorted(maps.Keys(before)) {
		if _, kept := o.items[k]; !kept {
			wantGone = append(wantGone, k)
		}
	}
	var gone []string
	for _, r := range removed {
		gone = append(gone, r.Key)
		if !r.Delete || !r.Existed || r.Old != before[r.Key] {
			t.Errorf("ReplaceOps removed %s: %+v, want a Delete of %v", r.Key, r, before[r.Key])
		}
	}
	if !slices.Equal(gone, wantGone) {
		t.Errorf("ReplaceOps removed %v, want %v", gone, wantGone)
	}
}
