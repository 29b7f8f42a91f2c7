package tainteviction

import (
	"slices"
	"testing"
	"time"

	"github.com/kcmlab/kcm/clock"
	"github.com/kcmlab/kcm/kube/api"
)

// TestHandlers: upstream's PodUpdated enqueues a pod on add and delete,
// and on update only when its tolerations or its node changed;
// NodeUpdated enqueues a node on add and delete, and on update only when
// its NoExecute taints changed.
func TestHandlers(t *testing.T) {
	p := newPod("p", "n1", tolerate(unreachable, secs(5)))
	relabelled := *p
	relabelled.Labels = map[string]string{"a": "b"}
	relabelled.Status.Phase = api.PodFailed
	n := newNode("n1", unreachable, noSchedule)
	otherNoSchedule := newNode("n1", unreachable)
	otherNoSchedule.Labels = map[string]string{"a": "b"}
	added := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	timeAdded := newNode("n1", api.Taint{Key: unreachable.Key, Effect: unreachable.Effect, TimeAdded: &api.Time{Time: added}})
	tests := []struct {
		name string
		call func(h handlers)
		want []string
	}{
		{"pod added", func(h handlers) { h.podAdded(p, true) }, []string{"pod/ns/p"}},
		{"pod deleted", func(h handlers) { h.podDeleted(p, true) }, []string{"pod/ns/p"}},
		{"pod labels and status changed", func(h handlers) { h.podUpdated(p, &relabelled) }, nil},
		{"pod tolerations changed", func(h handlers) { h.podUpdated(p, withTolerations(p, tolerate(unreachable, secs(6)))) }, []string{"pod/ns/p"}},
		{"pod tolerations: same values, new pointers", func(h handlers) { h.podUpdated(p, withTolerations(p, tolerate(unreachable, secs(5)))) }, nil},
		{"pod bound", func(h handlers) { h.podUpdated(newPod("p", ""), p) }, []string{"pod/ns/p"}},
		{"node added", func(h handlers) { h.nodeAdded(n, true) }, []string{"node/n1"}},
		{"node deleted", func(h handlers) { h.nodeDeleted(n, true) }, []string{"node/n1"}},
		{"node: only a NoSchedule taint and labels changed", func(h handlers) { h.nodeUpdated(n, otherNoSchedule) }, nil},
		{"node: a NoExecute taint added", func(h handlers) { h.nodeUpdated(n, newNode("n1", unreachable, notReady)) }, []string{"node/n1"}},
		{"node: the NoExecute taint removed", func(h handlers) { h.nodeUpdated(n, newNode("n1", noSchedule)) }, []string{"node/n1"}},
		{"node: the NoExecute taint's timeAdded changed", func(h handlers) { h.nodeUpdated(n, timeAdded) }, []string{"node/n1"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			q := &fakeQueue{clock: clock.NewFake(t0), due: map[string]time.Time{}}
			tt.call(handlers{q: q})
			if got := q.pop(); !slices.Equal(got, tt.want) {
				t.Errorf("queued %q, want %q", got, tt.want)
			}
		})
	}
}
