package lease

import (
	"context"

	"github.com/kcmlab/kcm/kube/rest"
)

// attemptResult is what one round of I/O hands back to the run loop.
type attemptResult struct {
	state    State    // the candidate's state after the round
	decision Decision // the last decision taken
	err      error    // why the round could not complete, if it could not
}

// maxTries bounds the reads and writes of one round: a write that loses a
// race (409) is followed by one fresh read and decision, no more; the next
// round comes RetryPeriod later.
const maxTries = 2

// attempt is one round of "read, decide, write", client-go's
// tryAcquireOrRenew. It runs on its own goroutine and touches only its
// arguments and the store, so the run loop stays free to act on its
// deadline while a request hangs.
//
// A leader skips the read and writes at the resourceVersion it last wrote
// (nobody else may write a lease that is validly held); any 409, "already
// exists" or "not found" means someone else did write, so the round reads
// the lease again and decides again.
func (e *Elector) attempt(ctx context.Context, s State) attemptResult {
	read := !s.Leading || !s.Exists
	var res attemptResult
	for try := 0; try < maxTries; try++ {
		if read {
			var err error
			if s, err = e.read(ctx, s); err != nil {
				return attemptResult{state: s, err: err}
			}
		}
		d := Decide(s, e.clk.Now(), e.me)
		if d.Action == Wait || d.Action == StepDown {
			return attemptResult{state: s, decision: d}
		}
		issued := e.clk.Now()
		rec, err := e.write(ctx, d)
		if err == nil {
			return attemptResult{state: Wrote(s, rec, issued, e.clk.Now()), decision: d}
		}
		res = attemptResult{state: s, decision: d, err: err}
		if !rest.IsConflict(err) && !rest.IsAlreadyExists(err) && !rest.IsNotFound(err) {
			return res
		}
		read = true
	}
	return res
}

// read gets the lease and returns s having observed it.
func (e *Elector) read(ctx context.Context, s State) (State, error) {
	rec, err := e.store.Get(ctx)
	now := e.clk.Now()
	if err == nil {
		return Observe(s, rec, true, now), nil
	}
	if rest.IsNotFound(err) {
		return Observe(s, Record{}, false, now), nil
	}
	return s, err
}

// write carries out a Create, Acquire or Renew decision.
func (e *Elector) write(ctx context.Context, d Decision) (Record, error) {
	if d.Action == Create {
		return e.store.Create(ctx, d.Write)
	}
	return e.store.Update(ctx, d.Write)
}

// releaseWrite writes rec (a release). If our resourceVersion is stale but
// the lease still names us (a renewal whose answer was lost), it releases
// the fresh version once more.
func (e *Elector) releaseWrite(ctx context.Context, rec Record) error {
	_, err := e.store.Update(ctx, rec)
	if !rest.IsConflict(err) {
		return err
	}
	cur, gerr := e.store.Get(ctx)
	if gerr != nil {
		return gerr
	}
	s := Observe(State{}, cur, true, e.clk.Now())
	again, ok := ReleaseRecord(s, e.clk.Now(), e.me)
	if !ok {
		return nil // someone else holds it now: nothing of ours to release
	}
	_, err = e.store.Update(ctx, again)
	return err
}
