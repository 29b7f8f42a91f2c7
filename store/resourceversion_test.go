package store

import (
	"fmt"
	"math/rand/v2"
	"strconv"
	"testing"
)

func TestBookmark(t *testing.T) {
	s := newTestStore()
	if rv := s.LastStoreSyncResourceVersion(); rv != "" {
		t.Fatalf("new store's resourceVersion = %q, want \"\"", rv)
	}
	for _, rv := range []string{"10", "12", "12", "9", ""} {
		s.Bookmark(rv)
		if got, viaView := s.LastStoreSyncResourceVersion(), s.View().LastStoreSyncResourceVersion(); got != rv || viaView != rv {
			t.Fatalf("after Bookmark(%q): store %q, view %q", rv, got, viaView)
		}
	}
}

// A reader that loads the resourceVersion and then reads objects finds
// them at least as new as it, when the writer bookmarks after writing:
// the order Bookmark promises. Each round writes world n (every object
// rev n) with Apply, then with ReplaceOps, then bookmarks n.
func TestBookmarkNeverAheadOfObjects(t *testing.T) {
	const size, rounds = 40, 200
	s := newTestStore()
	s.Replace(world(0, size))
	s.Bookmark("0")
	hammer(t, 4, func(r *rand.Rand) error {
		rv, err := strconv.Atoi(s.LastStoreSyncResourceVersion())
		if err != nil {
			return err
		}
		var objs []*tobj
		if r.IntN(2) == 0 {
			objs = s.List()
		} else {
			objs, _ = s.ByIndex(IndexNamespace, "w")
		}
		for _, o := range objs {
			if o.Rev < rv {
				return fmt.Errorf("%s at rev %d after the store said %d", o.Key(), o.Rev, rv)
			}
		}
		return nil
	}, func() {
		for n := 1; n <= rounds; n++ {
			objs := world(n, size)
			if n%2 == 0 {
				ops := make([]Op[*tobj], size)
				for i := range ops {
					ops[i].Obj = objs[i]
				}
				s.Apply(ops)
			} else {
				ops := make([]Op[*tobj], size)
				for i := range ops {
					ops[i].Obj = objs[i]
				}
				s.ReplaceOps(ops, nil)
			}
			s.Bookmark(strconv.Itoa(n))
		}
	})
}

// ReplaceOps swaps the whole content at once: a reader sees one world or
// the next, never a mixture, and never a world with keys missing.
func TestReplaceOpsAtomicForReaders(t *testing.T) {
	const size, rounds = 50, 150
	s := newTestStore()
	s.Replace(world(0, size))
	hammer(t, 4, func(r *rand.Rand) error {
		switch r.IntN(3) {
		case 0:
			objs, _ := s.ByIndex(IndexNamespace, "w")
			return oneWorld("ByIndex(namespace)", objs, size)
		case 1:
			return oneWorld("List", s.List(), size)
		default:
			if n := s.Len(); n != size {
				return fmt.Errorf("Len = %d", n)
			}
		}
		return nil
	}, func() {
		var removed []Op[*tobj]
		for n := 1; n <= rounds; n++ {
			objs := world(n, size)
			ops := make([]Op[*tobj], size)
			for i := range ops {
				ops[i].Obj = objs[i]
			}
			if removed = s.ReplaceOps(ops, removed[:0]); len(removed) != 0 {
				t.Errorf("round %d removed %d keys, want none", n, len(removed))
			}
		}
	})
}

func TestReplaceOps(t *testing.T) {
	a, b, c := mk("ns", "a", labels("app", "x")), mk("ns", "b", labels("app", "x")), mk("ns", "c", labels("app", "y"))
	s := newTestStore(c, b, a)
	b2, d := mk("ns", "b", labels("app", "y")), mk("ns", "d", labels("app", "x"))
	ops := []Op[*tobj]{{Obj: d}, {Obj: b2}, {Delete: true, Key: "ns/c"}}
	removed := s.ReplaceOps(ops, nil)
	if ops[0].Existed || ops[0].Key != "ns/d" || !ops[1].Existed || ops[1].Old != b {
		t.Errorf("ops after ReplaceOps: %+v", ops)
	}
	if ops[2].Existed {
		t.Errorf("a Delete op was applied: %+v", ops[2])
	}
	if len(removed) != 2 || removed[0].Key != "ns/a" || removed[0].Old != a || removed[1].Key != "ns/c" || removed[1].Old != c {
		t.Errorf("removed = %+v, want ns/a then ns/c with their objects", removed)
	}
	if got := sortedKeys(s.List()); fmt.Sprint(got) != "[ns/b ns/d]" {
		t.Errorf("content = %v, want [ns/b ns/d]", got)
	}
	if got, _ := s.ByIndex(IndexLabel, "app=y"); len(got) != 1 || got[0] != b2 {
		t.Errorf("ByIndex(app=y) = %v, want the new b", keysOf(got))
	}
	if got, _ := s.ByIndex(IndexLabel, "app=x"); len(got) != 1 || got[0] != d {
		t.Errorf("ByIndex(app=x) = %v, want d", keysOf(got))
	}
}
