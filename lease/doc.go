// Package lease is leader election on a coordination.k8s.io/v1 Lease: of
// several kcm processes, exactly one runs the controllers at a time, and a
// standby takes over when the leader dies.
//
// # Place in the pipeline
//
// The informers may warm up in every process; only the leader starts the
// workers that write to the cluster.
//
//	apiserver → reflector → deltafifo → store → processor → handler → queue → workers → ctrl
//	    ▲                                                                        ▲
//	    │ GET / PUT leases/<name> (resourceVersion)                               │ gates
//	    └──────────────── lease.Elector ── OnStartedLeading(ctx) ─────────────────┘
//
// # The concept
//
// The Lease is a lock record: holderIdentity, leaseDurationSeconds,
// acquireTime, renewTime, leaseTransitions. Every candidate reads it every
// RetryPeriod. A free lease (no holder) or an expired one is taken with an
// update at the resourceVersion the candidate read, so of two racing
// candidates the apiserver lets exactly one win (the other gets 409
// Conflict, reads again and sees the winner). The holder rewrites renewTime
// every RetryPeriod.
//
// "Expired" is judged without trusting any remote clock: a candidate
// remembers the local time it first saw the current version of the record
// (State.ObservedAt) and may take over once the record's LeaseDuration has
// passed on its own clock since then with no change. renewTime is written
// for people to read, never compared with a local clock, so a holder whose
// clock is hours ahead or behind changes nothing.
//
// The code is split the way the rest of kcm is: Decide is a pure function
// (observed record, when observed, now, identity, durations → create /
// acquire / renew / wait / step down, and the record to write), and a thin
// goroutine shell (Run) does the I/O through a three-method Store, with
// timers from an injected clock.Clock. MemoryStore implements Store for
// tests; KubeStore implements it on rest.Resources[*api.Lease].
//
// # Timeline
//
// H holds the lease, C is a candidate. The axis is real time; each process
// measures durations on its own clock, and no process ever compares its
// clock's reading with a time another process wrote.
//
//	time ───────────────────────────────────────────────────────────────────────────────▶
//	H   acquire   renew     renew     renew  ✗ fail  ✗ fail  ✗ fail  ✗
//	    ├──RP──┤──RP──┤──RP──┤──RP──┤  (every RetryPeriod)
//	                         ▲ tL: last successful renewal issued
//	                         ├────────── RenewDeadline ──────────┤ H's ctx cancelled:
//	                                                             │ H stops acting
//	C   reads every RP; each new version restarts its wait
//	                           ▲ oC: C first reads that version (oC ≥ tL)
//	                           ├──────────────── LeaseDuration ───────────────────┤
//	                                                                              C may
//	                                                             ◀── LD − RD ───▶ acquire
//	                                                              safety margin
//
// With ReleaseOnCancel a leader that is shut down writes the record with no
// holder (and leaseDurationSeconds 1) after OnStartedLeading returned, so C
// takes over at its next read instead of after LeaseDuration.
//
// # Safety argument
//
// Claim: when H's OnStartedLeading context is cancelled no later than
// RenewDeadline after H issued its last successful write, no other
// candidate acquires the lease while H still acts as leader.
//
//  1. C's acquisition is an update at the resourceVersion C read, so it
//     succeeds only if nobody wrote the Lease between C's read and C's write.
//     Hence H's last successful write W was committed before C first read
//     the version C overwrites, i.e. at a real instant c ≤ oC.
//  2. H issued W at tL ≤ c (a write is committed after it is sent), and H
//     stops at tL + RenewDeadline: a timer cancels its context then, without
//     waiting for any request still hanging. tL is the time the write was
//     sent, not the time its answer came: W may be committed, and seen, at
//     any moment in between. For the same reason a candidate whose
//     acquiring write is answered RenewDeadline or more after it was sent
//     does not start leading at all.
//  3. C writes only after LeaseDuration has passed since oC on its clock.
//     So C acts no earlier than oC + LeaseDuration ≥ tL + LeaseDuration,
//     which is LeaseDuration − RenewDeadline (5 s by default) after H
//     stopped.
//
// The margin LD − RD absorbs what the argument treats as instantaneous: the
// clocks' rates differing (the argument compares durations on two monotonic
// clocks, never wall-clock instants, so skew and NTP jumps do not matter,
// only drift), and the time H's code takes to notice its cancelled context.
// Validate enforces LD > RD > 1.2 × RP, so a leader gets more than one
// renewal attempt before its deadline. leaseDurationSeconds is written
// rounded up to whole seconds, which only lengthens C's wait. Identities
// must be unique; DefaultIdentity appends a random UUID to the hostname.
// The argument assumes only electors write the Lease: if a person deletes
// it or clears its holder, a candidate may create or take it at once, and
// H learns of it at its next renewal (within RetryPeriod) and steps down.
//
// Healthz complements this for a wedged process: it fails when this
// instance believes it leads but has not renewed for LeaseDuration +
// HealthTolerance (20 s by default, like kube-controller-manager's adaptor),
// which a working Run never allows.
//
// # Guarantees
//
//   - At most one candidate's OnStartedLeading context is live at a time,
//     under the assumptions above.
//   - Run returns only after OnStartedLeading returned, the lease was
//     released (ReleaseOnCancel) and OnStoppedLeading ran; it leaves no
//     goroutine behind.
//   - leader_election_master_status{name="<lease name>"} is 1 exactly while
//     IsLeader is true.
//
// # How it is tested
//
// Decide is stepped through a table, one case per rule and boundary. The
// shell runs on clock.Fake with stores that misbehave on purpose: one
// holds a write until the test releases it, so a test can move the clock
// while a renewal is on its way and check that the deadline counts from
// the moment the write was sent, and that a leader whose renewal hangs
// steps down at RenewDeadline all the same; others lose answers, fail
// reads or make every write meet a Conflict. KubeStore is checked against
// an httptest fake apiserver serving one Lease. cluster_test.go runs
// electors against a real kube-apiserver; it carries the build constraint
// !nocluster, so `go test -tags nocluster` (and mutation runs, which rerun
// the tests once per mutant) leave it out. It asserts order and outcome —
// who leads, that the old leader stopped before the new one started, that
// by the Lease's acquireTime and renewTime nobody took over sooner than
// leaseDurationSeconds after the last renewal — and logs failover times
// instead of asserting timing windows. Conditions are written as chains of
// ifs rather than tagless switches, whose case conditions the mutation
// tester gremlins cannot see as covered (go-gremlins/gremlins#298).
//
// # Kubernetes counterpart
//
// client-go's k8s.io/client-go/tools/leaderelection: Elector is
// LeaderElector, Config is LeaderElectionConfig, Callbacks is
// LeaderCallbacks, Record is resourcelock.LeaderElectionRecord, Store plays
// resourcelock.Interface and KubeStore resourcelock.LeaseLock; the round in
// attempt.go is tryAcquireOrRenew, Check/Healthz is HealthzAdaptor. Where
// kcm differs on purpose: OnStoppedLeading runs only if OnStartedLeading
// did; Run waits for OnStartedLeading to return and releases only after it
// did (client-go may release while the callback still runs); OnNewLeader
// calls come from one goroutine, in order; a leader that sees the lease
// deleted or naming nobody steps down at once; retries are every
// RetryPeriod without jitter (conflicts are settled by resourceVersion).
package lease
