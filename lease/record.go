package lease

import "time"

// Record is the content of the lock: the spec of a coordination.k8s.io/v1
// Lease plus the resourceVersion it was read at. It is a plain value, so the
// decision core can be fed and checked without any Kubernetes types.
type Record struct {
	// HolderIdentity is the leader; "" means the lease is free.
	HolderIdentity string
	// LeaseDuration is how long candidates must wait after observing a
	// change before taking over (leaseDurationSeconds on the wire).
	LeaseDuration time.Duration
	// AcquireTime is when the current holder took the lease, by its clock.
	AcquireTime time.Time
	// RenewTime is the holder's last renewal, by the holder's clock. It is
	// informational only: candidates never compare it with their own clock.
	RenewTime time.Time
	// LeaseTransitions counts changes of holder.
	LeaseTransitions int32
	// ResourceVersion is the object's version as read or written; an update
	// carries it and fails with a Conflict when it is stale.
	ResourceVersion string
}

// sameAs reports whether r and o are the same version of the record: a
// changed resourceVersion or any changed spec field counts as a change.
func (r Record) sameAs(o Record) bool {
	return r.ResourceVersion == o.ResourceVersion &&
		r.HolderIdentity == o.HolderIdentity &&
		r.LeaseDuration == o.LeaseDuration &&
		r.AcquireTime.Equal(o.AcquireTime) &&
		r.RenewTime.Equal(o.RenewTime) &&
		r.LeaseTransitions == o.LeaseTransitions
}

// State is everything the decision core knows about one candidate. The
// goroutine shell owns one State and replaces it with what Observe and the
// outcome of writes return; nothing else mutates it.
type State struct {
	// Exists says the lease object exists; Observed is meaningful only then.
	Exists bool
	// Observed is the last record this candidate read or wrote.
	Observed Record
	// ObservedAt is the local time Observed was first seen in its current
	// version. Invariant: it changes only when Observed changes (or appears).
	// Expiry is judged from it, never from Observed.RenewTime.
	ObservedAt time.Time
	// Leading says this candidate believes it leads.
	Leading bool
	// LastRenew is the local time this candidate issued its last successful
	// acquire or renew write. Invariant: meaningful only while Leading; it is
	// not later than the moment the write became visible to anyone else.
	LastRenew time.Time
}

// Observe returns s after reading rec (exists=false: the lease was not
// found) at local time now. ObservedAt moves only if the record changed.
func Observe(s State, rec Record, exists bool, now time.Time) State {
	if !exists {
		if s.Exists || s.ObservedAt.IsZero() {
			s.ObservedAt = now
		}
		s.Exists, s.Observed = false, Record{}
		return s
	}
	if !s.Exists || !s.Observed.sameAs(rec) {
		s.ObservedAt = now
	}
	s.Exists, s.Observed = true, rec
	return s
}

// Wrote returns s after this candidate's write of rec succeeded: rec (as
// the server returned it) is observed at done, and the candidate leads with
// its deadline counted from issued, the local time the write was sent.
func Wrote(s State, rec Record, issued, done time.Time) State {
	s = Observe(s, rec, true, done)
	s.Leading, s.LastRenew = true, issued
	return s
}

// expiresAt is when a candidate that is not the holder may take the lease
// over: the record's own duration (the holder's setting) after this
// candidate observed it, or cfgDuration when the record carries none.
func (s State) expiresAt(cfgDuration time.Duration) time.Time {
	d := s.Observed.LeaseDuration
	if d <= 0 {
		d = cfgDuration
	}
	return s.ObservedAt.Add(d)
}
