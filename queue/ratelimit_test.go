package queue_test

import (
	"testing"
	"time"

	"github.com/kcmlab/kcm/clock"
	"github.com/kcmlab/kcm/queue"
)

var t0 = time.Date(2025, 6, 1, 12, 0, 0, 0, time.UTC)

func TestItemExponential(t *testing.T) {
	l := queue.NewItemExponential[string](5*time.Millisecond, 1000*time.Second)
	want := []time.Duration{5, 10, 20, 40, 80, 160}
	for i, w := range want {
		if got := l.When("a"); got != w*time.Millisecond {
			t.Fatalf("failure %d: When = %v, want %v", i, got, w*time.Millisecond)
		}
	}
	if got := l.NumRequeues("a"); got != len(want) {
		t.Fatalf("NumRequeues = %d, want %d", got, len(want))
	}
	if got := l.When("b"); got != 5*time.Millisecond {
		t.Fatalf("other key starts at %v, want 5ms (backoff is per key)", got)
	}
	l.Forget("a")
	if got := l.NumRequeues("a"); got != 0 {
		t.Fatalf("NumRequeues after Forget = %d, want 0", got)
	}
	if got := l.When("a"); got != 5*time.Millisecond {
		t.Fatalf("When after Forget = %v, want 5ms", got)
	}
}

func TestItemExponentialCap(t *testing.T) {
	l := queue.NewItemExponential[int](5*time.Millisecond, 1000*time.Second)
	var last time.Duration
	// 5ms·2^17 ≈ 655s, 2^18 ≈ 1311s > cap; far past that, the float math
	// must neither overflow nor wrap.
	for i := range 200 {
		last = l.When(1)
		if last > 1000*time.Second || last <= 0 {
			t.Fatalf("failure %d: When = %v, outside (0, 1000s]", i, last)
		}
		if i == 17 && last != 5*time.Millisecond<<17 {
			t.Fatalf("failure 17: When = %v, want %v", last, 5*time.Millisecond<<17)
		}
	}
	if last != 1000*time.Second {
		t.Fatalf("capped When = %v, want 1000s", last)
	}
}

func TestBucketBurstThenSpacing(t *testing.T) {
	clk := clock.NewFake(t0)
	l := queue.NewBucket[string](clk, 10, 100)
	for i := range 100 {
		if got := l.When("k"); got != 0 {
			t.Fatalf("burst call %d: When = %v, want 0", i, got)
		}
	}
	// The bucket is empty: each further call reserves the next token, 100 ms
	// after the previous one.
	for i := 1; i <= 3; i++ {
		if got := l.When("k"); got != time.Duration(i)*100*time.Millisecond {
			t.Fatalf("post-burst call %d: When = %v, want %v", i, got, time.Duration(i)*100*time.Millisecond)
		}
	}
	// One second of fake time pays back the 3 reserved tokens and refills 7.
	clk.Step(time.Second)
	for i := range 7 {
		if got := l.When("k"); got != 0 {
			t.Fatalf("after refill call %d: When = %v, want 0", i, got)
		}
	}
	if got := l.When("k"); got != 100*time.Millisecond {
		t.Fatalf("after refill exhausted: When = %v, want 100ms", got)
	}
	if l.NumRequeues("k") != 0 {
		t.Fatal("bucket tracks keys")
	}
}

// fixed is a limiter that always answers d and counts per key.
type fixed struct {
	d time.Duration
	n map[string]int
}

func (f *fixed) When(k string) time.Duration { f.n[k]++; return f.d }
func (f *fixed) Forget(k string)             { delete(f.n, k) }
func (f *fixed) NumRequeues(k string) int    { return f.n[k] }

func TestMaxOf(t *testing.T) {
	tests := []struct {
		name string
		ds   []time.Duration
		want time.Duration
	}{
		{"none", nil, 0},
		{"one", []time.Duration{3 * time.Second}, 3 * time.Second},
		{"largest wins", []time.Duration{time.Second, 7 * time.Second, 2 * time.Second}, 7 * time.Second},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			var ls []queue.RateLimiter[string]
			for _, d := range tc.ds {
				ls = append(ls, &fixed{d: d, n: map[string]int{}})
			}
			l := queue.NewMaxOf(ls...)
			if got := l.When("a"); got != tc.want {
				t.Fatalf("When = %v, want %v", got, tc.want)
			}
			for i, inner := range ls {
				if inner.NumRequeues("a") != 1 {
					t.Fatalf("limiter %d did not see the failure", i)
				}
			}
			l.Forget("a")
			if l.NumRequeues("a") != 0 {
				t.Fatal("Forget did not reach every limiter")
			}
		})
	}
}

// The default controller limiter: per-key backoff while the bucket has
// tokens, the bucket's spacing once a burst of failures drains it.
func TestDefaultControllerRateLimiter(t *testing.T) {
	clk := clock.NewFake(t0)
	l := queue.DefaultControllerRateLimiter[int](clk)
	if got := l.When(1); got != 5*time.Millisecond {
		t.Fatalf("first failure = %v, want 5ms", got)
	}
	if got := l.When(1); got != 10*time.Millisecond {
		t.Fatalf("second failure = %v, want 10ms", got)
	}
	for k := 2; k <= 99; k++ { // tokens 3..100 of the burst
		l.When(k)
	}
	if got := l.When(1000); got != 100*time.Millisecond {
		t.Fatalf("first failure past the burst = %v, want 100ms (bucket)", got)
	}
	if got := l.NumRequeues(1); got != 2 {
		t.Fatalf("NumRequeues = %d, want 2", got)
	}
	l.Forget(1)
	if got := l.NumRequeues(1); got != 0 {
		t.Fatalf("NumRequeues after Forget = %d, want 0", got)
	}
}
