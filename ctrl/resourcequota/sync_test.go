package resourcequota

import (
	"errors"
	"maps"
	"testing"

	"github.com/kcmlab/kcm/ctrl"
	"github.com/kcmlab/kcm/internal/testing/resttest"
	"github.com/kcmlab/kcm/kube/api"
)

// TestSync: Kubernetes' syncResourceQuota — status.hard becomes spec.hard,
// status.used is the evaluators' usage masked to the hard names (a hard
// name no evaluator computes keeps its used), and the one UpdateStatus is
// made only when status.hard differs from spec.hard, a status list is
// absent, or the usage changed (resource_quota_controller.go,
// syncResourceQuota; TestSyncResourceQuota upstream).
func TestSync(t *testing.T) {
	hard := list("pods", "10", "count/pods", "10", "services", "3", "configmaps", "5")
	// Two pods count (Pending, Running), the terminal ones do not for
	// "pods" but do for count/pods; one service; three configmaps.
	want := list("pods", "2", "count/pods", "4", "services", "1", "configmaps", "3")
	tests := []struct {
		name  string
		quota *api.ResourceQuota
		// write is the status written, nil for no write.
		write *api.ResourceQuotaStatus
	}{
		{"new quota: status.hard and status.used written", rq("q", hard),
			&api.ResourceQuotaStatus{Hard: hard, Used: want}},
		{"status current: nothing written", rq("q", hard, synced(want)), nil},
		{"usage changed: written", rq("q", hard, synced(list("pods", "3", "count/pods", "4", "services", "1", "configmaps", "3"))),
			&api.ResourceQuotaStatus{Hard: hard, Used: want}},
		{"a used name missing: written", rq("q", hard, synced(list("pods", "2", "count/pods", "4", "services", "1"))),
			&api.ResourceQuotaStatus{Hard: hard, Used: want}},
		{"spec.hard changed: status.hard rewritten", rq("q", hard, status(list("pods", "5", "count/pods", "10", "services", "3", "configmaps", "5"), want)),
			&api.ResourceQuotaStatus{Hard: hard, Used: want}},
		{"status.used absent: written", rq("q", hard, status(hard, nil)),
			&api.ResourceQuotaStatus{Hard: hard, Used: want}},
		{"used of a name no longer hard: dropped", rq("q", list("pods", "10"), synced(list("pods", "2", "secrets", "4"))),
			&api.ResourceQuotaStatus{Hard: list("pods", "10"), Used: list("pods", "2")}},
		{"a hard name no evaluator computes keeps its used", rq("q", list("pods", "10", "example.com/unknown", "4"),
			synced(list("pods", "2", "example.com/unknown", "1"))), nil},
		{"equal quantities in another form are equal", rq("q", list("pods", "1k"), status(list("pods", "1000"), list("pods", "2"))), nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f := newFixture(t, []*api.ResourceQuota{tt.quota},
				[]*api.Pod{pod("p1", api.PodPending), pod("p2", api.PodRunning), pod("p3", api.PodSucceeded), pod("p4", api.PodFailed)},
				[]*api.Service{service("s1", api.ServiceTypeClusterIP)})
			f.counts["configmaps"] = map[string]int{"ns": 3, "other": 7}
			actions, err := f.sync("ns/q")
			if err != nil {
				t.Fatal(err)
			}
			if tt.write == nil {
				resttest.Expect(t, actions)
				return
			}
			if !resttest.Expect(t, actions, "update resourcequotas/status ns/q") {
				return
			}
			got, err := resttest.Decode[*api.ResourceQuota](actions[0])
			if err != nil {
				t.Fatal(err)
			}
			if !maps.Equal(got.Status.Hard, tt.write.Hard) || !maps.Equal(got.Status.Used, tt.write.Used) {
				t.Errorf("status written:\n hard %v\n used %v\nwant\n hard %v\n used %v", got.Status.Hard, got.Status.Used, tt.write.Hard, tt.write.Used)
			}
			if !maps.Equal(got.Spec.Hard, tt.quota.Spec.Hard) {
				t.Errorf("spec.hard written %v, want it kept: %v", got.Spec.Hard, tt.quota.Spec.Hard)
			}
			// Synced again from what the server now holds: nothing to do.
			again, err := f.sync("ns/q")
			if err != nil {
				t.Fatal(err)
			}
			resttest.Expect(t, again)
		})
	}
}

// TestSyncGoneOrMalformed: a quota gone from the cache is nothing to do
// (syncResourceQuotaFromKey's NotFound); a key that is not
// namespace/name is a terminal error, never retried.
func TestSyncGoneOrMalformed(t *testing.T) {
	f := newFixture(t, nil, nil, nil)
	actions, err := f.sync("ns/gone")
	if err != nil {
		t.Fatalf("deleted quota: %v", err)
	}
	resttest.Expect(t, actions)
	if _, err := f.sync("no-slash"); !errors.Is(err, ErrBadKey) || !errors.Is(err, ctrl.ErrTerminal) {
		t.Fatalf("malformed key: %v, want ErrBadKey, terminal", err)
	}
}

// TestSyncErrors: a usage that cannot be computed is returned (the loop
// retries with backoff) while status.hard is still written; a failed
// UpdateStatus is returned too (syncResourceQuota aggregates both).
func TestSyncErrors(t *testing.T) {
	hard := list("pods", "10", "configmaps", "5")
	t.Run("count fails", func(t *testing.T) {
		f := newFixture(t, []*api.ResourceQuota{rq("q", hard)}, nil, nil)
		f.countErr = errors.New("cache unavailable")
		actions, err := f.sync("ns/q")
		if !errors.Is(err, f.countErr) {
			t.Fatalf("sync: %v, want the count's error", err)
		}
		if !resttest.Expect(t, actions, "update resourcequotas/status ns/q") {
			return
		}
		if got := f.stored("ns", "q"); !maps.Equal(got.Status.Hard, hard) {
			t.Errorf("status.hard %v, want %v", got.Status.Hard, hard)
		}
	})
	t.Run("update fails", func(t *testing.T) {
		f := newFixture(t, []*api.ResourceQuota{rq("q", list("pods", "10"))}, nil, nil)
		f.api.Fail(resttest.On("update", "resourcequotas/status"), resttest.Failure(500, "InternalError", "etcd is down"))
		actions, err := f.sync("ns/q")
		if err == nil {
			t.Fatal("sync succeeded, want the update's error")
		}
		resttest.Expect(t, actions, "update resourcequotas/status ns/q")
	})
}

// TestSyncComputeResources: requests.* and limits.* are summed over the
// pods that count (a terminal pod does not: QuotaV1Pod) and written in
// Kubernetes' canonical quantity form.
func TestSyncComputeResources(t *testing.T) {
	withRes := func(p *api.Pod, cpu, mem string) *api.Pod {
		p.Spec.Containers[0].Resources = api.ResourceRequirements{
			Requests: list("cpu", cpu, "memory", mem), Limits: list("cpu", cpu, "memory", mem)}
		return p
	}
	hard := list("requests.cpu", "2", "limits.memory", "1Gi", "requests.memory", "1Gi")
	f := newFixture(t, []*api.ResourceQuota{rq("q", hard)}, []*api.Pod{
		withRes(pod("a", api.PodRunning), "100m", "128Mi"),
		withRes(pod("b", api.PodPending), "250m", "64Mi"),
		withRes(pod("done", api.PodSucceeded), "1", "512Mi"),
	}, nil)
	actions, err := f.sync("ns/q")
	if err != nil || !resttest.Expect(t, actions, "update resourcequotas/status ns/q") {
		t.Fatalf("sync: %v", err)
	}
	want := list("requests.cpu", "350m", "limits.memory", "192Mi", "requests.memory", "192Mi")
	if got := f.stored("ns", "q").Status.Used; !maps.Equal(got, want) {
		t.Errorf("used %v, want %v", got, want)
	}
}

// TestSyncScopes: a quota's spec.scopes and spec.scopeSelector reach the
// evaluators (syncResourceQuota passes both to CalculateUsage): a
// BestEffort quota counts only the pods without requests or limits, a
// PriorityClass selector only the pods of the classes it names.
func TestSyncScopes(t *testing.T) {
	bestEffort := pod("best-effort", api.PodRunning)
	burstable := pod("burstable", api.PodRunning)
	burstable.Spec.Containers[0].Resources = api.ResourceRequirements{Requests: list("cpu", "100m")}
	high := pod("high", api.PodRunning)
	high.Spec.PriorityClassName = "high"
	scoped := rq("best-effort", list("pods", "10"), func(q *api.ResourceQuota) {
		q.Spec.Scopes = []api.ResourceQuotaScope{api.ResourceQuotaScopeBestEffort}
	})
	selected := rq("high", list("pods", "10"), func(q *api.ResourceQuota) {
		q.Spec.ScopeSelector = &api.ScopeSelector{MatchExpressions: []api.ScopedResourceSelectorRequirement{{
			ScopeName: api.ResourceQuotaScopePriorityClass, Operator: api.ScopeSelectorOpIn, Values: []string{"high"}}}}
	})
	f := newFixture(t, []*api.ResourceQuota{scoped, selected}, []*api.Pod{bestEffort, burstable, high}, nil)
	for name, want := range map[string]string{"best-effort": "2", "high": "1"} {
		if _, err := f.sync("ns/" + name); err != nil {
			t.Fatal(err)
		}
		if got := f.stored("ns", name).Status.Used["pods"]; got != want {
			t.Errorf("quota %s: used pods %q, want %q", name, got, want)
		}
	}
}
