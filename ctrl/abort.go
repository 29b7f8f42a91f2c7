package ctrl

import "context"

// abortKey is the context key of WithAbort.
type abortKey struct{}

// WithAbort returns ctx carrying abort: a Loop run on the returned context
// still stops taking keys when ctx ends and drains its syncs in flight,
// but once abort ends it cancels those syncs at once.
//
// The manager uses it for a lost lease. A shutdown (SIGTERM) drains, so
// that a write under way is not cut in the middle; a leader that lost its
// lease must stop acting now, because another instance may take over
// LeaseDuration − RenewDeadline later (kube-controller-manager exits the
// process at once for the same reason).
func WithAbort(ctx, abort context.Context) context.Context {
	return context.WithValue(ctx, abortKey{}, abort)
}

// abortOf returns the abort context WithAbort put in ctx, or nil.
func abortOf(ctx context.Context) context.Context {
	a, _ := ctx.Value(abortKey{}).(context.Context)
	return a
}
