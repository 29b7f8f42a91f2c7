package lease

import (
	"errors"
	"fmt"
	"time"
)

// Action is what the decision core tells the shell to do next.
type Action int

const (
	// Wait: another candidate holds an unexpired lease; look again after
	// RetryPeriod.
	Wait Action = iota
	// Create: no Lease exists; create it naming this candidate.
	Create
	// Acquire: the lease is free or expired; take it over (an update at the
	// observed resourceVersion).
	Acquire
	// Renew: this candidate holds the lease; write a fresh renewTime.
	Renew
	// StepDown: this candidate leads but must stop (deadline passed, or
	// someone else holds the lease now).
	StepDown
)

var actionNames = [...]string{Wait: "wait", Create: "create", Acquire: "acquire", Renew: "renew", StepDown: "step-down"}

func (a Action) String() string {
	if a >= 0 && int(a) < len(actionNames) {
		return actionNames[a]
	}
	return fmt.Sprintf("Action(%d)", int(a))
}

// ErrLeadershipLost is wrapped by the error Run returns, and by the
// Decision of a StepDown, when a leader stops leading for any reason other
// than its context being cancelled.
var ErrLeadershipLost = errors.New("lease: leadership lost")

// Candidate is what the decision core needs to know about the candidate
// that decides.
type Candidate struct {
	Identity      string
	LeaseDuration time.Duration
	RenewDeadline time.Duration
}

// Decision is the core's answer.
type Decision struct {
	Action Action
	// Write is the record to write for Create, Acquire and Renew. Its
	// ResourceVersion is the observed one, the precondition of the update.
	Write Record
	// Until is, for Wait, the local time the observed lease expires for
	// this candidate.
	Until time.Time
	// Err says why, for StepDown; it wraps ErrLeadershipLost.
	Err error
}

// Decide is the pure decision core. Given what the candidate last observed
// (s), the local time now and who it is, it says what to do. It does no I/O
// and reads no clock, so tests can step it through any history.
//
// The rules, in order:
//
//  1. A leader whose last successful write was issued RenewDeadline or more
//     ago steps down (it can no longer be sure nobody else took over).
//  2. No lease: a leader steps down (someone deleted it, and others may
//     be creating it now); a candidate creates it.
//  3. The record names me: renew (acquireTime and leaseTransitions kept).
//  4. I lead but the record names someone else, or nobody: step down.
//  5. Someone else holds it and LeaseDuration has not passed since I
//     observed the record change: wait. The holder's renewTime is never
//     compared with my clock.
//  6. Otherwise (free, or expired as I observed it): acquire, counting a
//     transition.
func Decide(s State, now time.Time, me Candidate) Decision {
	if s.Leading && !now.Before(s.LastRenew.Add(me.RenewDeadline)) {
		return Decision{Action: StepDown, Err: deadlineExceeded(now.Sub(s.LastRenew), me.RenewDeadline)}
	}
	if !s.Exists {
		if s.Leading {
			return Decision{Action: StepDown, Err: fmt.Errorf("%w: the lease was deleted", ErrLeadershipLost)}
		}
		return Decision{Action: Create, Write: Record{
			HolderIdentity: me.Identity, LeaseDuration: wireDuration(me.LeaseDuration),
			AcquireTime: now, RenewTime: now,
		}}
	}
	old, holder := s.Observed, s.Observed.HolderIdentity
	if holder == me.Identity {
		w := old
		w.LeaseDuration, w.RenewTime = wireDuration(me.LeaseDuration), now
		if w.AcquireTime.IsZero() {
			w.AcquireTime = now
		}
		return Decision{Action: Renew, Write: w}
	}
	if s.Leading {
		return Decision{Action: StepDown, Err: fmt.Errorf("%w: the lease now names %q", ErrLeadershipLost, holder)}
	}
	if holder != "" && now.Before(s.expiresAt(me.LeaseDuration)) {
		return Decision{Action: Wait, Until: s.expiresAt(me.LeaseDuration)}
	}
	return Decision{Action: Acquire, Write: Record{
		HolderIdentity: me.Identity, LeaseDuration: wireDuration(me.LeaseDuration),
		AcquireTime: now, RenewTime: now, LeaseTransitions: old.LeaseTransitions + 1,
		ResourceVersion: old.ResourceVersion,
	}}
}

// ReleaseRecord returns the record that gives the lease up: no holder,
// leaseDurationSeconds 1 (so that implementations which time out even a
// free lease take over at once), renewTime now, acquireTime and
// leaseTransitions kept. ok is false when s shows the lease is not ours to
// release.
func ReleaseRecord(s State, now time.Time, me Candidate) (rec Record, ok bool) {
	if !s.Exists || s.Observed.HolderIdentity != me.Identity {
		return Record{}, false
	}
	rec = s.Observed
	rec.HolderIdentity, rec.LeaseDuration, rec.RenewTime = "", time.Second, now
	return rec, true
}

func deadlineExceeded(since, renewDeadline time.Duration) error {
	return fmt.Errorf("%w: no successful renewal for %v (RenewDeadline %v)", ErrLeadershipLost, since, renewDeadline)
}

// wireDuration rounds d up to whole seconds, as leaseDurationSeconds holds
// it. Rounding up keeps the safety margin: others wait at least d.
func wireDuration(d time.Duration) time.Duration {
	if r := d % time.Second; r != 0 {
		d += time.Second - r
	}
	return d
}
