package testenv

import (
	"context"
	"time"
)

// startHelperDaemon is the life cycle StartScheduler and StartKwok share:
// a cluster that was stopped refuses (ErrStopped); a helper that still
// runs is kept; one that exited is logged and started again. prepare
// returns the daemon to start (it builds the binary and writes the
// helper's files), and the started daemon is recorded in *slot unless
// Stop ran meanwhile. The caller holds c.helpers.
func (c *Cluster) startHelperDaemon(ctx context.Context, slot **daemon, prepare func(context.Context) (daemonSpec, error)) error {
	c.mu.Lock()
	stopped, old := c.stopped, *slot
	c.mu.Unlock()
	if stopped {
		return ErrStopped
	}
	if old.running() {
		return nil
	}
	spec, err := prepare(ctx)
	if err != nil {
		return err
	}
	if old != nil {
		c.log.Warn().Err(old.proc.exitError()).Msg(spec.name + " had exited; starting it again")
	}
	rctx, cancel := c.readyContext(ctx)
	defer cancel()
	began := time.Now()
	d, err := startDaemon(rctx, spec)
	if err != nil {
		return err
	}
	if !c.adopt(slot, d) {
		return ErrStopped
	}
	c.log.Info().Str("health", d.healthURL).Dur("took", time.Since(began)).Msg(spec.name + " ready")
	return nil
}

// adopt records a started daemon in *slot, unless Stop ran meanwhile (it
// could not see the daemon): then the daemon is stopped and adopt reports
// false.
func (c *Cluster) adopt(slot **daemon, d *daemon) bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.stopped {
		d.proc.stop(daemonStopGrace)
		return false
	}
	*slot = d
	return true
}
