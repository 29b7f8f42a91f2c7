package store

import (
	"fmt"
	"sync/atomic"

	"github.com/google/btree"

	"github.com/kcmlab/kcm/kube/api"
)

// btreeDegree is the google/btree degree of every tree: nodes hold 15..31
// entries, so a value with up to 31 keys is a single node. Measured on 10k
// pods with degrees 4 to 32: an index-changing write costs about the same
// throughout (smaller nodes are cheaper to copy but the path is longer),
// while queries walk fewer nodes as nodes grow.
const btreeDegree = 16

// kentry is one key indexed under a value, with the key's cell.
type kentry[T api.Object] struct {
	key string
	c   *cell[T]
}

func lessKentry[T api.Object](a, b kentry[T]) bool { return a.key < b.key }

// holder is one index value's set of keys.
type holder[T api.Object] struct {
	// keys is the published set: a read-only clone of w, replaced by the
	// writer at each publish that changed it; nil once the value has no
	// keys (a holder emptied is never reused).
	keys atomic.Pointer[btree.BTreeG[kentry[T]]]

	// Writer-only (Store.wmu).
	value string                   // the interned value
	w     *btree.BTreeG[kentry[T]] // the writer's set, ahead of keys until published
	dirty bool                     // w changed since keys was last stored
}

// group is one entry of an index's top tree: a value and its holder.
type group[T api.Object] struct {
	value string
	h     *holder[T]
}

func lessGroup[T api.Object](a, b group[T]) bool { return a.value < b.value }

// snapshot is the published, read-only index state. Readers load it with
// one atomic load, find a value's holder in a top tree and walk the
// holder's published key set, all without locks. The writer never modifies
// a published top tree or key set.
type snapshot[T api.Object] struct {
	// gen is the generation of the last index-changing write it includes.
	gen uint64
	// names maps an index name to its position in defs and tops.
	names map[string]int
	defs  []*indexDef[T]
	// tops are copy-on-write clones of the writer's top trees: the values
	// that had keys as of gen.
	tops []*btree.BTreeG[group[T]]
}

// lookup finds an index by name.
func (sn *snapshot[T]) lookup(name string) (int, error) {
	i, ok := sn.names[name]
	if !ok {
		return 0, wrapName(ErrNoIndex, name)
	}
	return i, nil
}

// keys returns the published key set of value in index i, or nil.
func (sn *snapshot[T]) keys(i int, value string) *btree.BTreeG[kentry[T]] {
	g, ok := sn.tops[i].Get(group[T]{value: value})
	if !ok {
		return nil
	}
	return g.h.keys.Load()
}

// wrapName wraps a sentinel error with an index name.
func wrapName(err error, name string) error {
	return fmt.Errorf("%w: %q", err, name)
}

// windex is the writer's side of one index. Writer-only (Store.wmu).
type windex[T api.Object] struct {
	def *indexDef[T]
	in  *interner
	// top is the writer's top tree; topDirty is set when it changed since
	// it was last cloned into a snapshot.
	top      *btree.BTreeG[group[T]]
	topDirty bool
	// byValue finds a value's holder; it holds exactly the groups of top.
	byValue map[string]*holder[T]
	// dirty lists the holders changed since the last publish.
	dirty []*holder[T]
	// free recycles the nodes of all key sets of this index.
	free *btree.FreeListG[kentry[T]]
}

func newWindex[T api.Object](def *indexDef[T]) *windex[T] {
	return &windex[T]{
		def:      def,
		in:       newInterner(def.kind == kindLabel),
		top:      btree.NewG(btreeDegree, lessGroup[T]),
		topDirty: true, // never cloned into a snapshot yet
		byValue:  make(map[string]*holder[T]),
		free:     btree.NewFreeListG[kentry[T]](btree.DefaultFreeListSize),
	}
}

// scratch is the writer's reusable buffer.
type scratch struct {
	ks []internKey
}

// insert puts key under value, creating the value's holder if needed.
func (w *windex[T]) insert(value, key string, c *cell[T]) {
	h := w.byValue[value]
	if h == nil {
		h = &holder[T]{value: value, w: btree.NewWithFreeListG(btreeDegree, lessKentry[T], w.free)}
		w.byValue[value] = h
		w.top.ReplaceOrInsert(group[T]{value: value, h: h})
		w.topDirty = true
	}
	h.w.ReplaceOrInsert(kentry[T]{key: key, c: c})
	w.touch(h)
}

// delete removes key from value. An emptied holder stays until publish, so
// that a value emptied and refilled within one batch keeps its holder.
func (w *windex[T]) delete(value, key string) {
	if h := w.byValue[value]; h != nil {
		h.w.Delete(kentry[T]{key: key})
		w.touch(h)
	}
}

func (w *windex[T]) touch(h *holder[T]) {
	if !h.dirty {
		h.dirty = true
		w.dirty = append(w.dirty, h)
	}
}

// add indexes a new key.
func (w *windex[T]) add(sc *scratch, key string, c *cell[T], obj T) {
	sc.ks = w.def.keys(sc.ks[:0], obj)
	for _, k := range sc.ks {
		w.insert(w.in.acquire(k), key, c)
	}
}

// remove drops a key's entries; obj is the object that was indexed.
func (w *windex[T]) remove(sc *scratch, key string, obj T) {
	sc.ks = w.def.keys(sc.ks[:0], obj)
	for _, k := range sc.ks {
		w.delete(w.in.release(k), key)
	}
}

// update moves a key from old's values to new's, touching only the values
// that differ. Old entries go first: two different label pairs can spell
// one value ("a=b"+"c", "a"+"b=c"), and such a value must end up present.
func (w *windex[T]) update(sc *scratch, key string, c *cell[T], old, new T) {
	sc.ks = w.def.keys(sc.ks[:0], old)
	n := len(sc.ks)
	sc.ks = w.def.keys(sc.ks, new)
	olds, news := sc.ks[:n], sc.ks[n:]
	forMissing(olds, news, func(k internKey) {
		v := w.in.release(k)
		// A pair the object keeps can spell the same value (labels
		// {"a": "b=c", "a=b": "c"} both give "a=b=c"): the key stays.
		if !w.in.spelledBy(v, news) {
			w.delete(v, key)
		}
	})
	forMissing(news, olds, func(k internKey) { w.insert(w.in.acquire(k), key, c) })
}

// bulkLoad indexes every item of t (into an empty windex).
func (w *windex[T]) bulkLoad(sc *scratch, t *table[T]) {
	t.forLive(func(c *cell[T], obj T) { w.add(sc, c.key, c, obj) })
}

// publish stores the writer's changed key sets into their holders and
// drops emptied values from the top tree. It returns the top tree to put
// in the next snapshot: a fresh clone if it changed, else prev.
func (w *windex[T]) publish(prev *btree.BTreeG[group[T]]) *btree.BTreeG[group[T]] {
	for i, h := range w.dirty {
		h.dirty = false
		w.dirty[i] = nil
		if h.w.Len() == 0 {
			// Readers of older snapshots still find h: they see no keys.
			h.keys.Store(nil)
			delete(w.byValue, h.value)
			w.top.Delete(group[T]{value: h.value})
			w.topDirty = true
			continue
		}
		// Clone is O(1); the writer's next change to h.w copies the nodes
		// on its path, leaving the published set untouched.
		h.keys.Store(h.w.Clone())
	}
	w.dirty = w.dirty[:0]
	// prev is nil only for an index never published, and a new windex
	// starts topDirty.
	if !w.topDirty {
		return prev
	}
	w.topDirty = false
	return w.top.Clone()
}
