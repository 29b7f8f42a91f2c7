package queue

import (
	"math/rand/v2"
	"testing"
)

// TestFastDedupTable checks, step by step, when an add may skip the lock:
// only while the key waits in a lane (client-go's rule that an add of a
// dirty key that is not being processed changes nothing), never while a
// worker holds it — an add then must mark it dirty so that Done requeues it.
func TestFastDedupTable(t *testing.T) {
	type step struct {
		op   string // "add", "addLow", "get", "done"
		key  string
		fast map[string][2]bool // key → {pending for a normal add, for a low add}
	}
	no, normal, lowOnly := [2]bool{false, false}, [2]bool{true, true}, [2]bool{false, true}
	tests := []struct {
		name  string
		steps []step
	}{
		{"a first add publishes nothing; the first duplicate does", []step{
			{op: "add", key: "a", fast: map[string][2]bool{"a": no}},
			{op: "add", key: "a", fast: map[string][2]bool{"a": normal}},
			{op: "add", key: "a", fast: map[string][2]bool{"a": normal}},
		}},
		{"a key taken by a worker is no longer skippable", []step{
			{op: "add", key: "a"}, {op: "add", key: "a"},
			{op: "get", key: "a", fast: map[string][2]bool{"a": no}},
			{op: "add", key: "a", fast: map[string][2]bool{"a": no}},
			{op: "add", key: "a", fast: map[string][2]bool{"a": no}},
			{op: "done", key: "a", fast: map[string][2]bool{"a": no}},
			{op: "add", key: "a", fast: map[string][2]bool{"a": normal}},
		}},
		{"a key in the low lane skips only low adds until promoted", []step{
			{op: "addLow", key: "b"}, {op: "addLow", key: "b", fast: map[string][2]bool{"b": lowOnly}},
			{op: "add", key: "b", fast: map[string][2]bool{"b": normal}},
			{op: "get", key: "b", fast: map[string][2]bool{"b": no}},
		}},
		{"other keys are not affected", []step{
			{op: "add", key: "a"}, {op: "add", key: "a"}, {op: "add", key: "c"},
			{op: "get", key: "a", fast: map[string][2]bool{"a": no, "c": no}},
			{op: "add", key: "c", fast: map[string][2]bool{"c": normal}},
		}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			s := newSets[string]()
			for i, st := range tc.steps {
				switch st.op {
				case "add", "addLow":
					s.add(st.key, st.op == "addLow")
				case "get":
					if k, ok := s.get(); !ok || k != st.key {
						t.Fatalf("step %d: get = %q, %v; want %q", i, k, ok, st.key)
					}
				case "done":
					s.done(st.key)
				}
				for k, want := range st.fast {
					h := s.hash(k)
					got := [2]bool{s.fast.pending(k, h, false), s.fast.pending(k, h, true)}
					if got != want {
						t.Fatalf("step %d (%s %s): pending(%s) = %v, want %v", i, st.op, st.key, k, got, want)
					}
				}
			}
		})
	}
}

// TestFastDedupNeverWrong drives sets with random operations over many keys
// (the box table grows and boxes are retired) and checks after every step
// that pending is never true for a key that is not waiting in the matching
// lane, and that it is true for most keys that were added twice while
// waiting.
func TestFastDedupNeverWrong(t *testing.T) {
	for seed := uint64(1); seed <= 10; seed++ {
		rng := rand.New(rand.NewPCG(seed, 11))
		s := newSets[int]()
		held := map[int]bool{}
		for step := range 20_000 {
			k := rng.IntN(300)
			switch r := rng.IntN(10); {
			case r < 5:
				s.add(k, false)
			case r < 6:
				s.add(k, true)
			case r < 8:
				if g, ok := s.get(); ok {
					held[g] = true
				}
			default:
				for g := range held {
					s.done(g)
					delete(held, g)
					break
				}
			}
			k = rng.IntN(300)
			f := s.flagsOf(k)
			waiting := f&dirty != 0 && f&processing == 0
			h := s.hash(k)
			if s.fast.pending(k, h, false) && !(waiting && f&low == 0) {
				t.Fatalf("seed %d step %d: key %d (flags %b) reported waiting in the normal lane", seed, step, k, f)
			}
			if s.fast.pending(k, h, true) && !waiting {
				t.Fatalf("seed %d step %d: key %d (flags %b) reported waiting", seed, step, k, f)
			}
		}
	}
	// Most keys added twice are skippable: the table is not silently empty.
	s := newSets[int]()
	for k := range 5000 {
		s.add(k, false)
		s.add(k, false)
	}
	hits := 0
	for k := range 5000 {
		if s.fast.pending(k, s.hash(k), false) {
			hits++
		}
	}
	if hits < 4000 {
		t.Fatalf("only %d of 5000 waiting, duplicated keys can skip the lock", hits)
	}
}

// Through the Queue: once a key has been added twice while waiting (so its
// adds may skip the lock), an add while a worker holds it must still make
// Done requeue it — the rule "added while processing is processed again".
func TestQueueAddWhileHeldAfterDuplicates(t *testing.T) {
	q, _ := newFakeQueue(t, hooks{})
	for range 3 {
		q.Add("a") // the second add publishes a box, the third skips the lock
	}
	q.Add("b")
	q.Add("b")
	if got := mustGet(t, q); got != "a" {
		t.Fatalf("Get = %q, want a", got)
	}
	q.Add("a") // held: must not be taken for a waiting key
	q.Add("a")
	if got := mustGet(t, q); got != "b" {
		t.Fatalf("Get = %q, want b", got)
	}
	if q.Len() != 0 {
		t.Fatalf("Len = %d while a is held and b taken, want 0", q.Len())
	}
	q.Done("a")
	if got := mustGet(t, q); got != "a" {
		t.Fatalf("after Done, Get = %q, want a (the add while held was lost)", got)
	}
	q.Done("a")
	q.Done("b")
	q.Add("b") // b is free again: a fresh add counts
	if q.Len() != 1 {
		t.Fatalf("Len = %d after adding b again, want 1", q.Len())
	}
}
