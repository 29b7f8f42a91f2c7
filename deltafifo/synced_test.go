package deltafifo

import (
	"context"
	"testing"
)

// HasSynced is what WaitForCacheSync waits on: the initial LIST has been
// applied in full, tombstones included.
func TestHasSynced(t *testing.T) {
	type step struct {
		do   func(h *harness)
		want bool
	}
	popOne := func(h *harness) { h.pop(1) }
	tests := []struct {
		name  string
		seed  []*obj
		steps []step
	}{{
		name: "after every item of the first replace is consumed",
		steps: []step{
			{func(*harness) {}, false},
			{func(h *harness) { h.replace("ns/a@1", "ns/b@1") }, false},
			{popOne, false},
			{popOne, true},
		},
	}, {
		name: "tombstones count",
		seed: []*obj{mk("ns/x", "1")},
		steps: []step{
			{func(h *harness) { h.replace("ns/a@1") }, false},
			{popOne, false}, // Replaced ns/a
			{popOne, true},  // Deleted ns/x tomb
		},
	}, {
		name: "an empty first list syncs at Finish",
		steps: []step{
			{func(h *harness) { h.replace() }, true},
		},
	}, {
		name: "watch events queued before Finish count, later ones do not",
		steps: []step{
			{func(h *harness) { h.add("ns/w", "1") }, false},
			{func(h *harness) { h.replace("ns/w@1", "ns/a@2"); h.add("ns/late", "3") }, false},
			{popOne, false}, // Added ns/w
			{popOne, false}, // Replaced ns/w
			{popOne, true},  // Replaced ns/a; Added ns/late still queued
		},
	}, {
		name: "an aborted replace defines nothing",
		steps: []step{
			{func(h *harness) {
				r := h.f.StartReplace("1")
				h.must(r.Add(mk("ns/a", "1")))
				r.Abort()
			}, false},
			{popOne, false},
			{func(h *harness) { h.replace("ns/a@2") }, false},
			{popOne, true},
		},
	}, {
		name: "streamed items already applied: synced right at Finish",
		steps: []step{
			{func(h *harness) {
				r := h.f.StartReplace("1")
				h.must(r.Add(mk("ns/a", "1")))
				h.pop(10)
				if h.f.HasSynced() {
					h.t.Error("synced before Finish")
				}
				h.must(r.Finish())
			}, true},
		},
	}, {
		name: "stays synced through later relists",
		steps: []step{
			{func(h *harness) { h.replace("ns/a@1"); h.drain() }, true},
			{func(h *harness) { h.replace("ns/a@2") }, true},
		},
	}}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			h := newHarness(t, false, tc.seed...)
			for i, s := range tc.steps {
				s.do(h)
				if got := h.f.HasSynced(); got != s.want {
					t.Fatalf("step %d: HasSynced = %v, want %v (delivered so far %q)", i, got, s.want, h.got)
				}
			}
		})
	}
}

func TestClosedBeforeSyncNeverSyncs(t *testing.T) {
	f := New(Options[*obj]{})
	_ = f.Replace([]*obj{mk("ns/a", "1")}, "1")
	f.Close()
	if f.HasSynced() {
		t.Error("HasSynced after Close dropped the initial list")
	}
	_ = f.Pop(context.Background(), 1, nil)
	if f.HasSynced() {
		t.Error("HasSynced after Close and Pop")
	}
}
