package lease

import "time"

// Status is what an Elector knows about its Lease at one moment, for
// display (the pipeline view's leader-election panel). It is a copy:
// reading it takes the elector's lock once.
type Status struct {
	Namespace, Name string
	// Identity is this candidate; Holder the holder last observed ("" if
	// the lease is free or was never read).
	Identity, Holder string
	// Leading says this candidate believes it leads.
	Leading bool
	// LastRenew is when this candidate issued its last successful acquire
	// or renew (zero unless it led).
	LastRenew time.Time
	// ObservedAt is when this candidate first saw the record in its
	// current version: the start of the wait before a standby may take
	// the lease over. Zero before the first read.
	ObservedAt time.Time
	// RenewTime and Transitions are the record's own fields (RenewTime by
	// the holder's clock).
	RenewTime   time.Time
	Transitions int32
	// LeaseDuration is the record's duration (this candidate's setting
	// when the record has none); RenewDeadline and RetryPeriod are this
	// candidate's settings.
	LeaseDuration, RenewDeadline, RetryPeriod time.Duration
}

// Expiry is when others may take the lease over, as this candidate
// counts it: LeaseDuration after it last saw the record change, which for
// a leader is its last renewal. Zero before the first read.
func (s Status) Expiry() time.Time {
	if s.Leading {
		return s.LastRenew.Add(s.LeaseDuration)
	}
	if s.ObservedAt.IsZero() {
		return time.Time{}
	}
	return s.ObservedAt.Add(s.LeaseDuration)
}

// StepDownAt is when a leader that cannot renew stops acting:
// RenewDeadline after its last renewal. Zero for a standby.
func (s Status) StepDownAt() time.Time {
	if !s.Leading {
		return time.Time{}
	}
	return s.LastRenew.Add(s.RenewDeadline)
}

// Status returns what the elector knows now.
func (e *Elector) Status() Status {
	e.mu.Lock()
	defer e.mu.Unlock()
	st := Status{
		Namespace: e.cfg.Namespace, Name: e.cfg.Name, Identity: e.cfg.Identity, Holder: e.leader,
		Leading: e.leading, LastRenew: e.lastRenew, ObservedAt: e.observed.ObservedAt,
		RenewTime: e.observed.Observed.RenewTime, Transitions: e.observed.Observed.LeaseTransitions,
		LeaseDuration: e.observed.Observed.LeaseDuration, RenewDeadline: e.cfg.RenewDeadline,
		RetryPeriod: e.cfg.RetryPeriod,
	}
	if st.LeaseDuration <= 0 {
		st.LeaseDuration = e.cfg.LeaseDuration
	}
	return st
}
