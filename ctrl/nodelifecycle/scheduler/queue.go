package scheduler

import (
	"container/heap"
	"sync"
	"time"

	"github.com/kcmlab/kcm/clock"
)

const (
	// NodeHealthUpdateRetry is how many times a monitor pass tries to
	// update one node's health before giving up on it for the pass.
	NodeHealthUpdateRetry = 5
	// NodeEvictionPeriod is how often the controller runs the NoExecute
	// tainting pass over the zones' queues.
	NodeEvictionPeriod = 100 * time.Millisecond
	// EvictionRateLimiterBurst is every zone bucket's burst.
	EvictionRateLimiterBurst = 1
)

// TimedValue is one queued node: its name, its uid, when it was added and
// when it is due.
type TimedValue struct {
	Value     string
	UID       string
	AddedAt   time.Time
	ProcessAt time.Time
}

// timedHeap orders values by ProcessAt.
type timedHeap []*TimedValue

func (h timedHeap) Len() int           { return len(h) }
func (h timedHeap) Less(i, j int) bool { return h[i].ProcessAt.Before(h[j].ProcessAt) }
func (h timedHeap) Swap(i, j int)      { h[i], h[j] = h[j], h[i] }
func (h *timedHeap) Push(x any)        { *h = append(*h, x.(*TimedValue)) }
func (h *timedHeap) Pop() any {
	old := *h
	x := old[len(old)-1]
	*h = old[:len(old)-1]
	return x
}

// RateLimitedTimedQueue is one zone's queue of nodes to taint
// (upstream's RateLimitedTimedQueue with its UniqueQueue). Safe for
// concurrent use.
type RateLimitedTimedQueue struct {
	clk clock.Clock

	mu   sync.Mutex // guards heap and seen
	heap timedHeap
	// seen holds every value added and not yet Removed, including values
	// fn has handled (which have left the heap).
	seen map[string]struct{}

	limiterMu sync.Mutex // guards limiter; held through Try
	limiter   *TokenBucket
}

// NewRateLimitedTimedQueue returns an empty queue taking values at qps
// (burst EvictionRateLimiterBurst).
func NewRateLimitedTimedQueue(clk clock.Clock, qps float32) *RateLimitedTimedQueue {
	return &RateLimitedTimedQueue{clk: clk, seen: map[string]struct{}{},
		limiter: NewTokenBucket(clk, qps, EvictionRateLimiterBurst)}
}

// ActionFunc handles a due value: true when done with it, or false and how
// long to wait before trying it again.
type ActionFunc func(TimedValue) (bool, time.Duration)

// Try hands due values to fn, in ProcessAt order, while the limiter
// gives tokens (one per value looked at).
func (q *RateLimitedTimedQueue) Try(fn ActionFunc) {
	val, ok := q.head()
	q.limiterMu.Lock()
	defer q.limiterMu.Unlock()
	for ok {
		if !q.limiter.TryAccept() {
			break
		}
		now := q.clk.Now()
		if now.Before(val.ProcessAt) {
			break
		}
		if done, wait := fn(val); !done {
			val.ProcessAt = now.Add(wait + 1)
			q.replace(val)
		} else {
			q.dequeue(val.Value)
		}
		val, ok = q.head()
	}
}

// Add queues value, due now, unless it is already queued or was handled
// and not Removed since.
func (q *RateLimitedTimedQueue) Add(value, uid string) bool {
	now := q.clk.Now()
	q.mu.Lock()
	defer q.mu.Unlock()
	if _, dup := q.seen[value]; dup {
		return false
	}
	heap.Push(&q.heap, &TimedValue{Value: value, UID: uid, AddedAt: now, ProcessAt: now})
	q.seen[value] = struct{}{}
	return true
}

// Remove forgets value: out of the heap and no longer seen. It answers
// whether value was seen.
func (q *RateLimitedTimedQueue) Remove(value string) bool {
	q.mu.Lock()
	defer q.mu.Unlock()
	if _, ok := q.seen[value]; !ok {
		return false
	}
	delete(q.seen, value)
	for i, v := range q.heap {
		if v.Value == value {
			heap.Remove(&q.heap, i)
			break
		}
	}
	return true
}

// Clear empties the queue and forgets every value.
func (q *RateLimitedTimedQueue) Clear() {
	q.mu.Lock()
	defer q.mu.Unlock()
	q.heap = nil
	q.seen = map[string]struct{}{}
}

// Len is the number of values waiting in the heap.
func (q *RateLimitedTimedQueue) Len() int {
	q.mu.Lock()
	defer q.mu.Unlock()
	return len(q.heap)
}

// QPS is the current rate.
func (q *RateLimitedTimedQueue) QPS() float32 {
	q.limiterMu.Lock()
	defer q.limiterMu.Unlock()
	return q.limiter.QPS()
}

// SwapLimiter sets the queue's rate: a never-accepting limiter for
// qps <= 0, else a fresh bucket of burst 1 whose token is spent when the
// old bucket had none. The same rate changes nothing.
func (q *RateLimitedTimedQueue) SwapLimiter(qps float32) {
	q.limiterMu.Lock()
	defer q.limiterMu.Unlock()
	if q.limiter.QPS() == qps {
		return
	}
	next := NewTokenBucket(q.clk, qps, EvictionRateLimiterBurst)
	if qps > 0 && !q.limiter.TryAccept() {
		next.TryAccept()
	}
	q.limiter = next
}

func (q *RateLimitedTimedQueue) head() (TimedValue, bool) {
	q.mu.Lock()
	defer q.mu.Unlock()
	if len(q.heap) == 0 {
		return TimedValue{}, false
	}
	return *q.heap[0], true
}

// replace puts val back with its new ProcessAt.
func (q *RateLimitedTimedQueue) replace(val TimedValue) {
	q.mu.Lock()
	defer q.mu.Unlock()
	for i, v := range q.heap {
		if v.Value == val.Value {
			heap.Remove(&q.heap, i)
			heap.Push(&q.heap, &val)
			return
		}
	}
}

// dequeue takes value out of the heap but keeps it seen.
func (q *RateLimitedTimedQueue) dequeue(value string) {
	q.mu.Lock()
	defer q.mu.Unlock()
	for i, v := range q.heap {
		if v.Value == value {
			heap.Remove(&q.heap, i)
			return
		}
	}
}
