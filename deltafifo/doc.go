// Package deltafifo is the queue between an informer's reflector and its
// apply loop: the reflector turns LIST and WATCH results into deltas
// ("object X was added / updated / deleted / listed / resynced"), the FIFO
// keeps them in the order they arrived, and the apply loop pops them in
// batches, writes each into the store and hands it to the processor.
//
//	apiserver ──LIST/WATCH──▶ reflector
//	                             │ Add / Update / Delete        (watch events)
//	                             │ StartReplace → Add… → Finish (a list, streamed; a relist, one delta)
//	                             │ Bookmark                     (the server's resourceVersion)
//	                             │ Resync                       (periodic)
//	                             ▼
//	               ┌──────────── deltafifo ─────────────┐
//	               │ log:  d0 d1 d2 d3 … (arrival order) │◀── Known: ListKeys / GetByKey
//	               │ keys: key → pending count, last     │    (reads the store)
//	               └──────────────────┬──────────────────┘
//	                                  │ Pop(ctx, max, process)
//	                                  ▼
//	                 apply loop: store.Apply(d); processor.Distribute(d)
//	                                  │
//	               store ◀────────────┴────────────▶ processor → handler → queue → workers → ctrl
//
// # Arrival order across keys
//
// The FIFO is a log of deltas, not a queue of keys, and it delivers the
// deltas of all keys in the order they arrived. client-go's classic
// DeltaFIFO queues keys instead: a key's deltas pile up behind the position
// its first delta took, so a later event of key A can be applied before an
// earlier event of key B. A List of the cache taken between the two shows a
// combination of A and B that the server never had (A's new state without
// B's older one). Controllers that reason over several objects at once (a
// ReplicaSet and its Pods) can act on such a state. client-go answered
// with RealFIFO, an in-order FIFO that informers use behind the
// InOrderInformers feature gate (on by default since Kubernetes 1.33, with
// batched processing behind InOrderInformersBatchProcess); kcm takes the same
// decision from the start.
// What a key queue gave in return — all of a key's deltas handled in one
// go — is worth little here: the apply loop works in batches anyway, and
// the work queue behind the handlers deduplicates keys for the controllers.
//
// The per-key bookkeeping beside the log keeps what DeltaFIFO's key queue
// was needed for: whether a key has pending deltas, how many, and which is
// its newest. That answers, in O(1) without scanning the log, the three
// questions the producers ask: is this Delete a duplicate, is this key
// worth a tombstone, should Resync skip it.
//
// # Guarantees
//
//   - Order: Pop delivers deltas in the order the calls that produced them
//     took the FIFO's lock, across all keys. The one exception: a real
//     Deleted that arrives while a tombstone of its key is still queued
//     replaces that tombstone in its place.
//   - Delivery: every Added, Updated, Replaced and Sync delta accepted is
//     delivered exactly once; nothing is coalesced. Deleted deltas too, save
//     that a Delete of a key that is neither pending nor in the store is
//     ignored, and a Delete whose key's newest pending delta is already a
//     Deleted is merged with it. So a key's delivered deltas never hold two
//     Deleted in a row, and a Deleted is delivered only for a key the
//     consumer holds or is about to hold.
//   - Invariant: a key has bookkeeping iff it has pending deltas (queued, or
//     in the batch being processed), and its pending count is the number of
//     its deltas there.
//   - Relists (without AtomicReplaces, and every initial list): a replace
//     streams its items as Replaced deltas; Finish adds a
//     Deleted tombstone with FinalStateUnknown (client-go's
//     DeletedFinalStateUnknown) for each key the store or the queue has and
//     the list had not, carrying the last known object. An aborted replace
//     adds no tombstones. The first finished replace defines the initial
//     population: its deltas carry InitialList, and HasSynced turns true
//     once everything enqueued up to its Finish has been consumed.
//   - ResourceVersions (Options.Bookmarks): Bookmark(rv) enqueues a
//     keyless Bookmark delta, and every streamed replace ends with one at
//     the list's resourceVersion, after its tombstones, so that the
//     consumer learns what its content is current at in order with the
//     objects, never ahead of them. A Bookmark is dropped while a replace
//     is open, and replaces one queued right before it.
//   - Atomic relists (Options.AtomicReplaces): a replace that starts after
//     the first one finished enqueues nothing until Finish, which enqueues
//     one keyless ReplacedAll delta with the whole list and its
//     resourceVersion, for the consumer to swap in at once (client-go's
//     AtomicFIFO; the initial list stays streamed, so it is never held
//     whole). Listed objects that Known already holds at the same version
//     are replaced by the held ones, so a relist holds only what changed.
//     Adds, updates and deletes that arrive while it is open are queued
//     as usual and also replace the listed state of their keys. While a
//     ReplacedAll is pending, Resync does nothing and a Delete is never
//     ignored: the consumer may then receive a Deleted for a key the swap
//     removed, and must skip it.
//   - Batches: Pop hands over up to max of what is queued. With
//     Options.GatherReplaces (the informer's), while a replace is open it
//     waits until max deltas are queued or the replace ends, so that a
//     LIST streamed item by item is consumed in full batches.
//   - Pop runs process without the lock, one Pop at a time; deltas count
//     as pending until process returns, so a producer never mistakes an
//     object that is being applied for one the store does not have.
//   - Close drops what is queued; Pop and every producer call then return
//     ErrClosed. Shutdown is immediate: nothing in the FIFO owns a goroutine.
//
// # Memory
//
// The log is a ring buffer (internal/ring) that doubles when full and,
// once larger than ring.KeepCap (1024) slots, shrinks whenever it drains
// to an eighth, so a 50k-item initial list does not leave a 50k-slot
// buffer behind (TestQueueShrinksAfterBurst in memory_test.go). An
// enqueued delta costs one slot and, for a key that had nothing pending,
// one map entry; Pop reuses one batch slice, which is why process must
// not retain it.
//
// # Lock order
//
// The FIFO calls Known (the store) with its own lock held, and runs process
// without it. The store therefore must never call into the FIFO.
//
// # Kubernetes counterpart
//
// client-go's tools/cache DeltaFIFO (key queue, Deltas, Replace,
// DeletedFinalStateUnknown, KnownObjects, Resync) and RealFIFO (in-order
// delivery, batched pops; with the AtomicFIFO gate, on by default since
// Kubernetes 1.36, Bookmark and ReplacedAll deltas). The delta types keep
// client-go's names.
package deltafifo
