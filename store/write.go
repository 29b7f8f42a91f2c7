package store

import (
	"maps"
	"slices"

	"github.com/google/btree"

	"github.com/kcmlab/kcm/kube/api"
)

// Op is one write of an Apply batch. Apply fills Old and Existed.
type Op[T api.Object] struct {
	// Delete removes the key instead of storing Obj.
	Delete bool
	// Obj is the object to store; for a Delete it may instead name the key.
	Obj T
	// Key is the key to write; empty means KeyOf(Obj).
	Key string

	// Old is the object stored under the key before this op, if Existed.
	Old     T
	Existed bool
}

// Set stores obj (add or update) and returns the object it replaced.
func (s *Store[T]) Set(obj T) (old T, existed bool) {
	key := s.keyFunc(obj)
	s.wmu.Lock()
	defer s.wmu.Unlock()
	t := s.tab.Load()
	old, existed, changed := s.setLocked(t, key, obj, s.gen+1)
	if changed {
		s.gen++
		s.publishLocked(t, false)
	}
	return old, existed
}

// Delete removes key and returns the object it held.
func (s *Store[T]) Delete(key string) (old T, existed bool) {
	s.wmu.Lock()
	defer s.wmu.Unlock()
	t := s.tab.Load()
	old, existed = s.deleteLocked(t, key)
	if existed && len(t.w) > 0 {
		s.gen++
		s.publishLocked(t, false)
	}
	return old, existed
}

// DeleteObject removes the key obj is stored under (only its key is used).
func (s *Store[T]) DeleteObject(obj T) (old T, existed bool) {
	return s.Delete(s.keyFunc(obj))
}

// Apply performs ops in order under one writer critical section and
// publishes the index snapshot once, which is cheaper than the same writes
// one by one: IndexKeys and ListIndexValues see all of the batch or none
// of it, while Get, List and ByIndex, which read live objects, may see a
// prefix. Old and Existed of each op are filled in.
func (s *Store[T]) Apply(ops []Op[T]) {
	s.wmu.Lock()
	defer s.wmu.Unlock()
	t := s.tab.Load()
	gen, published := s.gen+1, false
	for i := range ops {
		op := &ops[i]
		key := op.Key
		if key == "" {
			key = s.keyFunc(op.Obj)
		}
		var changed bool
		if op.Delete {
			op.Old, op.Existed = s.deleteLocked(t, key)
			changed = op.Existed && len(t.w) > 0
		} else {
			op.Old, op.Existed, changed = s.setLocked(t, key, op.Obj, gen)
		}
		published = published || changed
	}
	if published {
		s.gen = gen
		s.publishLocked(t, false)
	}
}

// AddIndexers adds indexes, built from the current content, at any time.
// All or none are added: a name already maintained yields ErrIndexExists,
// a nil func under a name not built in ErrNilIndexFunc.
func (s *Store[T]) AddIndexers(indexers Indexers[T]) error {
	if len(indexers) == 0 {
		return nil
	}
	s.wmu.Lock()
	defer s.wmu.Unlock()
	t := s.tab.Load()
	sn := t.snap.Load()
	names := slices.Sorted(maps.Keys(indexers))
	defs := make([]*indexDef[T], 0, len(names))
	for _, name := range names {
		if _, ok := sn.names[name]; ok {
			return wrapName(ErrIndexExists, name)
		}
		d, err := newIndexDef(name, indexers[name])
		if err != nil {
			return err
		}
		defs = append(defs, d)
	}
	for _, d := range defs {
		w := newWindex(d)
		// Versions already stored have gen <= s.gen, and the new tree
		// indexes exactly them, so the snapshot's gen stays correct.
		w.bulkLoad(&s.sc, t)
		t.w = append(t.w, w)
	}
	s.publishLocked(t, true)
	return nil
}

// setLocked stores obj under key in t. A key whose index values changed
// (or that is new) is stamped gen; changed reports whether any index tree
// changed, in which case the caller must publish generation gen.
func (s *Store[T]) setLocked(t *table[T], key string, obj T, gen uint64) (old T, existed, changed bool) {
	h := s.hash(key)
	sl, c := t.getCell(h, key)
	if c == nil {
		c = &cell[T]{key: key}
		if len(t.w) > 0 {
			c.gen.Store(gen) // a new key changes every index (0: none to change)
		}
		c.store(obj)
		t.insertCell(h, c)
		t.n.Add(1)
		for _, w := range t.w {
			w.add(&s.sc, key, c, obj)
		}
		return old, false, len(t.w) > 0
	}
	prev, _ := c.load()
	// First decide which indexes change (a bit per index; a store with
	// more than 64 indexes rechecks them all), then store the object,
	// then move entries: the cell must carry its new gen before any
	// snapshot shows its new entries, and before the object (see cell).
	var moved uint64
	for i, w := range t.w {
		var same bool
		s.sc.ks, same = w.def.same(prev, obj, s.sc.ks)
		if !same {
			moved |= 1 << min(i, 63)
		}
	}
	if moved != 0 {
		c.gen.Store(gen)
	}
	setObj(sl, c, obj)
	for i, w := range t.w {
		if moved&(1<<min(i, 63)) != 0 {
			w.update(&s.sc, key, c, prev, obj)
		}
	}
	return prev, true, moved != 0
}

// deleteLocked removes key from t.
func (s *Store[T]) deleteLocked(t *table[T], key string) (old T, existed bool) {
	sl, c := t.getCell(s.hash(key), key)
	if c == nil {
		return old, false
	}
	prev, _ := c.load()
	// The emptied cell stays in its slot until the table is rebuilt.
	deleteObj(sl, c)
	t.n.Add(-1)
	for _, w := range t.w {
		w.remove(&s.sc, key, prev)
	}
	t.shrinkAfterDelete()
	return prev, true
}

// publishLocked makes the writer's changes visible: each index stores its
// changed key sets into their holders and clones its top tree if values
// came or went (Clone is O(1); the writer's next change to a shared node
// copies it), then a new snapshot of generation s.gen is stored. reshape
// rebuilds names and defs: for New's first snapshot (no previous one) and
// after indexes were added; otherwise the previous snapshot's carry over.
func (s *Store[T]) publishLocked(t *table[T], reshape bool) {
	prev := t.snap.Load()
	sn := &snapshot[T]{gen: s.gen, tops: make([]*btree.BTreeG[group[T]], len(t.w))}
	if reshape {
		sn.names = make(map[string]int, len(t.w))
		sn.defs = make([]*indexDef[T], len(t.w))
		for i, w := range t.w {
			sn.names[w.def.name] = i
			sn.defs[i] = w.def
		}
	} else {
		sn.names, sn.defs = prev.names, prev.defs
	}
	for i, w := range t.w {
		var top *btree.BTreeG[group[T]]
		if prev != nil && i < len(prev.tops) {
			top = prev.tops[i]
		}
		sn.tops[i] = w.publish(top)
	}
	t.snap.Store(sn)
}
