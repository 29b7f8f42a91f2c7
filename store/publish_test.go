package store

import (
	"runtime"
	"testing"

	"github.com/google/btree"
)

// Publishing: what a write makes readers see, and what it must not cost.

// TestUnindexedWritesPublishNothing: a store without indexes has no index
// state for readers, so no write (add, update, delete, batch) makes a new
// snapshot or a new generation, and versions carry generation 0. When
// indexes are added later, every stored version is then no newer than the
// snapshot that indexes it (gen <= snapshot gen: readers trust its entries).
func TestUnindexedWritesPublishNothing(t *testing.T) {
	s := New(Options[*tobj]{})
	sn := s.tab.Load().snap.Load()
	for _, w := range []struct {
		name  string
		write func()
	}{
		{"add", func() { s.Set(mk("ns", "a", labels("app", "x"))) }},
		{"update", func() { s.Set(mk("ns", "a", labels("app", "y"))) }},
		{"delete", func() { s.Delete("ns/a") }},
		{"delete missing", func() { s.Delete("ns/zz") }},
		{"apply add and delete", func() {
			s.Apply([]Op[*tobj]{{Obj: mk("ns", "b")}, {Obj: mk("ns", "c")}, {Delete: true, Key: "ns/b"}})
		}},
	} {
		w.write()
		if got := s.tab.Load().snap.Load(); got != sn || s.gen != 0 {
			t.Fatalf("%s: published a snapshot (gen %d) without indexes", w.name, s.gen)
		}
	}
	c := cellOf(s, "ns/c")
	if g := c.gen.Load(); g != 0 {
		t.Fatalf("cell in an unindexed store has gen %d, want 0", g)
	}
	if err := s.AddIndexers(BuiltinIndexers[*tobj]()); err != nil {
		t.Fatal(err)
	}
	if g, sn := c.gen.Load(), s.tab.Load().snap.Load(); g > sn.gen {
		t.Fatalf("after AddIndexers a cell has gen %d, newer than the snapshot's %d", g, sn.gen)
	}
}

// TestAddStampsGeneration: a key added to an indexed store carries the
// generation of the write that added it, which that write publishes; a
// reader of an older snapshot then knows to recheck it.
func TestAddStampsGeneration(t *testing.T) {
	s := newTestStore(mk("ns", "a"))
	before := s.tab.Load().snap.Load().gen
	s.Set(mk("ns", "b"))
	sn := s.tab.Load().snap.Load()
	g := cellOf(s, "ns/b").gen.Load()
	if sn.gen != before+1 || g != sn.gen {
		t.Fatalf("add: snapshot gen %d (was %d), cell gen %d; want both %d", sn.gen, before, g, before+1)
	}
}

// TestUpdateMovesOnlyChangedValues: an update republishes the key sets of
// the values it left or joined and no other: a label change leaves the
// key set of the object's unchanged labels as it was (the package
// documentation's "moves only that label's entry").
func TestUpdateMovesOnlyChangedValues(t *testing.T) {
	s := newTestStore(mk("ns", "p", labels("app", "web", "tier", "fe")))
	keySet := func(value string) *btree.BTreeG[kentry[*tobj]] {
		sn := s.tab.Load().snap.Load()
		i, _ := sn.lookup(IndexLabel)
		return sn.keys(i, value)
	}
	app, tier := keySet("app=web"), keySet("tier=fe")
	s.Set(mk("ns", "p", labels("app", "web", "tier", "be")))
	if keySet("app=web") != app {
		t.Error("the unchanged label's key set was republished")
	}
	if keySet("tier=fe") == tier || keySet("tier=fe") != nil {
		t.Error("the left label's key set was not emptied")
	}
	if keys, _ := s.IndexKeys(IndexLabel, "tier=be"); len(keys) != 1 {
		t.Errorf("tier=be holds %v", keys)
	}
}

// TestQueriesRecheckOnlyChangedObjects: a reader trusts an entry whose
// object did not change index values after the reader's snapshot, so a
// query on a quiescent store calls no IndexFunc; one on an object moved
// after the snapshot calls it to recheck (package documentation, "What a
// reader racing a writer can observe").
func TestQueriesRecheckOnlyChangedObjects(t *testing.T) {
	calls := 0
	ix := Indexers[*tobj]{"node": func(o *tobj) []string { calls++; return byNode(o) }}
	s := New(Options[*tobj]{Indexers: ix})
	s.Set(mk("ns", "a", node("n1")))
	s.Set(mk("ns", "b", node("n1")))
	calls = 0
	if objs, _ := s.ByIndex("node", "n1"); len(objs) != 2 || calls != 0 {
		t.Fatalf("quiescent ByIndex: %d objects, %d IndexFunc calls; want 2, 0", len(objs), calls)
	}
	old := s.tab.Load().snap.Load()
	i, _ := old.lookup("node")
	set := old.keys(i, "n1") // the key set as published then
	s.Set(mk("ns", "b", node("n2")))
	calls = 0
	n := 0
	set.Ascend(func(e kentry[*tobj]) bool {
		if _, ok := old.resolve(i, "n1", e); ok {
			n++
		}
		return true
	})
	if n != 1 || calls != 1 {
		t.Fatalf("old snapshot: %d objects under n1, %d IndexFunc calls; want 1, 1 (b rechecked)", n, calls)
	}
}

// TestReplacePresizesItems: Replace sizes the item table for the items
// once, instead of growing it step by step (each rebuild copies the table).
func TestReplacePresizesItems(t *testing.T) {
	items := make([]*tobj, 2048)
	for i := range items {
		items[i] = mk("ns", string(rune('a'+i%26))+string(rune('a'+i/26%26))+string(rune('a'+i/676)))
	}
	s := New(Options[*tobj]{})
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	s.Replace(items)
	runtime.ReadMemStats(&after)
	// 2048 cells of 32 bytes and a table of 24 bytes a slot (slot and object pointer) sized for them:
	// well under 1 MiB; growing by doubling would not exceed it either, so
	// the table's size is checked too.
	if got := after.TotalAlloc - before.TotalAlloc; got > 1<<20 {
		t.Fatalf("Replace of %d items allocated %d bytes", len(items), got)
	}
	if got, want := s.tab.Load().items.Load().buckets(), bucketsFor(len(items)); got != want {
		t.Fatalf("item table has %d buckets, want %d (presized)", got, want)
	}
	if s.Len() != len(items) {
		t.Fatalf("Len = %d", s.Len())
	}
}
