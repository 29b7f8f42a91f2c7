package deltafifo

import (
	"context"
	"slices"
	"testing"
)

// popAll pops everything queued into s (as the informer's apply loop
// would) and returns the rendered deltas.
func popAll(t *testing.T, f *FIFO[*obj], s *store) []string {
	t.Helper()
	var got []string
	for f.Queued() > 0 {
		err := f.Pop(context.Background(), 100, func(b []Delta[*obj]) error {
			for _, d := range b {
				got = append(got, render(d))
				if d.Type == Deleted && !s.has(d.Key) {
					continue // a Deleted behind a ReplacedAll that dropped the key
				}
				if err := s.apply(d); err != nil {
					return err
				}
			}
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
	}
	return got
}

func must(t *testing.T, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}

// synced returns a FIFO with both options whose initial list (a, b at rv
// 10) has been applied to the returned store.
func synced(t *testing.T) (*FIFO[*obj], *store) {
	t.Helper()
	s := newStore()
	f := New(Options[*obj]{Known: s, Bookmarks: true, AtomicReplaces: true})
	must(t, f.Replace([]*obj{mk("ns/a", "5"), mk("ns/b", "6")}, "10"))
	popAll(t, f, s)
	return f, s
}

// The initial list is streamed, and ends with a Bookmark at the list's
// resourceVersion; a relist is one ReplacedAll at Finish, in list order,
// without tombstones, holding nothing in the queue while it is open.
func TestAtomicReplaceIsOneDelta(t *testing.T) {
	s := newStore()
	f := New(Options[*obj]{Known: s, Bookmarks: true, AtomicReplaces: true})
	r := f.StartReplace("")
	must(t, r.Add(mk("ns/a", "5")))
	must(t, r.Add(mk("ns/b", "6")))
	must(t, r.FinishAt("10"))
	want := []string{"Replaced ns/a@5 init", "Replaced ns/b@6 init", "Bookmark @10"}
	if got := popAll(t, f, s); !slices.Equal(got, want) {
		t.Fatalf("initial list = %q, want %q", got, want)
	}
	if !f.HasSynced() || s.rv != "10" {
		t.Fatalf("HasSynced %v, store at %q; want synced at 10", f.HasSynced(), s.rv)
	}

	r = f.StartReplace("")
	must(t, r.Add(mk("ns/c", "12")))
	must(t, r.Add(mk("ns/b", "11")))
	if n := f.Len(); n != 0 {
		t.Fatalf("an open atomic replace queued %d deltas", n)
	}
	must(t, r.FinishAt("20"))
	want = []string{"ReplacedAll @20 [ns/c@12 ns/b@11]"}
	if got := popAll(t, f, s); !slices.Equal(got, want) {
		t.Fatalf("relist = %q, want %q", got, want)
	}
	if s.String() != "ns/b@11 ns/c@12" || s.rv != "20" {
		t.Fatalf("store %q at %q after the relist", s, s.rv)
	}
}

// An atomic replace keeps the object Known holds when the listed one is
// the same version (same UID and resourceVersion), so that an unchanged
// object costs no memory twice.
func TestAtomicReplaceKeepsKnownObjectOfSameVersion(t *testing.T) {
	f, s := synced(t)
	heldA, _ := s.GetByKey("ns/a")
	heldB, _ := s.GetByKey("ns/b")
	sameA := mk("ns/a", "5")
	newerB := mk("ns/b", "7")
	otherUID := mk("ns/a", "5")
	otherUID.UID = "another"
	r := f.StartReplace("")
	must(t, r.Add(sameA))
	must(t, r.Add(newerB))
	must(t, r.FinishAt("20"))
	var all *Info[*obj]
	must(t, f.Pop(context.Background(), 10, func(b []Delta[*obj]) error { all = b[0].Info; return nil }))
	if all.Objects[0] != heldA || all.Objects[1] != newerB || all.Objects[1] == heldB {
		t.Fatalf("ReplacedAll objects %p %p; want the held a %p and the listed b %p", all.Objects[0], all.Objects[1], heldA, newerB)
	}
	r = f.StartReplace("")
	must(t, r.Add(otherUID))
	must(t, r.FinishAt("21"))
	must(t, f.Pop(context.Background(), 10, func(b []Delta[*obj]) error { all = b[0].Info; return nil }))
	if all.Objects[0] != otherUID {
		t.Fatalf("an object of another UID at the same resourceVersion was swapped for the held one")
	}
}

// Aborted and superseded atomic replaces enqueue nothing.
func TestAtomicReplaceAbortAndSupersede(t *testing.T) {
	f, _ := synced(t)
	r := f.StartReplace("")
	must(t, r.Add(mk("ns/c", "12")))
	r.Abort()
	old := f.StartReplace("")
	must(t, old.Add(mk("ns/d", "13")))
	r = f.StartReplace("")
	if err := old.Add(mk("ns/e", "14")); err == nil {
		t.Fatal("a superseded replace took an item")
	}
	if n := f.Len(); n != 0 {
		t.Fatalf("%d deltas queued by an aborted and a superseded replace", n)
	}
	must(t, r.FinishAt("30"))
	var got []string
	must(t, f.Pop(context.Background(), 10, collect(&got)))
	if want := []string{"ReplacedAll @30 []"}; !slices.Equal(got, want) {
		t.Fatalf("got %q, want %q", got, want)
	}
}

// A watch DELETE can arrive between the relist's Finish and the consumer
// applying its ReplacedAll, for a key the relist brought and the store
// does not hold yet: it must reach the consumer, or the key would live on.
// Once the ReplacedAll is consumed, a Delete of an unknown key is ignored
// again.
func TestDeleteNotIgnoredWhileReplacedAllPending(t *testing.T) {
	f, s := synced(t)
	r := f.StartReplace("")
	must(t, r.Add(mk("ns/new", "15")))
	must(t, r.FinishAt("20"))
	must(t, f.Delete(mk("ns/new", "21")))
	want := []string{"ReplacedAll @20 [ns/new@15]", "Deleted ns/new@21"}
	if got := popAll(t, f, s); !slices.Equal(got, want) {
		t.Fatalf("got %q, want %q", got, want)
	}
	if s.has("ns/new") {
		t.Fatal("the deleted key lives on in the store")
	}
	must(t, f.Delete(mk("ns/unknown", "22")))
	if n := f.Len(); n != 0 {
		t.Fatalf("a Delete of an unknown key was queued (%d) with no ReplacedAll pending", n)
	}
}

// Resync does nothing while a ReplacedAll is pending: its Sync deltas,
// taken from the store before the swap, would be applied after it and put
// the old objects back.
func TestResyncWaitsForReplacedAll(t *testing.T) {
	f, s := synced(t)
	r := f.StartReplace("")
	must(t, r.Add(mk("ns/a", "15")))
	must(t, r.FinishAt("20"))
	must(t, f.Resync())
	if got := popAll(t, f, s); len(got) != 1 {
		t.Fatalf("got %q, want only the ReplacedAll", got)
	}
	if s.String() != "ns/a@15" {
		t.Fatalf("store %q, want ns/a@15", s)
	}
	must(t, f.Resync())
	if got, want := popAll(t, f, s), []string{"Sync ns/a@15"}; !slices.Equal(got, want) {
		t.Fatalf("resync after the swap = %q, want %q", got, want)
	}
}

// News that arrive while an atomic replace is open are newer than its
// list: they are queued as usual, and the ReplacedAll carries them in place
// of the listed states (a Delete removes the key even when the FIFO
// ignores the Delete itself, the key being unknown).
func TestNewsDuringAtomicReplaceWin(t *testing.T) {
	f, s := synced(t)
	r := f.StartReplace("")
	must(t, r.Add(mk("ns/a", "14")))
	must(t, f.Update(mk("ns/a", "16")))
	must(t, r.Add(mk("ns/gone", "15")))
	must(t, f.Delete(mk("ns/gone", "17")))
	must(t, r.Add(mk("ns/b", "12")))
	must(t, f.Add(mk("ns/z", "18")))
	must(t, r.FinishAt("15"))
	want := []string{"Updated ns/a@16", "Added ns/z@18", "ReplacedAll @15 [ns/b@12 ns/a@16 ns/z@18]"}
	if got := popAll(t, f, s); !slices.Equal(got, want) {
		t.Fatalf("got %q, want %q", got, want)
	}
}

// With GatherReplaces, Pop waits for full batches of a streamed replace
// only: an atomic replace queues nothing until it ends, so Pop takes what
// is queued at once.
func TestGatherDoesNotWaitForAtomicReplace(t *testing.T) {
	s := newStore()
	f := New(Options[*obj]{Known: s, AtomicReplaces: true, GatherReplaces: true})
	must(t, f.Replace(nil, "1"))
	popAll(t, f, s)
	r := f.StartReplace("")
	defer r.Abort()
	must(t, f.Add(mk("ns/a", "2")))
	var got []string
	must(t, f.Pop(context.Background(), 10, collect(&got)))
	if want := []string{"Added ns/a@2"}; !slices.Equal(got, want) {
		t.Fatalf("got %q, want %q", got, want)
	}
}

// Without Known the FIFO cannot tell what vanished, nor keep held
// objects: AtomicReplaces is ignored and relists stream.
func TestAtomicReplacesNeedsKnown(t *testing.T) {
	f := New(Options[*obj]{AtomicReplaces: true})
	must(t, f.Replace(nil, "1"))
	must(t, f.Replace([]*obj{mk("ns/a", "2")}, "2"))
	var got []string
	must(t, f.Pop(context.Background(), 10, collect(&got)))
	if want := []string{"Replaced ns/a@2"}; !slices.Equal(got, want) {
		t.Fatalf("got %q, want %q", got, want)
	}
}
