// Package ring is the growable FIFO buffer under three of kcm's queues: the
// deltafifo's log of changes, the work queue's two lanes of keys and each
// event handler's buffer of notifications in the processor. All three need
// the same thing — append at one end, take from the other, in order, with
// no bound on how much may pile up — and all three see the same traffic
// shape: long quiet stretches at a small size, then a burst (an initial
// list of 50 000 objects, a resync, a slow handler) that must be absorbed
// without blocking and whose memory should be given back once it drains.
//
// # Place in the pipeline
//
//	reflector ─▶ deltafifo ─▶ store ─▶ processor ─▶ handler ─▶ queue ─▶ workers
//	             └ Ring[Delta]          └ Ring[Notification]    └ Ring[K] ×2 (normal, low lane)
//	               (+ At: the newest     per handler              per queue
//	               delta of a key is
//	               rewritten in place)
//
// Each owner guards its ring with its own mutex; a Ring takes no locks and
// starts no goroutines.
//
// # Layout
//
// The elements live in one array used as a circle: head is the oldest, and
// the element i places after it sits at (head+i) mod capacity. Capacity is
// always a power of two, so "mod capacity" is a mask, not a division. A
// popped slot is set to the zero value at once, so the ring never keeps an
// object alive that its owner has let go of.
//
// # Growth and shrink rule
//
//   - The zero Ring has no array; the first Push allocates StartCap (16)
//     slots, so a queue that stays empty, or nearly, costs almost nothing.
//   - A Push into a full ring doubles the capacity.
//   - After a Pop or PopInto, if the capacity is above KeepCap (1024) and
//     the ring is at most an eighth full, the capacity drops to the
//     smallest power of two that is at least twice Len(), and at least
//     KeepCap. Popped one at a time, that is a quarter of the old capacity;
//     a PopInto that drains a burst at once shrinks in one step. A ring
//     never shrinks below KeepCap, nor at all if it never grew past it.
//
// Why this one rule serves all three owners. A resize leaves the ring at
// most half full (after a growth, just over half; after a shrink, at most
// half), and the next one needs the contents to double or to fall to a
// quarter: a queue that hovers around any size never reallocates back and
// forth, and the copying a resize costs is paid for by the pushes or pops
// since the last one (amortised O(1) per element). The KeepCap floor keeps
// the common case — queues of up to KeepCap elements — free of resizes
// altogether once warmed up, for KeepCap slots per ring that ever grew
// that far.
//
// Before this package the deltafifo and the work queue shrank to a quarter
// at an eighth (the rule kept here, now with the KeepCap floor enforced:
// they used to shrink below it), and the processor halved at a quarter.
// Halving at a quarter was tried for all three and measured: it keeps a
// drained ring closer to its contents, but it reallocates at every
// halving of the contents, so draining a burst allocates more, and the
// work queue's and deltafifo's concurrent benchmarks allocated more bytes
// per operation. Memory held after a burst is the same either way once it
// has fully drained (KeepCap).
//
// # Complexity
//
//   - Push, Pop: O(1) amortised; O(1) worst case unless that call resizes,
//     which copies the Len() live elements once.
//   - PopInto(dst): O(len(dst)) plus at most one resize, done with two
//     copies and two clears, not element by element.
//   - At, Len, Cap, Reset: O(1). Reserve: O(1), or one resize.
//   - Memory: fewer than 2·Len() slots after a Push that doubled the
//     ring; after a Pop or PopInto, fewer than 8·Len() slots or at most
//     KeepCap (TestMatchesSliceModel in ring_test.go checks both after
//     every step); a ring that never held more than KeepCap elements never
//     has more than KeepCap slots.
//   - Steady state allocates nothing: Push, Pop, PopInto and At allocate
//     only when the capacity changes (TestAllocations counts them).
//
// # Kubernetes counterpart
//
// client-go's processorListener buffers notifications in
// k8s.io/utils/buffer.RingGrowing, which doubles when full and never
// shrinks; that package's newer Ring drops back to a fixed "normal size"
// only once it is completely empty. client-go's DeltaFIFO and work queue
// keep their keys in plain slices instead. This package replaces all of
// them with one ring that gives memory back as it drains, before it is
// empty.
package ring
