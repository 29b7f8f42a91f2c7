package processor

// Registration is the handle AddHandler returns for one handler (client-go:
// ResourceEventHandlerRegistration). It is not generic, so code that only
// waits for caches to sync can hold registrations of any object type.
type Registration struct {
	// owner is the *Processor[T] that issued the registration.
	owner any
	// l is the listener behind it.
	l registrant
}

// registrant is what a Registration needs of its listener; *listener[T]
// implements it for every T.
type registrant interface {
	handlerName() string
	hasSynced() bool
	pending() int
	deliveredCount() uint64
	panicCount() uint64
	doneChan() <-chan struct{}
}

// Name returns the handler's name (HandlerOptions.Name or a generated one).
func (r *Registration) Name() string { return r.l.handlerName() }

// HasSynced reports whether the informer's source has synced and this
// handler has returned from every initial-list OnAdd it is owed: the
// informer's first list if it was added before that, or the snapshot it was
// given when added later. A removed registration never reports synced.
func (r *Registration) HasSynced() bool { return r.l.hasSynced() }

// Pending returns the number of notifications buffered for the handler and
// not yet handed to it (the one it is handling now is not counted).
func (r *Registration) Pending() int { return r.l.pending() }

// Delivered returns the number of handler calls that have completed,
// panicked ones included.
func (r *Registration) Delivered() uint64 { return r.l.deliveredCount() }

// Panics returns the number of handler calls that panicked.
func (r *Registration) Panics() uint64 { return r.l.panicCount() }

// Done is closed once the handler's goroutine has exited (after Run's
// context ended, or after RemoveHandler and the return of any call then in
// progress), or at RemoveHandler if the goroutine never started.
func (r *Registration) Done() <-chan struct{} { return r.l.doneChan() }

func (l *listener[T]) handlerName() string       { return l.name }
func (l *listener[T]) deliveredCount() uint64    { return l.delivered.Load() }
func (l *listener[T]) panicCount() uint64        { return l.panics.Load() }
func (l *listener[T]) doneChan() <-chan struct{} { return l.done }
