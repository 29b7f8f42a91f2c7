// Package processor fans an informer's notifications out to its event
// handlers. It is the piece of an informer that client-go calls the
// sharedProcessor, with one processorListener per handler; a Handler here is
// client-go's ResourceEventHandler and a Registration its
// ResourceEventHandlerRegistration.
//
// # Place in the pipeline
//
//	apiserver -> reflector -> deltafifo -> store -> processor -> handler -> queue -> workers -> ctrl
//
// One informer, one processor. The informer's single apply goroutine pops
// deltas, writes them to the store and hands the resulting notification to
// Distribute. Distribute appends it to every handler's buffer and returns;
// each buffer is drained by a goroutine of its own that calls the handler,
// which typically computes a key and adds it to a work queue:
//
//	informer apply loop (one goroutine)
//	  store.Apply(delta)
//	  processor.Distribute(n) ─────────┬──────────────────┬──────────────────┐
//	                                   ▼                  ▼                  ▼
//	                           ┌─ listener ───┐   ┌─ listener ───┐   ┌─ listener ───┐
//	                           │ ring buffer  │   │ ring buffer  │   │ ring buffer  │  unbounded (internal/ring):
//	                           │ [n n n n ..] │   │ [n]          │   │ []           │  shrinks after a burst
//	                           └──────┬───────┘   └──────┬───────┘   └──────┬───────┘
//	                             goroutine           goroutine          goroutine
//	                                  ▼                  ▼                  ▼
//	                        Handler.OnAdd/Update/Delete (recover: log, count, go on)
//	                                  ▼                  ▼                  ▼
//	                             queue.Add(key)     queue.Add(key)     queue.Add(key)
//
// # Guarantees
//
//   - Order: each handler sees the notifications in the order they were
//     distributed, which is the order the informer applied the changes to
//     its store. There is no order between different handlers.
//   - No blocking: Distribute never waits for a handler. A slow or stuck
//     handler grows its own buffer and delays nobody else; the cost is
//     memory, which Registration.Pending shows.
//   - Start state: a handler added when the store already has contents first
//     receives all of them as OnAdd(obj, isInitialList=true), then every later
//     notification. When the informer makes its store write and Distribute
//     one step with Apply, the snapshot and the live stream neither overlap
//     nor leave a gap. Through each handler, every object therefore reaches
//     at least its latest state in the store.
//   - HasSynced per registration: true once the informer's source has synced
//     and this handler has returned from every initial-list add it was owed.
//     A controller waits on its own registrations, not just on the informer
//     (ctrl.Wiring makes every wired loop do so).
//   - Resync per handler: the informer calls ShouldResync every
//     ResyncCheckPeriod (the smallest period any handler asked for) and, if
//     it says so, re-queues its objects; the resulting Sync notifications
//     reach only the handlers whose own period has elapsed, as updates with
//     old == new. A handler with period 0 never gets one.
//   - Isolation: a handler that panics is recovered; the panic is logged
//     with the handler, the notification, the object key, the value and a
//     stack, and counted (Registration.Panics and the
//     informer_handler_panics_total{informer,handler} counter); the handler
//     goes on receiving the next notifications, the others never notice.
//
// # Lifecycle
//
// Handlers added before Run start with Run, handlers added during Run start
// at once. RemoveHandler stops one handler and drops its buffer; the call in
// progress, if any, finishes and no other starts. When Run's context ends,
// every handler goroutine stops after its current call, buffered
// notifications are dropped, and Run returns once all goroutines have
// exited. A handler that never returns is a bug in the handler; by default
// Run waits for it, so that once Run returns no handler is running (a caller
// may then shut its queue down safely). Options.ShutdownTimeout bounds that
// wait instead: Run then returns ErrShutdownTimeout naming the handlers
// still in a call, and their goroutines exit whenever those calls return.
//
// # Differences from client-go
//
// client-go moves each notification through two unbuffered channels and two
// goroutines per listener; here Distribute appends to the listener's ring
// (internal/ring) under a short lock and one goroutine drains it in batches,
// so distributing allocates nothing beyond the amortised growth of a buffer.
// client-go's buffer starts at 1024 slots and never shrinks; this one starts
// at 16, keeps up to 1024 and gives the rest back after a burst. Deletes
// inferred from a relist arrive as the typed last-known object with
// finalStateUnknown=true rather than wrapped in a DeletedFinalStateUnknown
// value. The resync check period follows the handlers present (it is not
// fixed when the informer starts).
package processor
