package endpoint

import (
	"context"
	"slices"
	"testing"

	"github.com/kcmlab/kcm/informer"
	"github.com/kcmlab/kcm/internal/testing/resttest"
	"github.com/kcmlab/kcm/kube/api"
	"github.com/kcmlab/kcm/queue"
)

// drain returns the queue's keys, sorted.
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

// TestHandlers: Service events enqueue the Service; Endpoints deletions
// and the first list of Endpoints (but the leader-election record)
// enqueue their Service (onServiceUpdate, onServiceDelete,
// onEndpointsDelete, checkLeftoverEndpoints).
func TestHandlers(t *testing.T) {
	q := queue.New(queue.Config[string]{})
	defer q.ShutDown()
	h := &handlers{q: q}
	h.serviceAdded(service("a", web), true)
	h.serviceUpdated(service("x", web), service("b", web))
	h.serviceDeleted(service("c", web), true)
	h.endpointsAdded(existing("d", nil), true)
	h.endpointsAdded(existing("later", nil), false)
	leader := existing("kube-controller-manager", nil)
	leader.Annotations = map[string]string{AnnotationLeader: "{}"}
	h.endpointsAdded(leader, true)
	h.endpointsDeleted(existing("e", nil), false)
	if got, want := drain(t, q), []string{"ns/a", "ns/b", "ns/c", "ns/d", "ns/e"}; !slices.Equal(got, want) {
		t.Fatalf("enqueued %q, want %q", got, want)
	}
}

// TestPodHandlers: a pod event enqueues the Services that
// ctrl/internal/podservices says it concerns (its tests hold the rules,
// after k8s.io/endpointslice/util's): the handlers' wiring.
func TestPodHandlers(t *testing.T) {
	svcs := []*api.Service{
		service("web", map[string]string{"app": "web"}),
		service("front", map[string]string{"tier": "front"}),
		service("manual", nil),
	}
	p := func(rv string, labels map[string]string, change ...func(*api.Pod)) *api.Pod {
		x := pod("p", "10.0.0.1", true)
		x.ResourceVersion, x.Labels = rv, labels
		for _, c := range change {
			c(x)
		}
		return x
	}
	web, front := map[string]string{"app": "web"}, map[string]string{"tier": "front"}
	notReady := func(x *api.Pod) { x.Status.Conditions[0].Status = api.ConditionFalse }
	for _, tc := range []struct {
		name string
		do   func(h *handlers)
		want []string
	}{
		{"add: the matching Services", func(h *handlers) { h.podAdded(p("1", web), false) }, []string{"ns/web"}},
		{"delete: the Services its labels matched", func(h *handlers) { h.podDeleted(p("1", front), true) }, []string{"ns/front"}},
		{"update with the same resourceVersion (a resync): nothing", func(h *handlers) { h.podUpdated(p("1", web), p("1", web, notReady)) }, nil},
		{"labels only: the Services it left or joined", func(h *handlers) { h.podUpdated(p("1", web), p("2", front)) },
			[]string{"ns/front", "ns/web"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			q := queue.New(queue.Config[string]{})
			defer q.ShutDown()
			h := &handlers{q: q, services: informer.ServiceLister{Lister: resttest.Lister("services", svcs...)}}
			tc.do(h)
			if got := drain(t, q); !slices.Equal(got, tc.want) {
				t.Fatalf("enqueued %q, want %q", got, tc.want)
			}
		})
	}
}

func TestDescriptor(t *testing.T) {
	d := Descriptor()
	if d.Name != "endpoints-controller" || !slices.Equal(d.Aliases, []string{"endpoint"}) || d.DisabledByDefault ||
		d.Concurrency == nil || d.Concurrency.Name != "concurrent-endpoint-syncs" || d.Concurrency.Default != 5 ||
		len(d.Flags) != 1 || d.Flags[0].Name != "endpoint-updates-batch-period" || d.Flags[0].NewValue().String() != "0s" || d.Constructor == nil {
		t.Fatalf("descriptor %+v", d)
	}
}
