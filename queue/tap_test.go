package queue

import (
	"fmt"
	"testing"
	"time"

	"github.com/kcmlab/kcm/clock"
	"github.com/kcmlab/kcm/tap"
)

// While the view watches, every add is reported at the Enqueue stage,
// named after the queue, with what it did: a new pending key, a duplicate
// folded into the pending one, a key a worker holds (ready again after
// Done), a delayed add and the end of its wait, a rate-limited retry with
// its backoff and the retries on record. The ready, in-flight and waiting
// keys are gauges. Nobody watching: nothing is reported.
func TestTapReportsAdds(t *testing.T) {
	clk := clock.NewFake(t0)
	var log tap.Log
	tp := tap.New(&log, clk)
	q := New(Config[string]{Name: "replicaset-controller", Clock: clk, Tap: tp,
		RateLimiter: NewItemExponential[string](5*time.Millisecond, time.Second)})
	t.Cleanup(q.ShutDown)
	q.Add("off")
	if k := mustGet(t, q); k != "off" {
		t.Fatalf("Get = %q", k)
	}
	q.Done("off")
	tp.SetOn(true)
	q.Add("a")
	q.Add("a")
	q.AddWithPriority("b", PriorityLow)
	if k := mustGet(t, q); k != "a" {
		t.Fatalf("Get = %q", k)
	}
	q.Add("a")
	q.AddRateLimited("c")
	q.AddAfter("c", time.Second)
	for _, g := range []struct {
		name string
		want int64
	}{{"ready", 1}, {"in flight", 1}, {"waiting", 1}} {
		if v, ok := log.Gauge("enqueue/replicaset-controller//" + g.name); !ok || v != g.want {
			t.Errorf("gauge %s = %d, %v; want %d", g.name, v, ok, g.want)
		}
	}
	if k := mustGet(t, q); k != "b" {
		t.Fatalf("Get = %q, want b", k)
	}
	clk.Step(5 * time.Millisecond)
	if k, err := q.Get(testCtx(t)); err != nil || k != "c" { // once its wait is over
		t.Fatalf("Get = %q, %v; want c", k, err)
	}
	q.ShutDown() // the loop, which reports the end of the wait, has returned
	var got []string
	for _, e := range log.Matching(tap.Enqueue, nil) {
		got = append(got, fmt.Sprintf("%s %s %s delay=%v depth=%d retries=%d", e.Source, e.Op, e.Key, e.Delay, e.Depth, e.Retries))
	}
	want := []string{
		"replicaset-controller Add a delay=0s depth=1 retries=0",
		"replicaset-controller Add (deduplicated) a delay=0s depth=1 retries=0",
		"replicaset-controller Add (low priority) b delay=0s depth=2 retries=0",
		"replicaset-controller Add (held: ready after Done) a delay=0s depth=1 retries=0",
		"replicaset-controller AddRateLimited c delay=5ms depth=1 retries=1",
		"replicaset-controller AddAfter (an earlier wait is kept) c delay=1s depth=1 retries=1",
		"replicaset-controller Add (wait over) c delay=0s depth=1 retries=0",
	}
	if fmt.Sprint(got) != fmt.Sprint(want) {
		t.Fatalf("enqueue events\n%q\nwant\n%q", got, want)
	}
}

func TestKeyString(t *testing.T) {
	if keyString("ns/a") != "ns/a" || keyString(42) != "42" {
		t.Fatal("keyString")
	}
}
