package store

import (
	"cmp"
	"slices"
)

// Replace makes items the whole content of the store (client-go's
// Replace), atomically for readers: the new items and indexes are built
// aside and swapped in with one atomic store, so a reader sees the old
// content or the new, never a mixture. A key given twice keeps its last
// object.
func (s *Store[T]) Replace(items []T) {
	s.wmu.Lock()
	defer s.wmu.Unlock()
	t := s.newTableLocked(len(items))
	for _, obj := range items {
		s.putReplacing(t, s.keyFunc(obj), obj)
	}
	s.swapLocked(t)
}

// ReplaceOps is Replace for a writer that tells others what changed (an
// informer applying a relist as one step): the objects of ops become the
// whole content, swapped in atomically for readers, and each op's Old and
// Existed say what its key held before. It appends to removed, in key
// order, a Delete op (Key, Old, Existed) for every key held before that
// ops do not hold, and returns it. ops must all be stores (Delete false);
// a Delete op is skipped. A key given twice keeps its last object, and
// both ops report the same Old.
func (s *Store[T]) ReplaceOps(ops []Op[T], removed []Op[T]) []Op[T] {
	s.wmu.Lock()
	defer s.wmu.Unlock()
	old := s.tab.Load()
	t := s.newTableLocked(len(ops))
	for i := range ops {
		op := &ops[i]
		if op.Delete {
			continue
		}
		if op.Key == "" {
			op.Key = s.keyFunc(op.Obj)
		}
		if _, c := old.getCell(s.hash(op.Key), op.Key); c != nil {
			op.Old, op.Existed = c.load()
		}
		s.putReplacing(t, op.Key, op.Obj)
	}
	from := len(removed)
	old.forLive(func(c *cell[T], obj T) {
		if _, kept := t.getCell(s.hash(c.key), c.key); kept == nil {
			removed = append(removed, Op[T]{Delete: true, Key: c.key, Old: obj, Existed: true})
		}
	})
	slices.SortFunc(removed[from:], func(a, b Op[T]) int { return cmp.Compare(a.Key, b.Key) })
	s.swapLocked(t)
	return removed
}

// newTableLocked returns an empty table, not yet visible to readers, with
// the current table's indexes (empty) and room for n keys.
func (s *Store[T]) newTableLocked(n int) *table[T] {
	old := s.tab.Load()
	t := newTable[T](n)
	t.w = make([]*windex[T], len(old.w))
	for i, w := range old.w {
		t.w[i] = newWindex(w.def)
	}
	return t
}

// putReplacing stores obj under key in t, a table being built for a
// replace (not visible to readers yet). Its cells carry the generation
// the swap publishes.
func (s *Store[T]) putReplacing(t *table[T], key string, obj T) {
	h := s.hash(key)
	if sl, c := t.getCell(h, key); c != nil {
		setObj(sl, c, obj) // a key given twice keeps its last object
		return
	}
	c := &cell[T]{key: key}
	c.gen.Store(s.gen + 1)
	c.store(obj)
	t.insertCell(h, c)
	t.n.Add(1)
}

// swapLocked builds t's indexes from its items and makes t the current
// table with one atomic store.
func (s *Store[T]) swapLocked(t *table[T]) {
	old := s.tab.Load()
	for _, w := range t.w {
		w.bulkLoad(&s.sc, t)
	}
	s.gen++
	t.snap.Store(old.snap.Load()) // names and defs carry over
	s.publishLocked(t, false)
	s.tab.Store(t)
}
