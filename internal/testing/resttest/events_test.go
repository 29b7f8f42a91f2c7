package resttest

import (
	"slices"
	"sync"
	"testing"

	"github.com/kcmlab/kcm/kube/api"
)

// TestEvents: events are kept in order, from concurrent workers too, as
// lines and with their object; Reset forgets them.
func TestEvents(t *testing.T) {
	var e Events
	ref := api.ObjectReference{Kind: "ReplicaSet", Namespace: "ns", Name: "web"}
	e.Eventf(ref, "Normal", "SuccessfulCreate", "Created pod: %s", "web-1")
	var wg sync.WaitGroup
	for i := range 4 {
		wg.Go(func() { e.Eventf(ref, "Warning", "FailedCreate", "n%d", i) })
	}
	wg.Wait()
	lines := e.Lines()
	if lines[0] != "Normal SuccessfulCreate Created pod: web-1" || len(lines) != 5 {
		t.Fatalf("lines %q", lines)
	}
	if l := e.List(); l[0].Ref != ref || l[0].Reason != "SuccessfulCreate" || l[0].Message != "Created pod: web-1" {
		t.Fatalf("event %+v", l[0])
	}
	slices.Sort(lines[1:])
	if !slices.Equal(lines[1:], []string{"Warning FailedCreate n0", "Warning FailedCreate n1", "Warning FailedCreate n2", "Warning FailedCreate n3"}) {
		t.Fatalf("lines %q", lines)
	}
	e.Reset()
	if len(e.List()) != 0 {
		t.Fatal("Reset kept events")
	}
}
