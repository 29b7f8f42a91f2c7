package resourcequota

import (
	"context"
	"slices"
	"testing"
	"time"

	"github.com/kcmlab/kcm/kube/api"
)

// TestAddQuotaQueues: Kubernetes' addQuota — a quota whose status.hard is
// not its spec.hard, or that lacks the usage of a hard name an evaluator
// computes, goes on the priority (missing usage) queue; any other on the
// primary queue.
func TestAddQuotaQueues(t *testing.T) {
	hard := list("pods", "10", "configmaps", "5")
	tests := []struct {
		name            string
		quota           *api.ResourceQuota
		primary, urgent []string
	}{
		{"new: no status", rq("q", hard), nil, []string{"ns/q"}},
		{"status.hard behind spec.hard", rq("q", hard, status(list("pods", "10"), list("pods", "1"))), nil, []string{"ns/q"}},
		{"usage of a computed name missing", rq("q", hard, synced(list("pods", "1"))), nil, []string{"ns/q"}},
		{"usage missing only for a name nobody computes", rq("q", list("pods", "10", "example.com/unknown", "1"),
			synced(list("pods", "1"))), []string{"ns/q"}, nil},
		{"complete", rq("q", hard, synced(list("pods", "1", "configmaps", "0"))), []string{"ns/q"}, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f := newFixture(t, nil, nil, nil)
			f.c.quotaHandler().OnAdd(tt.quota, true)
			if got := drain(t, f.c.primary.Queue()); !slices.Equal(got, tt.primary) {
				t.Errorf("primary queue %q, want %q", got, tt.primary)
			}
			if got := drain(t, f.c.priority.Queue()); !slices.Equal(got, tt.urgent) {
				t.Errorf("priority queue %q, want %q", got, tt.urgent)
			}
		})
	}
}

// TestQuotaUpdatesAndDeletes: an update queues the quota only when
// spec.hard changed (status updates are the controller's own); a delete
// queues it on the primary queue (the sync then finds it gone) and is a
// change of resourcequotas in its namespace (quotas count quotas).
func TestQuotaUpdatesAndDeletes(t *testing.T) {
	f := newFixture(t, nil, nil, nil)
	h := f.c.quotaHandler()
	old := rq("q", list("pods", "10"), synced(list("pods", "1")))
	statusOnly := rq("q", list("pods", "10"), synced(list("pods", "2")))
	h.OnUpdate(old, statusOnly)
	h.OnUpdate(old, rq("q", list("pods", "10.0"), synced(list("pods", "1")))) // the same quantity
	if n := f.c.primary.Queue().Len() + f.c.priority.Queue().Len(); n != 0 {
		t.Fatalf("a status-only update queued %d keys", n)
	}
	h.OnUpdate(old, rq("q", list("pods", "20"), status(list("pods", "10"), list("pods", "1"))))
	if got := drain(t, f.c.priority.Queue()); !slices.Equal(got, []string{"ns/q"}) {
		t.Errorf("spec.hard raised: priority queue %q", got)
	}
	h.OnDelete(old, false)
	if got := drain(t, f.c.primary.Queue()); !slices.Equal(got, []string{"ns/q"}) {
		t.Errorf("deleted: primary queue %q", got)
	}
	if got := drain(t, f.c.changes.Queue()); !slices.Equal(got, []string{"ns/resourcequotas."}) {
		t.Errorf("deleted: changes %q", got)
	}
}

// TestReplenish: a change of a resource in a namespace queues, on the
// primary queue, the namespace's quotas whose status.hard names something
// that resource's evaluator computes — no other quota, none of another
// namespace — and a resource without an evaluator queues nothing
// (Kubernetes' replenishQuota).
func TestReplenish(t *testing.T) {
	quotas := []*api.ResourceQuota{
		rq("pods", list("pods", "10"), synced(list("pods", "1"))),
		rq("count-pods", list("count/pods", "10"), synced(list("count/pods", "1"))),
		rq("configmaps", list("configmaps", "10"), synced(list("configmaps", "1"))),
		rq("spec-only", list("pods", "10")), // status.hard not written yet: not tracking
		rq("elsewhere", list("pods", "10"), synced(list("pods", "1")), inNS("other")),
	}
	f := newFixture(t, quotas, nil, nil)
	for _, tt := range []struct {
		change string
		want   []string
	}{
		{"ns/pods.", []string{"ns/count-pods", "ns/pods"}},
		{"ns/configmaps.", []string{"ns/configmaps"}},
		{"ns/widgets.example.com", nil},
		{"empty/pods.", nil},
	} {
		if _, err := f.c.replenish(context.Background(), tt.change); err != nil {
			t.Fatal(err)
		}
		got := drain(t, f.c.primary.Queue())
		slices.Sort(got)
		if !slices.Equal(got, tt.want) {
			t.Errorf("change %s queued %q, want %q", tt.change, got, tt.want)
		}
	}
}

// TestReplenishmentHandlers: the monitors' handlers signal deletions and
// the updates the update filter passes (Kubernetes' DefaultUpdateFilter):
// a pod that turns terminal or changes scope (activeDeadlineSeconds), a
// service whose quota type changes, any claim update; never an add.
func TestReplenishmentHandlers(t *testing.T) {
	f := newFixture(t, []*api.ResourceQuota{rq("q", list("pods", "10"))}, nil, nil)
	pods := replenisher(f.c, podsGR, f.c.podChanged)
	svcs := replenisher(f.c, servicesGR, serviceChanged)
	claims := replenisher(f.c, claimsGR, claimChanged)
	free := func(p *api.Pod) *api.Pod { p.Namespace = "free"; return p }
	deadline := func(p *api.Pod) *api.Pod { s := int64(30); p.Spec.ActiveDeadlineSeconds = &s; return p }
	relabelled := pod("p", api.PodRunning)
	relabelled.Labels = map[string]string{"a": "b"}
	nodePort := service("s", api.ServiceTypeNodePort)
	nodePort.Spec.Ports = []api.ServicePort{{Port: 80}}
	claim := &api.PersistentVolumeClaim{ObjectMeta: api.ObjectMeta{Namespace: "ns", Name: "c"}}
	tests := []struct {
		name string
		do   func()
		want bool
	}{
		{"pod added", func() { pods.OnAdd(pod("p", api.PodRunning), false) }, false},
		{"pod relabelled", func() { pods.OnUpdate(pod("p", api.PodRunning), relabelled) }, false},
		{"pod Running → Succeeded", func() { pods.OnUpdate(pod("p", api.PodRunning), pod("p", api.PodSucceeded)) }, true},
		{"pod Pending → Failed", func() { pods.OnUpdate(pod("p", api.PodPending), pod("p", api.PodFailed)) }, true},
		{"pod Pending → Running", func() { pods.OnUpdate(pod("p", api.PodPending), pod("p", api.PodRunning)) }, false},
		{"pod gets an active deadline", func() { pods.OnUpdate(pod("p", api.PodRunning), deadline(pod("p", api.PodRunning))) }, true},
		{"pod deleted", func() { pods.OnDelete(pod("p", api.PodRunning), false) }, true},
		{"service ClusterIP → NodePort", func() { svcs.OnUpdate(service("s", api.ServiceTypeClusterIP), nodePort) }, true},
		{"NodePort service's ports changed", func() { svcs.OnUpdate(service("s", api.ServiceTypeNodePort), nodePort) }, false},
		{"ClusterIP → ExternalName", func() {
			svcs.OnUpdate(service("s", api.ServiceTypeClusterIP), service("s", api.ServiceTypeExternalName))
		}, false},
		{"service deleted", func() { svcs.OnDelete(service("s", ""), true) }, true},
		{"claim updated", func() { claims.OnUpdate(claim, claim) }, true},
		{"pod turns terminal in a namespace without quotas", func() {
			pods.OnUpdate(free(pod("p", api.PodRunning)), free(pod("p", api.PodSucceeded)))
		}, false},
	}
	for _, tt := range tests {
		tt.do()
		got := drain(t, f.c.changes.Queue())
		if (len(got) > 0) != tt.want {
			t.Errorf("%s: changes %q, want a change: %v", tt.name, got, tt.want)
		}
	}
}

// TestFullResync: at start and every sync period, every quota goes on
// the primary queue (Kubernetes' enqueueAll under wait.Until with
// --resource-quota-sync-period), driven by the fake clock.
func TestFullResync(t *testing.T) {
	f := newFixture(t, []*api.ResourceQuota{rq("a", list("pods", "1")), rq("b", list("pods", "1"), inNS("other"))}, nil, nil)
	// The deadline only bounds a failing run; a passing one never waits
	// for it.
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	done := make(chan struct{})
	go func() { defer close(done); f.c.resyncLoop(ctx) }()
	defer func() { cancel(); <-done }()
	if err := f.clock.BlockUntilWaiters(ctx, 1); err != nil {
		t.Fatal(err)
	}
	if got := drain(t, f.c.primary.Queue()); len(got) != 2 {
		t.Fatalf("queued %q at start, want both quotas", got)
	}
	f.clock.Step(DefaultSyncPeriod - time.Second)
	if n := f.c.primary.Queue().Len(); n != 0 {
		t.Fatalf("%d keys queued before the period", n)
	}
	for round := range 2 {
		f.clock.Step(time.Second)
		var got []string
		for range 2 {
			k, err := f.c.primary.Queue().Get(ctx)
			if err != nil {
				t.Fatalf("round %d: no quota queued after the period: %v", round, err)
			}
			f.c.primary.Queue().Done(k)
			got = append(got, k)
		}
		slices.Sort(got)
		if !slices.Equal(got, []string{"ns/a", "other/b"}) {
			t.Fatalf("round %d: queued %q", round, got)
		}
		f.clock.Step(DefaultSyncPeriod - time.Second)
	}
}
