package store

import (
	"hash/maphash"
	"math/bits"
	"sync"
	"sync/atomic"

	"github.com/kcmlab/kcm/kube/api"
)

// DefaultShards is the number of item shards when Options.Shards is unset.
const DefaultShards = 64

// Options configures a Store.
type Options[T api.Object] struct {
	// Shards is the number of item shards, rounded up to a power of two;
	// <= 0 means DefaultShards.
	Shards int
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
	nshards int
	// tab is the current table. Replace builds a new table and swaps it in;
	// a reader loads tab once per call and works on that table only.
	tab atomic.Pointer[table[T]]
	// bufs recycles the readers' collection buffers (*[]T, empty).
	bufs sync.Pool

	// The writer's fields have cache lines of their own, so that taking
	// wmu does not evict the line readers load tab from.
	_ [128]byte
	// wmu serialises writers. It guards gen, sc and every writer-only field
	// of the current table (table.w, the shard maps' mutation).
	wmu sync.Mutex
	// gen is the generation of the last published index-changing write.
	gen uint64
	sc  scratch
}

// table is one complete state: items and indexes. Only the current table
// is ever written; one replaced by Replace is frozen.
type table[T api.Object] struct {
	mask   uint64
	shards []shard[T]
	// snap is the published index state; readers load it without locks.
	snap atomic.Pointer[snapshot[T]]
	// w is the writer's side of each index, aligned with snap's defs and
	// tops. Guarded by Store.wmu.
	w []*windex[T]
	// n counts keys (updated after each shard map insert or delete). It
	// has cache lines of its own: every reader reads the fields above.
	_ [128]byte
	n atomic.Int64
}

// shard is one lock-protected part of the key → cell map.
type shard[T api.Object] struct {
	// mu guards m for readers. The writer (holding Store.wmu) is the only
	// goroutine that mutates m: it reads m without mu and takes mu.Lock
	// only to insert or delete.
	mu sync.RWMutex
	m  map[string]*cell[T]
	_  [96]byte // 128 bytes in all (mu 24, m 8): each shard's lock on its own cache lines
}

// New returns an empty store. It panics if opts.Indexers is invalid (a nil
// func under a name that is not built in), which is a programming error.
func New[T api.Object](opts Options[T]) *Store[T] {
	n := opts.Shards
	if n <= 0 {
		n = DefaultShards
	}
	n = 1 << bits.Len(uint(n-1))
	kf := opts.KeyFunc
	if kf == nil {
		kf = func(obj T) string { return obj.GetObjectMeta().Key() }
	}
	s := &Store[T]{keyFunc: kf, seed: maphash.MakeSeed(), nshards: n}
	t := newTable[T](n, 0)
	s.tab.Store(t)
	s.publishLocked(t, true)
	if err := s.AddIndexers(opts.Indexers); err != nil {
		panic(err)
	}
	return s
}

func newTable[T api.Object](nshards, sizeHint int) *table[T] {
	t := &table[T]{mask: uint64(nshards - 1), shards: make([]shard[T], nshards)}
	for i := range t.shards {
		t.shards[i].m = make(map[string]*cell[T], sizeHint/nshards)
	}
	return t
}

// shardFor returns the shard that holds key.
func (s *Store[T]) shardFor(t *table[T], key string) *shard[T] {
	return &t.shards[maphash.String(s.seed, key)&t.mask]
}

// KeyOf returns the key obj is stored under.
func (s *Store[T]) KeyOf(obj T) string { return s.keyFunc(obj) }

// Get returns the object stored under key. It takes one shard read lock
// and allocates nothing.
func (s *Store[T]) Get(key string) (T, bool) {
	t := s.tab.Load()
	sh := s.shardFor(t, key)
	sh.mu.RLock()
	c := sh.m[key]
	sh.mu.RUnlock()
	if c != nil {
		// A concurrent Delete may have emptied the cell since.
		if v := c.p.Load(); v != nil {
			return v.obj, true
		}
	}
	var zero T
	return zero, false
}

// Len returns the number of stored keys.
func (s *Store[T]) Len() int { return int(s.tab.Load().n.Load()) }

// List returns every stored object, in no particular order. Each shard is
// read under its lock; a write racing List may be seen in some shards and
// not yet in others (a Replace never is: List reads one table).
func (s *Store[T]) List() []T {
	t := s.tab.Load()
	out := make([]T, 0, t.n.Load())
	for i := range t.shards {
		sh := &t.shards[i]
		sh.mu.RLock()
		for _, c := range sh.m {
			// Cells in a map are live while its read lock is held.
			out = append(out, c.p.Load().obj)
		}
		sh.mu.RUnlock()
	}
	return out
}

// ListKeys returns every stored key, in no particular order, with List's
// consistency.
func (s *Store[T]) ListKeys() []string {
	t := s.tab.Load()
	out := make([]string, 0, t.n.Load())
	for i := range t.shards {
		sh := &t.shards[i]
		sh.mu.RLock()
		for k := range sh.m {
			out = append(out, k)
		}
		sh.mu.RUnlock()
	}
	return out
}
