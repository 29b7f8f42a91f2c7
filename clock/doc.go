// Package clock is kcm's injectable source of time.
//
// Everything in kcm that waits or measures — the work queue's delay heap and
// metrics, the reflector's backoff and idle timeouts, the lease elector's
// renew deadline, the processor's resync — takes a Clock instead of calling
// package time. Production passes Real; tests pass a *Fake and move time by
// hand, so that no test sleeps and every timing decision can be stepped:
//
//	      production                           test
//	  ┌──────────────┐             ┌────────────────────────────┐
//	  │ clock.Real{} │             │ f := clock.NewFake(t0)     │
//	  └──────┬───────┘             │ f.BlockUntilWaiters(ctx, 1)│
//	         │                     │ f.Step(5 * time.Second)    │
//	         ▼                     └──────────────┬─────────────┘
//	reflector · queue · lease · processor ◀───────┘
//	(NewTimer / NewTicker / Now / Since)
//
// # Guarantees
//
//   - Timer follows Go 1.23+ time.Timer semantics for both implementations:
//     once Stop or Reset returns, no value from before the call is received.
//   - A Fake fires nothing on its own. Step and SetTime fire every due timer
//     and ticker before they return, in deadline order (ties in the order they
//     were armed); a timer receives its deadline as the value.
//   - A Fake ticker delivers at most one tick per Step or SetTime and drops
//     ticks its reader has not taken, as time.Ticker does.
//   - NewTimerAt and ResetAt arm a timer for an absolute time. Code that
//     computes a deadline and arms for it later should use them: under a Fake
//     the deadline is exact even if a Step lands between the two.
//   - BlockUntilWaiters lets a test learn, without sleeping, that the code
//     under test has armed its timers, so the next Step is deterministic.
//
// There is no Sleep on purpose: code that waits selects on a Timer together
// with its context.Context, so every wait can be cancelled.
//
// # Kubernetes counterpart
//
// client-go uses k8s.io/utils/clock (Clock, WithTicker, PassiveClock) and
// k8s.io/utils/clock/testing.FakeClock, whose Step, SetTime, HasWaiters and
// BlockUntil play the same roles as Fake's.
package clock
