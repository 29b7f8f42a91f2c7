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
//	apiserver → reflector → deltafifo ─Pop(batch)─▶ informer apply loop ──▶ processor → handlers → queue
//	                                                  │ Set / Delete / Apply / Replace (one writer at a time)
//	                                                  ▼
//	              ┌───────────────────────── Store[T] ──────────────────────────┐
//	              │ item table (atomic pointer): slots[hash(key)] → cell ────────┼──▶ Get, List, ListKeys
//	              │ cell: key, atomic object pointer, gen                        │
//	              │ snapshot (atomic pointer): per index, a top tree of values;  │
//	              │   each value → its own tree of (key, cell), ordered by key ──┼──▶ ByIndex, IndexKeys,
//	              └──────────────────────────────────────────────────────────────┘    ByIndexPage/Range
//	                                                  ▲
//	                    View[T] (read-only) → listers, workers → ctrl reconcilers
//
// # Readers and the writer
//
// A Store is the writer: Set, Delete, DeleteObject, Apply, Replace and
// AddIndexers. Its owner (the informer's apply loop) hands everyone else a
// View, the reading half (client-go's Indexer minus Add, Update, Delete and
// Replace): KeyOf, Get, Len, List, ListKeys, ByIndex, AppendByIndex,
// IndexKeys, ByIndexPage, ByIndexRange, ListIndexValues. A View is a struct
// with one unexported field rather than an interface, because an interface
// value holding the *Store could be type-asserted back to it and written
// through; a View cannot, short of package unsafe. Readers that look an
// object up by namespace and name build its key with MetaNamespaceKey, the
// default KeyFunc's rule, never by concatenating strings (a cluster-scoped
// key has no slash).
//
// # Items
//
// Keys ("namespace/name", or "name" when cluster-scoped) live in one hash
// table, open addressing with linear probing over a seeded maphash of the
// key, whose slots point at cells; a cell holds the key, an atomic pointer
// to the key's current object and the generation of its last
// index-changing write. The writer is the only goroutine that changes the
// table, and it changes a slot only from empty to a cell, or from a
// deleted key's cell to the same key's new cell: so readers probe the
// table with atomic loads and no lock at all. Get is a hash, a probe and
// two loads; it writes no shared memory and allocates nothing, so point
// reads scale with cores (client-go takes its store's one RWMutex, a
// shared counter every reader writes, and the writer blocks them all).
// An update of an existing key swaps the object pointer in the cell and in
// the table's dense array of objects (no allocation; the array repeats it
// so that List reads one pointer a key, in the order keys first took their
// slots, without visiting the cells or the empty slots, half of the table
// or more). Growth, and dropping deleted keys' slots,
// build a new table aside and swap it in with one atomic store; the old
// one stays frozen for the readers still probing it (items.go).
//
// Why not RWMutex shards (kcm's first design) or sync.Map? A shard read
// lock is two atomic writes to a cache line every reader of the shard
// shares, and a Go map cannot be read while it is written at all; sync.Map
// reads without locks too, but walks several trie levels per lookup and
// holds keys and values as interfaces. A single writer makes a lock-free
// table simple: no compare-and-swap, no helping.
//
// # Indexes
//
// An index is a google/btree "top" tree of its values, ordered; each value
// holds its own tree of (key, cell) entries, ordered by key. A query for a
// value finds the value in the top tree and walks its key tree: results
// come in key order, their number is known before the walk (one exact
// allocation), pages (ByIndexPage) resume from a key, value ranges
// (ByIndexRange) walk the top tree from value to value, and
// ListIndexValues is the top tree itself. Entries are small (a key and a
// cell pointer); the value is stored once per value, interned with a use
// count, so a million pods labelled "app=web" share one string and no
// index keeps an old object's strings alive.
//
// The built-in indexes are IndexNamespace, IndexLabel ("key=value") and
// IndexOwner (ownerReference UIDs); any IndexFunc can be added, at any
// time, with AddIndexers (spec.nodeName is an IndexFunc a typed user
// supplies).
//
// The writer owns private trees. A write changes the key trees of the
// values it touches; before returning it publishes each changed key tree
// into its value's holder (an atomic pointer) as a clone — Clone is O(1):
// the nodes become shared and read-only, and the writer's next change
// copies only the nodes on its path — and, when values appeared or
// disappeared, clones the top tree into a new snapshot. Readers load the
// snapshot and the holders with atomic loads and walk read-only trees
// without any lock, so they scale with cores and never make the writer
// wait.
//
// The price is paid by writes that change index entries: each copies the
// root-to-leaf path of the key trees it touches, short-lived garbage that
// makes a single add or delete several times dearer than in a mutable
// tree. Three things keep that off the hot path. An update that leaves an
// object's index values unchanged (most updates: status) touches no tree
// and publishes nothing. An update that changes one label moves only that
// label's entry. And Apply publishes once for a whole batch: after the
// first change in a node the node belongs to the writer and later changes
// in it are in place, so a batch copies each node it touches once — the
// upper levels once for all its changes, a leaf once for all the changes
// that land in it. An informer that applies what it pops from the FIFO as
// one batch gets that discount exactly when the event rate is high
// (bench_test.go measures a label change written alone, BenchmarkWrite's
// relabel case, and applied in batches of 64, BenchmarkApplyBatch).
//
// Why not a lock per index, or one lock for everything (client-go)? A
// reader scanning a large index under a read lock holds the writer off for
// the length of the scan, and a writer waiting for a lock blocks new
// readers behind it; with sixteen readers that is most of the time
// (BenchmarkWrite's readers=16 cases show it on naiveStore, a single-lock
// yardstick). Why entries point at cells rather than ByIndex looking keys
// up in the item table: that would cost a hash and a probe per result.
//
// # What a reader racing a writer can observe
//
// Generations number the index-changing writes. A cell records the
// generation of the last write that changed its key's index values; a
// snapshot records the last generation it includes. The writer stores the
// generation, then the object, then publishes key trees, then the
// snapshot, so a reader that loaded snapshot S finds key trees at least as
// new as S. For an entry it walks, it loads the cell's object, then its
// generation: if gen <= S, the object's index values have not changed
// since S and the entry is right; if gen > S they changed after S, and the
// reader rechecks the object against the index (built-ins without
// allocating, user funcs by calling them). A deleted key's cell is
// emptied, so readers skip it. Therefore:
//
//   - Get sees the latest write to its key that has completed, or a
//     concurrent one.
//   - Every object ByIndex(index, value) returns is indexed under value at
//     the moment it is read; the objects come in key order without
//     duplicates; every object that was under value in the key tree the
//     reader walked and still is when read is returned. ByIndexPage and
//     ByIndexRange behave the same page by page and value by value.
//   - IndexKeys returns one published key tree: the value's keys at one
//     point in time, no older than the last write that returned before the
//     call. ListIndexValues returns the top tree of snapshot S.
//   - A write (and a whole Apply batch) replaces each value's key tree and
//     the top tree with one atomic store each: a query on one value sees
//     all of the write's changes to it or none; ListIndexValues sees all
//     values that came or went or none. Objects are stored one by one, so
//     Get, List and ByIndex, which read live objects, may see a prefix of
//     an Apply batch, within the rules above.
//   - Replace builds a whole new table (items, trees, snapshot) aside and
//     swaps it in with one atomic store: a reader sees the old content or
//     the new, never a mixture, whichever call it makes. ReplaceOps does
//     the same and reports what each key held before and which keys went
//     (for an informer to notify its handlers of a relist).
//   - LastStoreSyncResourceVersion is the resourceVersion the writer last
//     gave Bookmark. The writer bookmarks after the writes that brought
//     the content there, so a reader that loads it and then reads objects
//     finds them at least that new.
//   - List and ListKeys walk the item table's slots once, without locks:
//     each key comes at most once (a key holds one slot per table, even
//     across deletes and re-adds), every key stored before the call began
//     and not deleted during it is returned, with the object it held when
//     its slot was read; a key added or deleted during the call may or may
//     not be. List is not a snapshot: two keys written one after the
//     other during the call can show the second write and not the first.
//   - After any write returns, every index agrees exactly with the items:
//     no stale entry, no missing one (the property test checks this against
//     a plain map and a linear scan after every step).
//
// Writers are serialised by one mutex and never wait for readers. Stored objects are
// shared with every reader: nobody may modify an object after Set.
package store
