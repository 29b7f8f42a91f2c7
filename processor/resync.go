package processor

import "time"

// MinResyncPeriod is the shortest resync period a handler can ask for; a
// shorter positive period is raised to it (client-go: minimumResyncPeriod).
const MinResyncPeriod = time.Second

// resyncSchedule is one listener's resync clock, a pure state machine over
// instants handed to it (client-go: processorListener.shouldResync and
// determineNextResync). The processor keeps one per listener under its lock.
type resyncSchedule struct {
	// period is how often the listener wants syncs; 0 means never.
	// Invariant: 0 or >= MinResyncPeriod.
	period time.Duration
	// next is the earliest instant the listener is due again. Unused when
	// period is 0 (check never fires then).
	next time.Time
	// due is the verdict of the last check: sync notifications are passed on
	// to this listener only while it holds.
	due bool
}

// newResyncSchedule starts a schedule at now for a requested period.
func newResyncSchedule(requested time.Duration, now time.Time) resyncSchedule {
	period := effectiveResyncPeriod(requested)
	return resyncSchedule{period: period, next: now.Add(period)}
}

// effectiveResyncPeriod clamps a requested period: negative and zero mean no
// resync, positive periods are at least MinResyncPeriod.
func effectiveResyncPeriod(requested time.Duration) time.Duration {
	if requested <= 0 {
		return 0
	}
	return max(requested, MinResyncPeriod)
}

// check decides whether the listener takes part in the resync that starts at
// now, and if so schedules the next one a full period later. The informer
// checks at its own cadence, so a period that is not a multiple of it is
// effectively rounded up to the next check.
func (s *resyncSchedule) check(now time.Time) bool {
	s.due = s.period > 0 && !now.Before(s.next)
	if s.due {
		s.next = now.Add(s.period)
	}
	return s.due
}
