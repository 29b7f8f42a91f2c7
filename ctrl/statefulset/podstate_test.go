package statefulset

import (
	"testing"
	"time"

	"github.com/kcmlab/kcm/kube/api"
)

// The pod predicates of Kubernetes' stateful_set_utils.go; availability
// is podutil.IsPodAvailable: Ready, and with minReadySeconds > 0 Ready
// since at least minReadySeconds by the Ready condition's
// lastTransitionTime (a zero time is never available).
func TestPodState(t *testing.T) {
	now := time.Date(2026, 1, 1, 12, 0, 0, 0, time.UTC)
	ready := func(since time.Time) api.PodCondition {
		return api.PodCondition{Type: api.PodReady, Status: api.ConditionTrue, LastTransitionTime: api.Time{Time: since}}
	}
	notReady := api.PodCondition{Type: api.PodReady, Status: api.ConditionFalse}
	deleted := &api.Time{Time: now}
	cases := []struct {
		name       string
		phase      api.PodPhase
		conds      []api.PodCondition
		deleting   *api.Time
		minReady   int32
		runReady   bool
		available  bool
		created    bool
		pending    bool
		terminal   bool
		terminate  bool
		unavailabl bool
	}{
		{name: "not created", created: false, unavailabl: true},
		{name: "pending", phase: api.PodPending, created: true, pending: true, unavailabl: true},
		{name: "running not ready", phase: api.PodRunning, conds: []api.PodCondition{notReady}, created: true, unavailabl: true},
		{name: "running ready", phase: api.PodRunning, conds: []api.PodCondition{ready(now)}, created: true, runReady: true, available: true},
		{name: "ready 9s of 10", phase: api.PodRunning, conds: []api.PodCondition{ready(now.Add(-9 * time.Second))}, minReady: 10,
			created: true, runReady: true, unavailabl: true},
		{name: "ready 10s of 10", phase: api.PodRunning, conds: []api.PodCondition{ready(now.Add(-10 * time.Second))}, minReady: 10,
			created: true, runReady: true, available: true},
		{name: "ready, no transition time", phase: api.PodRunning, conds: []api.PodCondition{ready(time.Time{})}, minReady: 10,
			created: true, runReady: true, unavailabl: true},
		{name: "ready but pending: available, not running", phase: api.PodPending, conds: []api.PodCondition{ready(now)},
			created: true, pending: true, available: true},
		{name: "ready and terminating", phase: api.PodRunning, conds: []api.PodCondition{ready(now)}, deleting: deleted,
			created: true, runReady: true, available: true, terminate: true, unavailabl: true},
		{name: "failed", phase: api.PodFailed, created: true, terminal: true, unavailabl: true},
		{name: "succeeded", phase: api.PodSucceeded, created: true, terminal: true, unavailabl: true},
	}
	for _, tc := range cases {
		p := &api.Pod{ObjectMeta: api.ObjectMeta{Name: "web-0", DeletionTimestamp: tc.deleting},
			Status: api.PodStatus{Phase: tc.phase, Conditions: tc.conds}}
		check := func(what string, got, want bool) {
			if got != want {
				t.Errorf("%s: %s %v, want %v", tc.name, what, got, want)
			}
		}
		check("isRunningAndReady", isRunningAndReady(p), tc.runReady)
		check("isRunningAndAvailable", isRunningAndAvailable(p, tc.minReady, now), tc.available)
		check("isCreated", isCreated(p), tc.created)
		check("isPending", isPending(p), tc.pending)
		check("isTerminalPhase", isTerminalPhase(p), tc.terminal)
		check("isTerminating", isTerminating(p), tc.terminate)
		check("isUnavailable", isUnavailable(p, tc.minReady, now), tc.unavailabl)
	}
}
