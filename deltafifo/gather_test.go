package deltafifo

import (
	"context"
	"fmt"
	"slices"
	"testing"
	"time"
)

// TestGatherReplaces: with Options.GatherReplaces, Pop takes a replace's
// items in full batches of max, waiting while fewer are queued, and takes
// what is queued once the replace finishes or aborts; outside a replace,
// and without the option, it takes what is there at once.
func TestGatherReplaces(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	f := New(Options[*obj]{GatherReplaces: true})
	blocked := waiting(f)
	var batches [][]string
	popAsync := func() <-chan error {
		done := make(chan error, 1)
		go func() {
			var got []string
			err := f.Pop(ctx, 4, collect(&got))
			batches = append(batches, got)
			done <- err
		}()
		return done
	}
	add := func(r *Replacer[*obj], from, to int) {
		t.Helper()
		for i := from; i < to; i++ {
			if err := r.Add(mk(fmt.Sprintf("ns/p%d", i), "1")); err != nil {
				t.Fatal(err)
			}
		}
	}
	// waitBlocked returns once the Pop of done blocks, and fails if it
	// returned without waiting.
	waitBlocked := func(done <-chan error) {
		t.Helper()
		select {
		case <-blocked:
		case err := <-done:
			t.Fatalf("Pop returned %q (%v) without waiting for a full batch", batches[len(batches)-1], err)
		}
	}
	wait := func(done <-chan error) {
		t.Helper()
		if err := <-done; err != nil {
			t.Fatal(err)
		}
	}

	r := f.StartReplace("1")
	add(r, 0, 3)
	done := popAsync()
	waitBlocked(done) // three queued: Pop waits for a fourth
	add(r, 3, 6)
	wait(done) // p0-p3; p4 and p5 stay queued
	done = popAsync()
	waitBlocked(done)
	if err := r.Finish(); err != nil {
		t.Fatal(err)
	}
	wait(done) // the replace ended: p4, p5

	r = f.StartReplace("2")
	add(r, 6, 7)
	done = popAsync()
	waitBlocked(done)
	r.Abort()
	wait(done) // aborted: p6

	if err := f.Add(mk("ns/w", "2")); err != nil { // no replace open
		t.Fatal(err)
	}
	wait(popAsync())

	want := [][]string{
		{"Replaced ns/p0@1 init", "Replaced ns/p1@1 init", "Replaced ns/p2@1 init", "Replaced ns/p3@1 init"},
		{"Replaced ns/p4@1 init", "Replaced ns/p5@1 init"},
		{"Replaced ns/p6@1"},
		{"Added ns/w@2"},
	}
	if !slices.EqualFunc(batches, want, slices.Equal) {
		t.Errorf("batches %q, want %q", batches, want)
	}

	// Without the option a replace's items are taken as they come.
	g := New(Options[*obj]{})
	r = g.StartReplace("1")
	add(r, 0, 3)
	var got []string
	if err := g.Pop(ctx, 4, collect(&got)); err != nil || len(got) != 3 {
		t.Errorf("Pop without GatherReplaces took %q (%v), want the 3 queued", got, err)
	}
}
