package lease

import (
	"errors"
	"fmt"
	"time"
)

// ErrRenewalStalled is wrapped by Check when a leader has gone too long
// without renewing.
var ErrRenewalStalled = errors.New("lease: leader has stopped renewing")

// Check is the /healthz check at local time now. It fails only when this
// candidate believes it leads yet its last successful renewal is more than
// LeaseDuration + HealthTolerance old. A healthy elector steps down at
// RenewDeadline, long before that, so a failure means the election loop is
// wedged (or starved) while the process still acts as leader: exactly when
// a supervisor should restart it. Candidates are always healthy.
func (e *Elector) Check(now time.Time) error {
	e.mu.Lock()
	leading, last := e.leading, e.lastRenew
	e.mu.Unlock()
	if !leading {
		return nil
	}
	limit := e.cfg.LeaseDuration + e.cfg.HealthTolerance
	if since := now.Sub(last); since > limit {
		return fmt.Errorf("%w: lease %s/%s last renewed %v ago, limit %v",
			ErrRenewalStalled, e.cfg.Namespace, e.cfg.Name, since, limit)
	}
	return nil
}

// Healthz is Check at the elector clock's current time.
func (e *Elector) Healthz() error { return e.Check(e.clk.Now()) }
