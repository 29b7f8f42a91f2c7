package tainteviction

import (
	"testing"
	"time"

	"github.com/kcmlab/kcm/kube/api"
)

var t0 = time.Date(2026, 12, 6, 12, 0, 0, 0, time.UTC)

func secs(n int64) *int64 { return &n }

// Test taints and tolerations.
var (
	unreachable = api.Taint{Key: api.TaintNodeUnreachable, Effect: api.TaintEffectNoExecute}
	notReady    = api.Taint{Key: api.TaintNodeNotReady, Effect: api.TaintEffectNoExecute}
	dedicated   = api.Taint{Key: "dedicated", Value: "db", Effect: api.TaintEffectNoExecute}
	noSchedule  = api.Taint{Key: "dedicated", Value: "db", Effect: api.TaintEffectNoSchedule}
)

func tolerate(t api.Taint, seconds *int64) api.Toleration {
	return api.Toleration{Key: t.Key, Operator: api.TolerationOpExists, Effect: t.Effect, TolerationSeconds: seconds}
}

// TestDecide follows kube-controller-manager's processPodOnNode with
// GetMatchingTolerations and getMinTolerationTime (v1.37.2
// pkg/controller/tainteviction taint_eviction.go; its tests
// TestCreatePod, TestUpdatePod, TestUpdateNodeWithMultipleTaints and
// TestGetMinTolerationTime), rule by rule.
func TestDecide(t *testing.T) {
	tests := []struct {
		name        string
		taints      []api.Taint
		tolerations []api.Toleration
		want        Decision
	}{
		{"no taint: nothing to evict", nil, nil, Decision{Verdict: NoTaint}},
		{"only NoExecute taints count", []api.Taint{noSchedule}, nil, Decision{Verdict: NoTaint}},
		{"no toleration: evict now", []api.Taint{unreachable}, nil, Decision{Verdict: EvictNow}},
		{"a toleration of another taint: evict now", []api.Taint{unreachable},
			[]api.Toleration{tolerate(notReady, nil)}, Decision{Verdict: EvictNow}},
		{"a NoSchedule toleration does not tolerate NoExecute", []api.Taint{dedicated},
			[]api.Toleration{{Key: "dedicated", Operator: api.TolerationOpEqual, Value: "db", Effect: api.TaintEffectNoSchedule}},
			Decision{Verdict: EvictNow}},
		{"toleration without tolerationSeconds: tolerated forever", []api.Taint{unreachable},
			[]api.Toleration{tolerate(unreachable, nil)}, Decision{Verdict: Tolerated}},
		{"empty key with Exists tolerates every taint forever", []api.Taint{unreachable, dedicated},
			[]api.Toleration{{Operator: api.TolerationOpExists}}, Decision{Verdict: Tolerated}},
		{"tolerationSeconds: evict that much later", []api.Taint{unreachable},
			[]api.Toleration{tolerate(unreachable, secs(300))}, Decision{Verdict: EvictAt, At: t0.Add(300 * time.Second)}},
		{"tolerationSeconds 0: evict now, through the timed path", []api.Taint{unreachable},
			[]api.Toleration{tolerate(unreachable, secs(0))}, Decision{Verdict: EvictAt, At: t0}},
		{"negative tolerationSeconds count as 0", []api.Taint{unreachable},
			[]api.Toleration{tolerate(unreachable, secs(-5))}, Decision{Verdict: EvictAt, At: t0}},
		{"multiple taints: the least tolerationSeconds wins", []api.Taint{unreachable, notReady},
			[]api.Toleration{tolerate(unreachable, secs(20)), tolerate(notReady, secs(10))},
			Decision{Verdict: EvictAt, At: t0.Add(10 * time.Second)}},
		{"multiple taints: forever and a limit: the limit", []api.Taint{unreachable, notReady},
			[]api.Toleration{tolerate(unreachable, nil), tolerate(notReady, secs(30))},
			Decision{Verdict: EvictAt, At: t0.Add(30 * time.Second)}},
		{"multiple taints: one not tolerated: evict now", []api.Taint{unreachable, dedicated},
			[]api.Toleration{tolerate(unreachable, secs(30))}, Decision{Verdict: EvictNow}},
		{"NoSchedule taints beside NoExecute ones are ignored", []api.Taint{noSchedule, unreachable},
			[]api.Toleration{tolerate(unreachable, secs(5))}, Decision{Verdict: EvictAt, At: t0.Add(5 * time.Second)}},
		{"the first matching toleration counts: forever before a limit", []api.Taint{unreachable},
			[]api.Toleration{{Operator: api.TolerationOpExists}, tolerate(unreachable, secs(10))}, Decision{Verdict: Tolerated}},
		{"the first matching toleration counts: a limit before forever", []api.Taint{unreachable},
			[]api.Toleration{tolerate(unreachable, secs(10)), {Operator: api.TolerationOpExists}},
			Decision{Verdict: EvictAt, At: t0.Add(10 * time.Second)}},
		{"Equal needs the taint's value", []api.Taint{dedicated},
			[]api.Toleration{{Key: "dedicated", Operator: api.TolerationOpEqual, Value: "web"}}, Decision{Verdict: EvictNow}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := Decide(tt.taints, tt.tolerations, t0)
			if got.Verdict != tt.want.Verdict || !got.At.Equal(tt.want.At) {
				t.Errorf("Decide = %s at %v, want %s at %v", got.Verdict, got.At, tt.want.Verdict, tt.want.At)
			}
		})
	}
}

func TestVerdictString(t *testing.T) {
	for v, want := range map[Verdict]string{NoTaint: "NoTaint", EvictNow: "EvictNow", EvictAt: "EvictAt", Tolerated: "Tolerated", 9: "Verdict(?)"} {
		if got := v.String(); got != want {
			t.Errorf("%d.String() = %q, want %q", v, got, want)
		}
	}
}

// TestEqualities: the handlers compare taints and tolerations as
// apimachinery's Semantic.DeepEqual does: field by field, pointers by
// value, nil equal to empty.
func TestEqualities(t *testing.T) {
	at := func(d time.Duration) *api.Time { return &api.Time{Time: t0.Add(d)} }
	ta := []api.Taint{{Key: "k", Value: "v", Effect: api.TaintEffectNoExecute, TimeAdded: at(0)}}
	for _, tt := range []struct {
		name string
		b    []api.Taint
		want bool
	}{
		{"same", []api.Taint{{Key: "k", Value: "v", Effect: api.TaintEffectNoExecute, TimeAdded: at(0)}}, true},
		{"other value", []api.Taint{{Key: "k", Value: "w", Effect: api.TaintEffectNoExecute, TimeAdded: at(0)}}, false},
		{"other timeAdded", []api.Taint{{Key: "k", Value: "v", Effect: api.TaintEffectNoExecute, TimeAdded: at(time.Second)}}, false},
		{"no timeAdded", []api.Taint{{Key: "k", Value: "v", Effect: api.TaintEffectNoExecute}}, false},
		{"none", nil, false},
	} {
		if got := taintsEqual(ta, tt.b); got != tt.want {
			t.Errorf("taintsEqual(%s) = %v, want %v", tt.name, got, tt.want)
		}
	}
	if !taintsEqual(nil, []api.Taint{}) || !tolerationsEqual(nil, []api.Toleration{}) {
		t.Error("nil and empty lists differ")
	}
	a := []api.Toleration{tolerate(unreachable, secs(5))}
	for _, tt := range []struct {
		name string
		b    []api.Toleration
		want bool
	}{
		{"same seconds, another pointer", []api.Toleration{tolerate(unreachable, secs(5))}, true},
		{"other seconds", []api.Toleration{tolerate(unreachable, secs(6))}, false},
		{"no seconds", []api.Toleration{tolerate(unreachable, nil)}, false},
		{"other key", []api.Toleration{tolerate(notReady, secs(5))}, false},
		{"one more", []api.Toleration{tolerate(unreachable, secs(5)), tolerate(notReady, nil)}, false},
	} {
		if got := tolerationsEqual(a, tt.b); got != tt.want {
			t.Errorf("tolerationsEqual(%s) = %v, want %v", tt.name, got, tt.want)
		}
	}
}
