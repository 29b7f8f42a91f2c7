package endpointslicemirroring

import (
	"context"
	"slices"
	"testing"
	"time"

	"github.com/kcmlab/kcm/clock"
	"github.com/kcmlab/kcm/ctrl/endpointslice/reconciler"
	"github.com/kcmlab/kcm/kube/api"
	"github.com/kcmlab/kcm/queue"
)

// drain returns the queue's ready keys, sorted.
func drain(t *testing.T, q *queue.Queue[string]) []string {
	t.Helper()
	var got []string
	for q.Len() > 0 {
		k, err := q.Get(context.Background())
		if err != nil {
			t.Fatal(err)
		}
		got = append(got, k)
		q.Done(k)
	}
	slices.Sort(got)
	return got
}

// TestHandlers follows the event handlers of
// endpointslicemirroring_controller.go (onServiceAdd/Update/Delete,
// onEndpointsAdd/Update/Delete, onEndpointSliceAdd/Update/Delete) and
// their tests: which events enqueue which Endpoints.
func TestHandlers(t *testing.T) {
	skip := func(name string) *api.Endpoints {
		e := endpoints(name)
		e.Labels = map[string]string{LabelSkipMirror: "true"}
		return e
	}
	leader := endpoints("leader")
	leader.Annotations = map[string]string{"control-plane.alpha.kubernetes.io/leader": "{}"}
	eps := endpoints("foo")
	mine := func(name, svc string, gen int64) *api.EndpointSlice {
		s := mirroredSlice(eps, name, api.AddressTypeIPv4, nil)
		s.Labels[LabelServiceName] = svc
		s.Generation = gen
		s.UID = "uid-" + name
		return s
	}
	theirs := func(name, svc string) *api.EndpointSlice {
		s := mine(name, svc, 1)
		s.Labels[LabelManagedBy] = reconciler.ControllerName
		return s
	}
	for _, tc := range []struct {
		name  string
		event func(h *handlers)
		want  []string
	}{
		{"an Endpoints added", func(h *handlers) { h.endpointsAdded(endpoints("a"), true) }, []string{"ns/a"}},
		{"an Endpoints with skip-mirror=true added: nothing", func(h *handlers) { h.endpointsAdded(skip("a"), false) }, nil},
		{"a leader-election record added: nothing", func(h *handlers) { h.endpointsAdded(leader, true) }, nil},
		{"an Endpoints updated", func(h *handlers) { h.endpointsUpdated(endpoints("a"), endpoints("a")) }, []string{"ns/a"}},
		{"an Endpoints labelled skip-mirror: its slices go", func(h *handlers) { h.endpointsUpdated(endpoints("a"), skip("a")) }, []string{"ns/a"}},
		{"a skipped Endpoints updated, still skipped: nothing", func(h *handlers) { h.endpointsUpdated(skip("a"), skip("a")) }, nil},
		{"an Endpoints deleted", func(h *handlers) { h.endpointsDeleted(endpoints("a"), false) }, []string{"ns/a"}},
		{"a skipped Endpoints deleted: nothing", func(h *handlers) { h.endpointsDeleted(skip("a"), false) }, nil},
		{"a selector-less Service added", func(h *handlers) { h.serviceAdded(selectorless("a"), true) }, []string{"ns/a"}},
		{"a Service with a selector added: nothing", func(h *handlers) { h.serviceAdded(withSelector("a"), true) }, nil},
		{"a Service gains a selector", func(h *handlers) { h.serviceUpdated(selectorless("a"), withSelector("a")) }, []string{"ns/a"}},
		{"a Service loses its selector", func(h *handlers) { h.serviceUpdated(withSelector("a"), selectorless("a")) }, []string{"ns/a"}},
		{"a Service updated, selector-less before and after: nothing", func(h *handlers) { h.serviceUpdated(selectorless("a"), selectorless("a")) }, nil},
		{"a selector-less Service deleted", func(h *handlers) { h.serviceDeleted(selectorless("a"), false) }, []string{"ns/a"}},
		{"a Service with a selector deleted: nothing", func(h *handlers) { h.serviceDeleted(withSelector("a"), false) }, nil},
		{"a mirrored slice the tracker has not seen added", func(h *handlers) { h.sliceAdded(mine("s", "foo", 1), true) }, []string{"ns/foo"}},
		{"a mirrored slice at the tracked generation added: nothing", func(h *handlers) {
			h.tracker.Update(mine("s", "foo", 1))
			h.sliceAdded(mine("s", "foo", 1), false)
		}, nil},
		{"another controller's slice added: nothing", func(h *handlers) { h.sliceAdded(theirs("s", "foo"), true) }, nil},
		{"a mirrored slice changed by someone else (newer generation)", func(h *handlers) {
			h.tracker.Update(mine("s", "foo", 1))
			h.sliceUpdated(mine("s", "foo", 1), mine("s", "foo", 2))
		}, []string{"ns/foo"}},
		{"a mirrored slice updated to the tracked generation: nothing", func(h *handlers) {
			h.tracker.Update(mine("s", "foo", 2))
			h.sliceUpdated(mine("s", "foo", 1), mine("s", "foo", 2))
		}, nil},
		{"a slice's managed-by moved away from this controller", func(h *handlers) {
			h.tracker.Update(mine("s", "foo", 1))
			h.sliceUpdated(mine("s", "foo", 1), theirs("s", "foo"))
		}, []string{"ns/foo"}},
		{"a slice's service-name label changed: both Endpoints", func(h *handlers) {
			h.tracker.Update(mine("s", "foo", 1))
			h.sliceUpdated(mine("s", "foo", 1), mine("s", "bar", 1))
		}, []string{"ns/bar", "ns/foo"}},
		{"a slice without a service-name label: nothing", func(h *handlers) { h.sliceAdded(mine("s", "", 1), true) }, nil},
		{"a tracked slice deleted unexpectedly: re-created", func(h *handlers) {
			h.tracker.Update(mine("s", "foo", 1))
			h.sliceDeleted(mine("s", "foo", 1), false)
		}, []string{"ns/foo"}},
		{"a slice deleted as expected: nothing", func(h *handlers) {
			h.tracker.ExpectDeletion(mine("s", "foo", 1))
			h.sliceDeleted(mine("s", "foo", 1), false)
		}, nil},
		{"an untracked slice deleted: nothing", func(h *handlers) { h.sliceDeleted(mine("s", "foo", 1), false) }, nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			q := queue.New(queue.Config[string]{})
			defer q.ShutDown()
			h := &handlers{q: q, tracker: reconciler.NewTracker()}
			tc.event(h)
			if got := drain(t, q); !slices.Equal(got, tc.want) {
				t.Fatalf("enqueued %q, want %q", got, tc.want)
			}
		})
	}
}

// TestSliceEventsBatched follows queueEndpointsForEndpointSlice: a slice
// event enqueues its Endpoints after --mirroring-endpointslice-updates-batch-period,
// while Endpoints and Service events enqueue at once (queueEndpoints).
func TestSliceEventsBatched(t *testing.T) {
	clk := clock.NewFake(time.Date(2025, 9, 1, 0, 0, 0, 0, time.UTC))
	q := queue.New(queue.Config[string]{Clock: clk})
	defer q.ShutDown()
	h := &handlers{q: q, tracker: reconciler.NewTracker(), batch: 5 * time.Second}
	s := mirroredSlice(endpoints("foo"), "foo-a", api.AddressTypeIPv4, nil)
	h.sliceAdded(s, true)
	h.endpointsAdded(endpoints("bar"), true)
	if got := drain(t, q); !slices.Equal(got, []string{"ns/bar"}) {
		t.Fatalf("before the batch period: %q, want only ns/bar", got)
	}
	clk.Step(5 * time.Second)
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	k, err := q.Get(ctx)
	if err != nil || k != "ns/foo" {
		t.Fatalf("after the batch period: %q %v, want ns/foo", k, err)
	}
	q.Done(k)
}
