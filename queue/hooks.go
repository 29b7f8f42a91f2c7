package queue

// hooks are test-only observation points and settings, given to the
// constructor. The settings (combine, spin, yieldRun) are constants of a
// queue once made: its goroutines read them without the lock (combine, in
// unlock), so a test chooses them here, never by writing a running queue's
// fields.
type hooks struct {
	// blocked runs when a Get is about to block.
	blocked func()
	// refreshed runs after the loop refreshed the in-flight gauges.
	refreshed func()
	// combine and spin, when set, decide combining and spinning instead of
	// GOMAXPROCS.
	combine, spin setting
	// yieldRun, when positive, is the run of new keys that makes an add
	// yield instead of yieldAlone or yieldShared.
	yieldRun int
	// yield, when set, runs instead of runtime.Gosched when an add
	// yields the processor.
	yield func()
}

// setting is a hook's choice for a behaviour GOMAXPROCS otherwise decides.
type setting uint8

const (
	byProcs setting = iota // the production rule: on with GOMAXPROCS > 1
	on
	off
)

// decide is the setting's choice, given the production rule's.
func (s setting) decide(rule bool) bool {
	switch s {
	case on:
		return true
	case off:
		return false
	}
	return rule
}
