package store

import (
	"hash/maphash"
	"sync"
	"sync/atomic"

	"github.com/kcmlab/kcm/kube/api"
)

// Options configures a Store.
type Options[T api.Object] struct {
	// KeyFunc computes an object's key; nil means ObjectMeta.Key
	// ("namespace/name", or "name" when cluster-scoped). The store keeps
	// the returned string.
	KeyFunc func(obj T) string
	// Indexers are the indexes maintained from the start. More can be added
	// at any time with AddIndexers.
	Indexers Indexers[T]
}

// Store is a concurrent, indexed cache of objects of type T: the informer's
// store (client-go's ThreadSafeStore and Indexer). Objects stored are shared
// with every reader and must not be modified by anyone once stored.
//
// Any number of goroutines may read while writes happen; writes are
// serialised among themselves. See the package documentation for what a
// reader racing a writer observes.
type Store[T api.Object] struct {
	// Fields every reader reads; never written after New.
	keyFunc func(T) string
	seed    maphash.Seed
	// tab is the current table. Replace builds a new table and swaps it in;
	// a reader loads tab once per call and works on that table only.
	tab atomic.Pointer[table[T]]
	// bufs recycles the readers' collection buffers (*[]T, empty).
	bufs sync.Pool
	// rv is the resourceVersion the content is current at (Bookmark);
	// nil until the first Bookmark.
	rv atomic.Pointer[string]

	// The writer's fields have cache lines of their own, so that taking
	// wmu does not evict the line readers load tab from.
	_ [128]byte
	// wmu serialises writers. It guards gen, sc and every writer-only field
	// of the current table (table.w, the item table's slots).
	wmu sync.Mutex
	// gen is the generation of the last published index-changing write.
	gen uint64
	sc  scratch
}

// table is one complete state: items and indexes. Only the current table
// is ever written; one replaced by Replace is frozen.
type table[T api.Object] struct {
	// items is the key → cell table (items.go); the writer swaps in a
	// rebuilt one when it grows.
	items atomic.Pointer[itemTable[T]]
	// snap is the published index state; readers load it without locks.
	snap atomic.Pointer[snapshot[T]]
	// w is the writer's side of each index, aligned with snap's defs and
	// tops. Guarded by Store.wmu.
	w []*windex[T]
	// n counts live keys (updated after each insert or delete). It has
	// cache lines of its own: every reader reads the fields above.
	_ [128]byte
	n atomic.Int64
}

// New returns an empty store. It panics if opts.Indexers is invalid (a nil
// func under a name that is not built in) or T is not a pointer type
// (*api.Pod, *api.RawObject, ...), which are programming errors.
func New[T api.Object](opts Options[T]) *Store[T] {
	mustBePointer[T]()
	kf := opts.KeyFunc
	if kf == nil {
		kf = func(obj T) string { return obj.GetObjectMeta().Key() }
	}
	s := &Store[T]{keyFunc: kf, seed: maphash.MakeSeed()}
	t := newTable[T](0)
	s.tab.Store(t)
	s.publishLocked(t, true)
	if err := s.AddIndexers(opts.Indexers); err != nil {
		panic(err)
	}
	return s
}

func newTable[T api.Object](sizeHint int) *table[T] {
	t := &table[T]{}
	t.items.Store(newItemTable[T](sizeHint))
	return t
}

// hash returns key's hash in the item table.
func (s *Store[T]) hash(key string) uint64 { return maphash.String(s.seed, key) }

// KeyOf returns the key obj is stored under.
func (s *Store[T]) KeyOf(obj T) string { return s.keyFunc(obj) }

// Get returns the object stored under key. It takes no lock, writes no
// shared memory and allocates nothing.
func (s *Store[T]) Get(key string) (T, bool) {
	h := s.hash(key)
	it := s.tab.Load().items.Load()
	for i := int(h & it.mask); i < len(it.slots); i++ {
		sl := &it.slots[i]
		c := sl.c.Load()
		if c == nil {
			break
		}
		if sl.hash == uint32(h) && c.key == key {
			// A deleted key's cell is empty.
			return c.load()
		}
	}
	var zero T
	return zero, false
}

// Len returns the number of stored keys.
func (s *Store[T]) Len() int { return int(s.tab.Load().n.Load()) }

// testHookListWalked, when set (by tests only), runs after each of List's
// walks of the slots, before it checks the table it walked is current.
var testHookListWalked func()

// List returns every stored object, in no particular order. It walks the
// item table without locks: a write racing List may or may not be seen,
// each key is returned at most once, with the object it held when its slot
// was read, and a Replace never shows (List reads one table).
func (s *Store[T]) List() []T {
	t := s.tab.Load()
	out := make([]T, 0, t.n.Load())
	for range 2 {
		it := t.items.Load()
		objs := it.objs[:it.filled.Load()]
		for i := range objs {
			if p := atomic.LoadPointer(&objs[i]); p != nil {
				out = append(out, objOf[T](p))
			}
		}
		if testHookListWalked != nil {
			testHookListWalked()
		}
		// The slots' objects are kept current in the current table only:
		// if a rebuild replaced it during the walk, walk again.
		if t.items.Load() == it {
			return out
		}
		clear(out)
		out = out[:0]
	}
	// Rebuilt twice during two walks: read the cells, which stay current
	// in every table.
	t.forLive(func(_ *cell[T], obj T) { out = append(out, obj) })
	return out
}

// ListKeys returns every stored key, in no particular order, with List's
// consistency.
func (s *Store[T]) ListKeys() []string {
	t := s.tab.Load()
	out := make([]string, 0, t.n.Load())
	t.forLive(func(c *cell[T], _ T) { out = append(out, c.key) })
	return out
}
