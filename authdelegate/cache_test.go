package authdelegate

import (
	"fmt"
	"testing"
	"time"

	"github.com/kcmlab/kcm/clock"
)

// TestTTLCache: an entry lives exactly its TTL on the injected clock; a
// TTL of 0 stores nothing; a full cache drops the expired entries, then
// the one that expires soonest, and never grows past its size.
func TestTTLCache(t *testing.T) {
	clk := clock.NewFake(t0)
	c := newTTLCache[int](clk, 3)
	c.add("a", 1, 10*time.Second)
	c.add("zero", 9, 0)
	if _, ok := c.get("zero"); ok {
		t.Error("a TTL of 0 was cached")
	}
	clk.Step(10*time.Second - time.Nanosecond)
	if v, ok := c.get("a"); !ok || v != 1 {
		t.Errorf("get(a) before its TTL = %v, %v", v, ok)
	}
	clk.Step(time.Nanosecond)
	if _, ok := c.get("a"); ok {
		t.Error("get(a) at its TTL: still cached")
	}
	c.add("b", 2, 5*time.Second)
	c.add("c", 3, 20*time.Second)
	c.add("d", 4, 30*time.Second)
	c.add("e", 5, 40*time.Second) // full: b expires soonest and goes
	if _, ok := c.get("b"); ok {
		t.Error("b was not evicted")
	}
	for _, k := range []string{"c", "d", "e"} {
		if _, ok := c.get(k); !ok {
			t.Errorf("%s was evicted", k)
		}
	}
	clk.Step(25 * time.Second) // c expired
	c.add("f", 6, time.Minute)
	if _, ok := c.get("d"); !ok {
		t.Error("d was evicted while an expired entry was there")
	}
	for i := range 100 {
		c.add(fmt.Sprint(i), i, time.Minute)
	}
	if n := c.len(); n > 3 {
		t.Errorf("the cache holds %d entries, more than its size 3", n)
	}
}
