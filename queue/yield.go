package queue

import "runtime"

// Yielding to the workers: a producer that floods the queue with new keys
// gives up its processor once in a while.
//
// A worker woken by an Add runs only when a processor is free for it. Where
// the producer holds the only processor (GOMAXPROCS 1, or every processor
// busy), the woken worker waits until the producer blocks or the runtime
// preempts it, every 10 to 20 ms. A producer that adds a key in 100-200 ns
// piles up 50 000 to 100 000 distinct keys by then: the queue's index and
// node tables grow past the processor's caches, every add and every get pays
// a cache miss, and the tables are rebuilt and given back flood after flood.
//
// A backlog is not all waste: while a key waits, later adds of it merge into
// one Get, and merging is worth far more to a controller than the queue's
// own nanoseconds (each Get is a sync). So the rule only fires on evidence
// that there is nothing to merge: an Add yields the processor
// (runtime.Gosched) after a run of Queue.yieldRun adds of keys that were not
// pending, with no add of a pending or held key in between, when at least
// as many keys are ready. Any repeated key restarts the run.
//
// The run is yieldAlone (16 384) keys on one processor and yieldShared
// (1024) on more, measured with bench/'s BenchmarkQueue on a 2-CPU VM:
//   - One processor: a producer of distinct keys with 1, 4 or 16 workers
//     took 180-400 ns a key, varying with the preemption timing, and takes
//     85-98 ns. The Controller and Retry shapes (10 000 keys that repeat)
//     are unchanged: their backlog never reaches 16 384. A run of 256 or
//     1024 keys gave 81-85 ns on the flood, but there every yield hands the
//     whole processor to the workers, they drain the backlog, the next run
//     of new keys starts at once, and the Controller shape's workers saw
//     30-100 % of the adds instead of 1 % (no merging left): 18 ns an add
//     became 40-97 ns.
//   - Two processors: workers drain beside the producer, so a yield only
//     lends the producer's processor to a second worker for a while. With
//     a run of 1024, the same floods took 150-180 ns a key instead of
//     195-250, and the Controller and Retry shapes did not move (their
//     run-to-run spread, 13-53 ns an add, is larger than any difference).
//
// A Gosched with nothing else to run costs a few hundred nanoseconds, under
// a nanosecond an add. Posted adds (combine.go) count towards the run but do
// not yield: their posters went on without the lock; the next Add that
// takes the lock yields.

// yieldAlone and yieldShared are the runs of new keys (and the ready keys)
// that make an add yield, with one processor and with more. 16 384 keys
// keep a flood's index, nodes and lane in about 1 MB, and are beyond the
// backlog a repeating population of 10 000 keys builds on one processor.
const (
	yieldAlone  = 16384
	yieldShared = 1024
)

// noteAddLocked records an add, fresh when it made ready a key that was
// neither pending nor held, and sets yieldDue when the run of fresh adds
// and the backlog call for a yield. Every add counts, posted ones and the
// loop's moves of delayed keys included; only a producer's own Add yields.
func (q *Queue[K]) noteAddLocked(fresh bool) {
	if !fresh {
		q.sinceYield = 0
		return
	}
	q.sinceYield++
	if q.sinceYield >= q.yieldRun && q.s.ready >= q.yieldRun {
		q.sinceYield = 0
		q.yieldDue = true
	}
}

// yield gives the processor to another goroutine (a woken worker), or to
// the test's hook.
func (q *Queue[K]) yield() {
	if q.hooks.yield != nil {
		q.hooks.yield()
		return
	}
	runtime.Gosched()
}
