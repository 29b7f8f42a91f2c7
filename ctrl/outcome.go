package ctrl

import "time"

// Result is what a sync asks of the loop besides its error
// (controller-runtime's reconcile.Result).
type Result struct {
	// RequeueAfter > 0 syncs the key again after this long, even if
	// nothing changes: for a deadline the controller must act on (a pod
	// that becomes available at minReadySeconds, a progress deadline).
	// It is ignored when the sync returns an error.
	RequeueAfter time.Duration
	// Requeue syncs the key again after the rate limiter's backoff, as
	// a failure would, but without counting as one: for work that must be
	// looked at again until something the controller waits for happens
	// (the garbage collector's owner that no informer has shown yet).
	// RequeueAfter wins over it.
	Requeue bool
}

// action is what the loop does with a key after its sync.
type action uint8

const (
	// forget: success. The key's backoff is reset; it runs again only
	// when a handler adds it.
	forget action = iota
	// retry: failure. The key is added again after its rate limiter's
	// backoff (5 ms, 10 ms, 20 ms, … by default).
	retry
	// drop: failure, and the key has been retried MaxRetries times. Its
	// backoff is reset and it is not added again; the next event for the
	// object brings it back (the Deployment controller's maxRetries).
	drop
	// requeueAfter: success with Result.RequeueAfter. The backoff is
	// reset and the key is added again after the delay.
	requeueAfter
	// requeue: success with Result.Requeue. The key is added again after
	// its rate limiter's backoff, which keeps growing.
	requeue
	// terminal: failure with a TerminalError. Its backoff is reset and it
	// is not added again, whatever MaxRetries says; the next event for the
	// object brings it back. controller-runtime does not add the key again
	// either, but keeps its backoff record; kcm forgets it, as it does for
	// a dropped key, so that the rate limiter holds nothing for a key that
	// nobody retries.
	terminal
)

// decide is the loop's policy, the same as controller-runtime's reconcile
// handler: an error wins over a Result, RequeueAfter over Requeue; a
// terminal error is never retried; any other failed key is retried with
// backoff unless maxRetries (0 = unlimited) rate-limited retries are
// already on record for it.
func decide(res Result, err error, requeues, maxRetries int) action {
	if err != nil {
		if IsTerminal(err) {
			return terminal
		}
		if maxRetries > 0 && requeues >= maxRetries {
			return drop
		}
		return retry
	}
	if res.RequeueAfter > 0 {
		return requeueAfter
	}
	if res.Requeue {
		return requeue
	}
	return forget
}
