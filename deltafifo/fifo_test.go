package deltafifo

import (
	"context"
	"errors"
	"slices"
	"strings"
	"testing"
)

// harness drives one FIFO and a store the way an informer does, recording
// every delta the apply loop receives.
type harness struct {
	t   *testing.T
	f   *FIFO[*obj]
	s   *store
	got []string
}

func newHarness(t *testing.T, nilKnown bool, seed ...*obj) *harness {
	t.Helper()
	h := &harness{t: t, s: newStore(seed...)}
	o := Options[*obj]{Known: h.s}
	if nilKnown {
		o.Known = nil
	}
	h.f = New(o)
	return h
}

func (h *harness) check() {
	h.t.Helper()
	if err := h.f.checkInvariant(); err != nil {
		h.t.Fatal(err)
	}
}

func (h *harness) must(err error) {
	h.t.Helper()
	if err != nil {
		h.t.Fatal(err)
	}
	h.check()
}

func (h *harness) add(key, rv string) { h.t.Helper(); h.must(h.f.Add(mk(key, rv))) }
func (h *harness) upd(key, rv string) { h.t.Helper(); h.must(h.f.Update(mk(key, rv))) }
func (h *harness) del(key, rv string) { h.t.Helper(); h.must(h.f.Delete(mk(key, rv))) }

// replace runs a whole replace of "key@rv" items.
func (h *harness) replace(items ...string) {
	h.t.Helper()
	var objs []*obj
	for _, it := range items {
		k, rv, _ := strings.Cut(it, "@")
		objs = append(objs, mk(k, rv))
	}
	h.must(h.f.Replace(objs, "100"))
}

// pop takes one batch of up to max deltas and applies it.
func (h *harness) pop(max int) {
	h.t.Helper()
	err := h.f.Pop(context.Background(), max, func(b []Delta[*obj]) error {
		for _, d := range b {
			h.got = append(h.got, render(d))
			if err := h.s.apply(d); err != nil {
				return err
			}
		}
		return nil
	})
	h.must(err)
}

// drain pops until nothing is pending.
func (h *harness) drain() {
	h.t.Helper()
	for h.f.Len() > 0 {
		h.pop(3)
	}
}

func TestTable(t *testing.T) {
	tests := []struct {
		name      string
		seed      []*obj // the store's contents before the steps
		nilKnown  bool
		steps     func(h *harness)
		want      []string // deltas delivered, in order, after the steps and a drain
		wantStore string
	}{{
		name:      "add",
		steps:     func(h *harness) { h.add("ns/a", "1") },
		want:      []string{"Added ns/a@1"},
		wantStore: "ns/a@1",
	}, {
		name:      "update of a stored key",
		seed:      []*obj{mk("ns/a", "1")},
		steps:     func(h *harness) { h.upd("ns/a", "2") },
		want:      []string{"Updated ns/a@2"},
		wantStore: "ns/a@2",
	}, {
		// Watch DELETED carries the object's last state.
		name:      "delete of a stored key",
		seed:      []*obj{mk("ns/a", "1")},
		steps:     func(h *harness) { h.del("ns/a", "2") },
		want:      []string{"Deleted ns/a@2"},
		wantStore: "",
	}, {
		name:      "cluster-scoped key",
		steps:     func(h *harness) { h.add("node1", "1"); h.upd("node1", "2") },
		want:      []string{"Added node1@1", "Updated node1@2"},
		wantStore: "node1@2",
	}, {
		name:      "delete of a pending key",
		steps:     func(h *harness) { h.add("ns/a", "1"); h.del("ns/a", "2") },
		want:      []string{"Added ns/a@1", "Deleted ns/a@2"},
		wantStore: "",
	}, {
		name: "delete of an unknown key is ignored",
		seed: []*obj{mk("ns/b", "1")},
		steps: func(h *harness) {
			h.del("ns/a", "1")
			if n := h.f.Len(); n != 0 {
				h.t.Errorf("Len after ignored delete = %d, want 0", n)
			}
		},
		want:      nil,
		wantStore: "ns/b@1",
	}, {
		name:      "delete of a key already consumed as deleted is ignored",
		steps:     func(h *harness) { h.add("ns/a", "1"); h.del("ns/a", "2"); h.drain(); h.del("ns/a", "3") },
		want:      []string{"Added ns/a@1", "Deleted ns/a@2"},
		wantStore: "",
	}, {
		name:      "consecutive deletes dedup, the first real one is kept",
		seed:      []*obj{mk("ns/a", "1")},
		steps:     func(h *harness) { h.del("ns/a", "2"); h.del("ns/a", "3") },
		want:      []string{"Deleted ns/a@2"},
		wantStore: "",
	}, {
		name: "a real delete upgrades a queued tombstone in place",
		seed: []*obj{mk("ns/a", "1"), mk("ns/b", "1")},
		steps: func(h *harness) {
			h.replace("ns/b@1")
			h.add("ns/c", "1")
			h.del("ns/a", "9")
		},
		want:      []string{"Replaced ns/b@1 init", "Deleted ns/a@9 init", "Added ns/c@1"},
		wantStore: "ns/b@1 ns/c@1",
	}, {
		name:      "a replace adds no tombstone for a key whose delete is pending",
		seed:      []*obj{mk("ns/a", "1")},
		steps:     func(h *harness) { h.del("ns/a", "2"); h.replace() },
		want:      []string{"Deleted ns/a@2"},
		wantStore: "",
	}, {
		// A LIST is the complete state as of its resourceVersion: objects
		// missing from it were deleted while the watch was down.
		name: "replace tombstones store-known and queue-pending keys",
		seed: []*obj{mk("ns/a", "1"), mk("ns/b", "1")},
		steps: func(h *harness) {
			h.add("ns/c", "1")
			h.upd("ns/a", "2")
			h.replace("ns/b@3")
		},
		want: []string{
			"Added ns/c@1", "Updated ns/a@2", "Replaced ns/b@3 init",
			"Deleted ns/a@2 tomb init", "Deleted ns/c@1 tomb init",
		},
		wantStore: "ns/b@3",
	}, {
		name: "a later replace is not initial",
		steps: func(h *harness) {
			h.replace("ns/a@1", "ns/b@1")
			h.drain()
			h.replace("ns/a@2")
		},
		want: []string{
			"Replaced ns/a@1 init", "Replaced ns/b@1 init",
			"Replaced ns/a@2", "Deleted ns/b@1 tomb",
		},
		wantStore: "ns/a@2",
	}, {
		name: "abort keeps the items and adds no tombstones",
		seed: []*obj{mk("ns/a", "1")},
		steps: func(h *harness) {
			r := h.f.StartReplace("5")
			h.must(r.Add(mk("ns/b", "5")))
			r.Abort()
			r.Abort() // idempotent
			if err := r.Finish(); !errors.Is(err, ErrReplaceEnded) {
				h.t.Errorf("Finish after Abort = %v, want ErrReplaceEnded", err)
			}
			if err := r.Add(mk("ns/c", "5")); !errors.Is(err, ErrReplaceEnded) {
				h.t.Errorf("Add after Abort = %v, want ErrReplaceEnded", err)
			}
		},
		want:      []string{"Replaced ns/b@5 init"},
		wantStore: "ns/a@1 ns/b@5",
	}, {
		name: "a new replace supersedes an open one",
		steps: func(h *harness) {
			r1 := h.f.StartReplace("5")
			h.must(r1.Add(mk("ns/a", "5")))
			r2 := h.f.StartReplace("6")
			if err := r1.Add(mk("ns/b", "5")); !errors.Is(err, ErrReplaceEnded) {
				h.t.Errorf("Add to superseded replace = %v, want ErrReplaceEnded", err)
			}
			h.must(r2.Add(mk("ns/c", "6")))
			h.must(r2.Finish())
		},
		want:      []string{"Replaced ns/a@5 init", "Replaced ns/c@6 init", "Deleted ns/a@5 tomb init"},
		wantStore: "ns/c@6",
	}, {
		name: "a watch event during an open replace is not tombstoned",
		seed: []*obj{mk("ns/a", "1")},
		steps: func(h *harness) {
			r := h.f.StartReplace("5")
			h.add("ns/x", "6")
			h.must(r.Finish())
		},
		want:      []string{"Added ns/x@6", "Deleted ns/a@1 tomb init"},
		wantStore: "ns/x@6",
	}, {
		name: "streaming replace interleaved with pops",
		seed: []*obj{mk("ns/old", "1")},
		steps: func(h *harness) {
			r := h.f.StartReplace("5")
			h.must(r.Add(mk("ns/a", "5")))
			h.pop(10) // the consumer applies a while the list still streams
			if !h.s.has("ns/a") {
				h.t.Error("ns/a not applied while the replace was open")
			}
			h.must(r.Add(mk("ns/b", "5")))
			h.pop(10)
			h.must(r.Finish())
		},
		want:      []string{"Replaced ns/a@5 init", "Replaced ns/b@5 init", "Deleted ns/old@1 tomb init"},
		wantStore: "ns/a@5 ns/b@5",
	}, {
		name: "resync skips keys with pending deltas",
		seed: []*obj{mk("ns/a", "1"), mk("ns/b", "1"), mk("ns/c", "1")},
		steps: func(h *harness) {
			h.upd("ns/b", "2")
			h.must(h.f.Resync())
		},
		want:      []string{"Updated ns/b@2", "Sync ns/a@1", "Sync ns/c@1"},
		wantStore: "ns/a@1 ns/b@2 ns/c@1",
	}, {
		name:      "without Known a delete is never ignored and resync does nothing",
		nilKnown:  true,
		steps:     func(h *harness) { h.del("ns/a", "1"); h.must(h.f.Resync()) },
		want:      []string{"Deleted ns/a@1"},
		wantStore: "", // the store refuses the delete; see the check below
	}}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			h := newHarness(t, tc.nilKnown, tc.seed...)
			if tc.nilKnown {
				// The store cannot hold what it was never told: record
				// without applying.
				tc.steps(h)
				err := h.f.Pop(context.Background(), 10, func(b []Delta[*obj]) error {
					for _, d := range b {
						h.got = append(h.got, render(d))
					}
					return nil
				})
				h.must(err)
			} else {
				tc.steps(h)
				h.drain()
			}
			if !slices.Equal(h.got, tc.want) {
				t.Errorf("delivered\n  %q\nwant\n  %q", h.got, tc.want)
			}
			if got := h.s.String(); got != tc.wantStore {
				t.Errorf("store = %q, want %q", got, tc.wantStore)
			}
			if n := h.f.Len(); n != 0 {
				t.Errorf("Len after drain = %d", n)
			}
		})
	}
}

// TestQueuedLeavesOutTheBatchInFlight: while process runs, Len counts its
// batch (the deltas are not consumed yet: HasSynced and the key
// bookkeeping wait for them) and Queued does not (they are no longer in
// the queue, as client-go's informer_queued_items counts); deltas added
// meanwhile count in both; after the pop, the batch leaves Len.
func TestQueuedLeavesOutTheBatchInFlight(t *testing.T) {
	h := newHarness(t, false)
	h.add("ns/a", "1")
	h.add("ns/b", "2")
	if l, q := h.f.Len(), h.f.Queued(); l != 2 || q != 2 {
		t.Fatalf("before the pop: Len %d, Queued %d; want 2, 2", l, q)
	}
	err := h.f.Pop(context.Background(), 10, func(batch []Delta[*obj]) error {
		if l, q := h.f.Len(), h.f.Queued(); l != 2 || q != 0 {
			t.Errorf("during the pop of %d: Len %d, Queued %d; want 2, 0", len(batch), l, q)
		}
		h.upd("ns/c", "3")
		if l, q := h.f.Len(), h.f.Queued(); l != 3 || q != 1 {
			t.Errorf("after an add during the pop: Len %d, Queued %d; want 3, 1", l, q)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if l, q := h.f.Len(), h.f.Queued(); l != 1 || q != 1 {
		t.Fatalf("after the pop: Len %d, Queued %d; want 1, 1", l, q)
	}
	h.f.Close()
	if l, q := h.f.Len(), h.f.Queued(); l != 0 || q != 0 {
		t.Fatalf("after Close: Len %d, Queued %d; want 0, 0", l, q)
	}
}
