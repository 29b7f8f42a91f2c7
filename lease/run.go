package lease

import (
	"context"
	"time"

	"github.com/kcmlab/kcm/clock"
	"github.com/kcmlab/kcm/kube/rest"
)

// Run campaigns for the lease and, once elected, runs OnStartedLeading
// until ctx is done or leadership is lost. It returns after
// OnStartedLeading has returned and OnStoppedLeading has run, with every
// goroutine it started finished:
//
//   - nil when ctx ended the campaign (leading or not);
//   - an error wrapping ErrLeadershipLost when this candidate led and
//     stopped for another reason (RenewDeadline passed, the lease was taken
//     or deleted) — kube-controller-manager exits then;
//   - ErrAlreadyStarted on a second call.
//
// The leader's context is cancelled at the latest RenewDeadline after its
// last successful renewal was issued, measured on the injected clock, even
// if a request to the store is still hanging.
func (e *Elector) Run(ctx context.Context) error {
	if !e.started.CompareAndSwap(false, true) {
		return ErrAlreadyStarted
	}
	r := &runner{e: e, notify: startNotifier(e.cfg.Callbacks.OnNewLeader)}
	defer r.notify.stop()
	return r.loop(ctx)
}

// runner is the goroutine shell around Decide: it owns the State, the
// timers, the in-flight attempt and the leader's goroutine. All its fields
// are used by the Run goroutine only.
type runner struct {
	e      *Elector
	st     State
	notify *notifier
	// reported is the last holder identity handed to OnNewLeader.
	reported string

	// retry fires when the next attempt is due. Invariant: it is armed
	// exactly when no attempt is in flight.
	retry clock.Timer
	// deadline fires at st.LastRenew + RenewDeadline; nil until leading.
	deadline clock.Timer

	// inflight receives the result of the running attempt; nil when none runs.
	inflight      chan attemptResult
	cancelAttempt context.CancelFunc

	// leaderCancel ends OnStartedLeading's context; leaderDone is closed
	// when OnStartedLeading returned. Both nil until leading started.
	leaderCancel context.CancelFunc
	leaderDone   chan struct{}
}

func (r *runner) loop(ctx context.Context) error {
	r.retry = r.e.clk.NewTimer(0)
	defer r.retry.Stop()
	for {
		select {
		case <-ctx.Done():
			return r.finish(ctx, nil)
		case <-r.retry.C():
			r.startAttempt(ctx)
		case res := <-r.inflight:
			r.inflight = nil
			r.cancelAttempt()
			if err := r.apply(ctx, res); err != nil {
				return r.finish(ctx, err)
			}
			r.retry.Reset(r.e.cfg.RetryPeriod)
		case <-r.deadlineC():
			return r.finish(ctx, deadlineExceeded(r.e.clk.Since(r.st.LastRenew), r.e.cfg.RenewDeadline))
		}
	}
}

// startAttempt runs one round of I/O on its own goroutine.
func (r *runner) startAttempt(ctx context.Context) {
	actx, cancel := context.WithCancel(ctx)
	ch := make(chan attemptResult, 1)
	st := r.st
	go func() { ch <- r.e.attempt(actx, st) }()
	r.inflight, r.cancelAttempt = ch, cancel
}

// apply takes in the result of a round. A non-nil error means leadership
// is lost and the campaign ends.
func (r *runner) apply(ctx context.Context, res attemptResult) error {
	was := r.st.Leading
	r.st = res.state
	r.e.setObserved(r.st)
	r.observeLeader()
	if res.err != nil {
		r.logAttemptError(res)
	} else if res.decision.Action == StepDown {
		return res.decision.Err
	}
	switch {
	case r.st.Leading && !was:
		return r.startLeading(ctx)
	case r.st.Leading:
		r.armDeadline()
	}
	return nil
}

// startLeading starts OnStartedLeading on a context that lives until the
// campaign's ctx ends or finish cancels it.
func (r *runner) startLeading(ctx context.Context) error {
	// The acquiring write's answer may come RenewDeadline or more after it
	// was issued; others may count from the issue time, so it is too late.
	if since := r.e.clk.Since(r.st.LastRenew); since >= r.e.cfg.RenewDeadline {
		return deadlineExceeded(since, r.e.cfg.RenewDeadline)
	}
	lctx, cancel := context.WithCancel(ctx)
	done := make(chan struct{})
	r.leaderCancel, r.leaderDone = cancel, done
	r.armDeadline()
	r.e.log.Info().Int32("transitions", r.st.Observed.LeaseTransitions).Msg("acquired the lease; leading")
	go func() {
		defer close(done)
		r.e.cfg.Callbacks.OnStartedLeading(lctx)
	}()
	return nil
}

// armDeadline (re)arms the step-down timer for LastRenew + RenewDeadline,
// an absolute time, and publishes the renewal for Check.
func (r *runner) armDeadline() {
	at := r.st.LastRenew.Add(r.e.cfg.RenewDeadline)
	if r.deadline == nil {
		r.deadline = clock.NewTimerAt(r.e.clk, at)
	} else {
		clock.ResetAt(r.e.clk, r.deadline, at)
	}
	r.e.setLeading(true, r.st.LastRenew)
}

func (r *runner) deadlineC() <-chan time.Time {
	if r.deadline == nil {
		return nil
	}
	return r.deadline.C()
}

// observeLeader reports a change of holder to the logs and OnNewLeader.
func (r *runner) observeLeader() {
	if !r.st.Exists {
		return
	}
	h := r.st.Observed.HolderIdentity
	r.e.setLeader(h)
	if h == "" || h == r.reported {
		return
	}
	r.reported = h
	r.e.log.Info().Str("leader", h).Msg("new leader observed")
	r.notify.post(h)
}

func (r *runner) logAttemptError(res attemptResult) {
	switch {
	case r.st.Leading:
		r.e.log.Warn().Err(res.err).Str("action", res.decision.Action.String()).Msg("lease renewal failed")
	case rest.IsConflict(res.err), rest.IsAlreadyExists(res.err):
		r.e.log.Debug().Err(res.err).Msg("lost a race for the lease")
	default:
		r.e.log.Warn().Err(res.err).Msg("could not read or acquire the lease")
	}
}

// finish ends the campaign. Leadership ends first, so that nothing acts as
// leader a moment longer than needed; then the in-flight attempt and the
// leader's goroutine are awaited; only then, with nothing left acting as
// leader, is the lease released (ReleaseOnCancel) and OnStoppedLeading run.
func (r *runner) finish(ctx context.Context, cause error) error {
	r.stopLeading(cause)
	if r.inflight != nil {
		r.cancelAttempt()
		r.st = (<-r.inflight).state // it may have renewed: release needs its resourceVersion
		r.inflight = nil
	}
	if r.deadline != nil {
		r.deadline.Stop()
	}
	led := r.leaderDone != nil
	if led {
		<-r.leaderDone
	}
	if cause == nil && r.e.cfg.ReleaseOnCancel {
		r.release(ctx)
	}
	if led && r.e.cfg.Callbacks.OnStoppedLeading != nil {
		r.e.cfg.Callbacks.OnStoppedLeading()
	}
	return cause
}

func (r *runner) stopLeading(cause error) {
	if r.leaderCancel != nil {
		r.leaderCancel()
	}
	r.e.setLeading(false, r.st.LastRenew)
	if r.leaderDone == nil {
		return // never led: nothing stopped
	}
	if cause != nil {
		r.e.log.Error().Err(cause).Msg("leadership lost; stopped leading")
		return
	}
	r.e.log.Info().Msg("context done; stopped leading")
}

// release gives the lease up, bounded by RenewDeadline on the injected
// clock. It runs when nothing acts as leader any more.
func (r *runner) release(ctx context.Context) {
	rec, ok := ReleaseRecord(r.st, r.e.clk.Now(), r.e.me)
	if !ok {
		return
	}
	rctx, cancel := context.WithCancel(context.WithoutCancel(ctx))
	defer cancel()
	done := make(chan error, 1)
	go func() { done <- r.e.releaseWrite(rctx, rec) }()
	t := r.e.clk.NewTimer(r.e.cfg.RenewDeadline)
	defer t.Stop()
	var err error
	select {
	case err = <-done:
	case <-t.C():
		cancel()
		err = <-done
	}
	if err != nil {
		r.e.log.Warn().Err(err).Msg("could not release the lease; others take over when it expires")
		return
	}
	r.e.log.Info().Msg("released the lease")
}
