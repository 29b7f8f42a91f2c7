package deltafifo

import (
	"context"
	"errors"
	"slices"
	"testing"
)

// Bookmark enqueues a keyless Bookmark delta in arrival order; one queued
// behind another that is still queued replaces it; one behind an in-flight
// Bookmark does not. Without Options.Bookmarks, and while a replace is
// open, Bookmark does nothing.
func TestBookmarkDeltas(t *testing.T) {
	s := newStore()
	f := New(Options[*obj]{Known: s, Bookmarks: true})
	must(t, f.Replace(nil, "1"))
	popAll(t, f, s)
	must(t, f.Add(mk("ns/a", "2")))
	must(t, f.Bookmark("3"))
	must(t, f.Bookmark("4"))
	if n := f.Len(); n != 2 {
		t.Fatalf("Len = %d, want 2 (the add and one bookmark)", n)
	}
	var got []string
	must(t, f.Pop(context.Background(), 10, func(b []Delta[*obj]) error {
		for _, d := range b {
			got = append(got, render(d))
			must(t, s.apply(d))
		}
		return f.Bookmark("5") // behind an in-flight Bookmark: queued anew
	}))
	if want := []string{"Added ns/a@2", "Bookmark @4"}; !slices.Equal(got, want) {
		t.Fatalf("got %q, want %q", got, want)
	}
	if got, want := popAll(t, f, s), []string{"Bookmark @5"}; !slices.Equal(got, want) {
		t.Fatalf("got %q, want %q", got, want)
	}

	r := f.StartReplace("6")
	must(t, f.Bookmark("7")) // amid a list: would claim what is not listed yet
	must(t, r.Add(mk("ns/b", "6")))
	must(t, r.Finish())
	if got, want := popAll(t, f, s), []string{"Replaced ns/b@6", "Deleted ns/a@2 tomb", "Bookmark @6"}; !slices.Equal(got, want) {
		t.Fatalf("relist = %q, want %q", got, want)
	}

	off := New(Options[*obj]{})
	must(t, off.Bookmark("1"))
	if n := off.Len(); n != 0 {
		t.Fatalf("without Options.Bookmarks, Bookmark queued %d", n)
	}
	off.Close()
	if err := off.Bookmark("2"); !errors.Is(err, ErrClosed) {
		t.Fatalf("Bookmark after Close = %v, want ErrClosed", err)
	}
}

// The first replace's end Bookmark counts in the initial population:
// HasSynced waits until it is consumed, so that a synced consumer's
// content is current at the list's resourceVersion.
func TestHasSyncedWaitsForTheListBookmark(t *testing.T) {
	s := newStore()
	f := New(Options[*obj]{Known: s, Bookmarks: true})
	must(t, f.Replace([]*obj{mk("ns/a", "1")}, "9"))
	must(t, f.Pop(context.Background(), 1, func([]Delta[*obj]) error { return nil }))
	if f.HasSynced() {
		t.Fatal("synced before the list's Bookmark was consumed")
	}
	must(t, f.Pop(context.Background(), 1, func(b []Delta[*obj]) error {
		if b[0].Type != Bookmark || b[0].Info.ResourceVersion != "9" {
			t.Errorf("second delta %s, want Bookmark @9", render(b[0]))
		}
		return nil
	}))
	if !f.HasSynced() {
		t.Fatal("not synced after the list's Bookmark")
	}
}
