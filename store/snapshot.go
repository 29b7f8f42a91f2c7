package store

import (
	"fmt"
	"strings"
	"sync/atomic"

	"github.com/google/btree"

	"github.com/kcmlab/kcm/kube"
)

// btreeDegree is the google/btree degree of every index tree: nodes hold
// 15..31 entries. Measured on 10k pods with degrees 4 to 32: an
// index-changing write costs about the same throughout (smaller nodes are
// cheaper to copy but the path is longer), while queries walk fewer nodes
// as nodes grow. 16 is where queries stop improving much.
const btreeDegree = 16

// cell is the slot of one stored key. Index entries and the shard map point
// at the same cell, so a reader walking an index reaches the object's
// current version without taking a shard lock.
type cell[T kube.Object] struct {
	// p is the current version; nil once the key is deleted (a deleted
	// cell is never reused: a key added again gets a new cell).
	p atomic.Pointer[version[T]]
}

// version is one immutable stored state of a key.
type version[T kube.Object] struct {
	obj T
	// gen is the generation of the last write that changed this key's
	// index values (or added the key). A snapshot with gen >= version.gen
	// indexes the key exactly as obj's values say.
	gen uint64
}

// entry is one (value, key) pair of an index tree. value is the interned
// index value; key is the stored key; c is the key's cell.
type entry[T kube.Object] struct {
	value string
	key   string
	c     *cell[T]
}

// lessEntry orders entries by value, then key.
func lessEntry[T kube.Object](a, b entry[T]) bool {
	if c := strings.Compare(a.value, b.value); c != 0 {
		return c < 0
	}
	return a.key < b.key
}

func newTree[T kube.Object]() *btree.BTreeG[entry[T]] {
	return btree.NewG(btreeDegree, lessEntry[T])
}

// snapshot is the published, read-only state of all indexes. Readers load
// it with one atomic load and walk its trees without locks; the writer
// never modifies a published snapshot or any tree in it.
type snapshot[T kube.Object] struct {
	// gen is the generation of the last index-changing write it includes.
	gen uint64
	// names maps an index name to its position in defs and trees.
	names map[string]int
	defs  []*indexDef[T]
	// trees are copy-on-write clones of the writer's trees.
	trees []*btree.BTreeG[entry[T]]
}

// lookup finds an index by name.
func (sn *snapshot[T]) lookup(name string) (int, error) {
	i, ok := sn.names[name]
	if !ok {
		return 0, wrapName(ErrNoIndex, name)
	}
	return i, nil
}

// wrapName wraps a sentinel error with an index name.
func wrapName(err error, name string) error {
	return fmt.Errorf("%w: %q", err, name)
}

// windex is the writer's side of one index: the mutable tree that the next
// snapshot will clone, and the interned values. Writer-only (Store.wmu).
type windex[T kube.Object] struct {
	def  *indexDef[T]
	tree *btree.BTreeG[entry[T]]
	in   *interner
	// dirty is set when tree changed since it was last cloned into a
	// snapshot.
	dirty bool
}

func newWindex[T kube.Object](def *indexDef[T]) *windex[T] {
	// A new tree has never been cloned into a snapshot: dirty.
	return &windex[T]{def: def, tree: newTree[T](), in: newInterner(def.kind == kindLabel), dirty: true}
}

// scratch is the writer's reusable buffer.
type scratch struct {
	ks []internKey
}

// bulkLoad indexes every item of t into the (empty) tree. (Sorting the
// entries first to insert them in order was measured: the sort costs what
// the ordered inserts save.)
func (w *windex[T]) bulkLoad(sc *scratch, t *table[T]) {
	for i := range t.shards {
		for key, c := range t.shards[i].m {
			w.add(sc, key, c, c.p.Load().obj)
		}
	}
	w.dirty = true
}

// add indexes a new key.
func (w *windex[T]) add(sc *scratch, key string, c *cell[T], obj T) {
	sc.ks = w.def.keys(sc.ks[:0], obj)
	for _, k := range sc.ks {
		w.tree.ReplaceOrInsert(entry[T]{value: w.in.acquire(k), key: key, c: c})
	}
	w.dirty = w.dirty || len(sc.ks) > 0
}

// remove drops a key's entries; obj is the version that was indexed.
func (w *windex[T]) remove(sc *scratch, key string, obj T) {
	sc.ks = w.def.keys(sc.ks[:0], obj)
	for _, k := range sc.ks {
		w.tree.Delete(entry[T]{value: w.in.release(k), key: key})
	}
	w.dirty = w.dirty || len(sc.ks) > 0
}

// update moves a key from old's values to new's, touching only the values
// that differ (each touched tree path is copied once per snapshot). Old
// entries go first: two different label pairs can spell one value
// ("a=b"+"c", "a"+"b=c"), and such a value must end up present.
func (w *windex[T]) update(sc *scratch, key string, c *cell[T], old, new T) {
	sc.ks = w.def.keys(sc.ks[:0], old)
	n := len(sc.ks)
	sc.ks = w.def.keys(sc.ks, new)
	olds, news := sc.ks[:n], sc.ks[n:]
	forMissing(olds, news, func(k internKey) {
		w.tree.Delete(entry[T]{value: w.in.release(k), key: key})
		w.dirty = true
	})
	forMissing(news, olds, func(k internKey) {
		w.tree.ReplaceOrInsert(entry[T]{value: w.in.acquire(k), key: key, c: c})
		w.dirty = true
	})
}
