// Package store is the informer's cache: every object of one resource, by
// key, with secondary indexes, read concurrently by controllers while one
// apply loop writes the changes the watch delivers.
//
// In client-go this is the ThreadSafeStore behind an Indexer: Indexers name
// IndexFuncs, MetaNamespaceIndexFunc indexes by namespace, ByIndex and
// IndexKeys query. kcm keeps those names (Indexers, IndexFunc,
// NamespaceIndexFunc, ByIndex, IndexKeys, ListIndexValues) and changes the
// inside, so that readers scale with cores and cannot starve the writer.
//
//	apiserver → reflector → deltafifo ─Pop(batch)─▶ apply loop
//	                                                  │ Set / Delete / Apply / Replace
//	                                                  ▼         (one writer at a time)
//	                        ┌──────────────────── Store[T] ─────────────────────┐
//	                        │ shards[hash(key)]: RWMutex + map key → cell ──────┼──▶ Get, List
//	                        │ snapshot (atomic pointer, read-only):             │
//	                        │   index trees of (value, key, cell), ordered  ────┼──▶ ByIndex, IndexKeys,
//	                        └───────────────────────────────────────────────────┘    ByIndexPage, Range
//	                                                  │
//	                             processor → handlers │ listers, ctrl reconcilers (read-only)
//
// # Items
//
// Keys ("namespace/name") are spread over a power-of-two number of shards
// by a seeded maphash of the key. A shard is an RWMutex and a map from key
// to cell; a cell holds an atomic pointer to the key's current version
// (the object plus a generation number). Get takes one shard read lock and
// allocates nothing. Only the writer changes the maps, and it takes a
// shard's write lock just to insert or delete a key: an update of an
// existing key swaps the cell's pointer and takes no shard lock at all, so
// readers holding read locks never delay it.
//
// # Indexes
//
// Each index is a google/btree tree of entries (value, key, cell), ordered
// by value then key, so a query for one value is a range scan that yields
// keys in order, pages (ByIndexPage) and value ranges (ByIndexRange) come
// for free, and ListIndexValues seeks from value to value. The built-in
// indexes are IndexNamespace, IndexLabel ("key=value") and IndexOwner
// (ownerReference UIDs); any IndexFunc can be added, at any time, with
// AddIndexers (spec.nodeName is an IndexFunc a typed user supplies). An
// index value is interned once per distinct value with a use count, so a
// million entries for "app=web" share one string and no entry keeps an old
// object's strings alive.
//
// The writer owns private trees. After a write it clones each tree it
// changed — Clone is O(1): the nodes become shared and read-only, and the
// writer's next change copies only the nodes on its path — and publishes
// the clones as a new snapshot with one atomic store. Index readers load
// the snapshot and walk it without any lock, so they scale with cores and
// never make the writer wait.
//
// The price is paid by writes that change index entries: each copies the
// root-to-leaf path of every entry it touches, a few KB of short-lived
// garbage, which makes a single add or delete several times dearer than in
// a mutable tree. Three things keep that off the hot path. An update that
// leaves an object's index values unchanged (most updates: status) touches
// no tree and publishes nothing. An update that changes one label moves
// only that label's entry. And Apply publishes once for a whole batch:
// after the first change in a tree node the node belongs to the writer and
// later changes in it are in place, so an informer that applies what it
// pops from the FIFO as one batch pays the copies once per batch, exactly
// when the event rate is high.
//
// Why not a lock per index, or one lock for everything (client-go)? A
// reader scanning a large index under a read lock holds the writer off for
// the length of the scan, and a writer waiting for a lock blocks new
// readers behind it; with sixteen readers that is most of the time
// (BenchmarkWrite's readers=16 cases show it on naiveStore, a single-lock
// yardstick). Why entries point at cells rather than ByIndex looking keys
// up in the shards: that would cost one shard lock (two atomic writes on a
// shared cache line) per result, which is what stops read scaling.
//
// # What a reader racing a writer can observe
//
// Generations number the index-changing writes. A version records the
// generation of the last write that changed its key's index values; a
// snapshot records the last generation it includes. The writer stores the
// new version in the cell before it publishes the snapshot that indexes it,
// so a reader holding snapshot S who finds version v through an entry knows:
// if v.gen <= S, v's index values are exactly those S indexes it under; if
// v.gen > S, they changed after S, and the reader rechecks v against the
// index (built-ins without allocating, user funcs by calling them). A
// deleted key's cell is emptied, so readers skip it. Therefore:
//
//   - Get sees the latest write to its key that has completed, or a
//     concurrent one.
//   - Every object ByIndex(index, value) returns is indexed under value at
//     the moment it is read, and the objects come in key order without
//     duplicates. The result is the objects indexed under value both in
//     snapshot S and when read: an object that gained the value after S is
//     left for the next call, one that lost it or was deleted is dropped.
//     ByIndexPage and ByIndexRange behave the same page by page.
//   - IndexKeys and ListIndexValues answer from snapshot S alone: exactly
//     the index as of the latest write published.
//   - An Apply batch is published as one snapshot: IndexKeys and
//     ListIndexValues see all of it or none. Objects are stored one by one,
//     so Get, List and ByIndex (which read live objects) may see a prefix
//     of the batch, within the rules above.
//   - Replace builds a whole new table (shards and trees) aside and swaps
//     it in with one atomic store: a reader sees the old content or the
//     new, never a mixture, whichever call it makes.
//   - List and ListKeys read one table shard by shard: a write racing them
//     may be seen in one shard and not yet in another.
//   - After any write returns, every index agrees exactly with the items:
//     no stale entry, no missing one (the property test checks this against
//     a plain map and a linear scan after every step).
//
// Writers are serialised by one mutex and never wait for readers except for
// the short shard write lock on insert and delete. Stored objects are
// shared with every reader: nobody may modify an object after Set.
package store
