package replicaset

import (
	"encoding/json"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/kcmlab/kcm/kube/api"
)

// calculateStatus' ReplicaFailure rule (Kubernetes): set only when absent,
// its reason from the direction of the diff; an existing condition keeps
// its first message while errors go on; removed when all is well.
func TestReplicaFailureCondition(t *testing.T) {
	boom := errors.New("boom")
	rs := newRS("web", 2, "")
	two := ownedPods(rs, 2)
	three := ownedPods(rs, 3)
	for _, tc := range []struct {
		name       string
		existing   *api.ReplicaSetCondition
		active     []*api.Pod
		err        error
		wantReason string
		wantMsg    string
		wantNone   bool
	}{
		{"too few: FailedCreate", nil, nil, boom, ReasonFailedCreate, "boom", false},
		{"too many: FailedDelete", nil, three, boom, ReasonFailedDelete, "boom", false},
		{"balanced: no reason", nil, two, boom, "", "boom", false},
		{"already set: kept as is", &api.ReplicaSetCondition{Type: api.ReplicaSetReplicaFailure, Status: api.ConditionTrue, Reason: ReasonFailedCreate, Message: "first"}, three, boom, ReasonFailedCreate, "first", false},
		{"success removes it", &api.ReplicaSetCondition{Type: api.ReplicaSetReplicaFailure, Status: api.ConditionTrue, Reason: ReasonFailedCreate}, two, nil, "", "", true},
		{"success without one: none", nil, two, nil, "", "", true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := *rs
			r.Status.Conditions = nil
			if tc.existing != nil {
				r.Status.Conditions = []api.ReplicaSetCondition{*tc.existing}
			}
			st := calculateStatus(&r, tc.active, tc.err, t0)
			c := getCondition(st, api.ReplicaSetReplicaFailure)
			if tc.wantNone {
				if c != nil || len(st.Conditions) != 0 {
					t.Fatalf("conditions %+v", st.Conditions)
				}
				return
			}
			if c == nil || len(st.Conditions) != 1 || c.Status != api.ConditionTrue || c.Reason != tc.wantReason || c.Message != tc.wantMsg {
				t.Fatalf("conditions %+v", st.Conditions)
			}
		})
	}
}

// A status equal in every count and condition, with the generation
// already observed, is not written.
func TestStatusUnchanged(t *testing.T) {
	rs := newRS("web", 1, "")
	rs.Status = api.ReplicaSetStatus{Replicas: 1, FullyLabeledReplicas: 1, ReadyReplicas: 1, AvailableReplicas: 1, ObservedGeneration: 1,
		Conditions: []api.ReplicaSetCondition{{Type: "X"}}}
	same := rs.Status
	if !statusUnchanged(rs, same) {
		t.Fatal("equal status reported changed")
	}
	for name, change := range map[string]func(*api.ReplicaSetStatus){
		"replicas":   func(s *api.ReplicaSetStatus) { s.Replicas++ },
		"labelled":   func(s *api.ReplicaSetStatus) { s.FullyLabeledReplicas++ },
		"ready":      func(s *api.ReplicaSetStatus) { s.ReadyReplicas++ },
		"available":  func(s *api.ReplicaSetStatus) { s.AvailableReplicas++ },
		"conditions": func(s *api.ReplicaSetStatus) { s.Conditions = nil },
	} {
		st := rs.Status
		change(&st)
		if statusUnchanged(rs, st) {
			t.Errorf("%s change not seen", name)
		}
	}
	rs.Generation = 2
	if statusUnchanged(rs, same) {
		t.Error("a new generation not seen")
	}
}

// The requeue delay is the time until the first Ready pod reaches
// minReadySeconds; a Ready condition without a transition time waits a
// full minReadySeconds.
func TestAvailableAfter(t *testing.T) {
	rs := newRS("web", 3, "")
	pods := []*api.Pod{newPod("a", ready(t0.Add(-5*time.Second))), newPod("b", ready(t0.Add(-time.Hour))), newPod("c")}
	if d := availableAfter(rs, pods, t0); d != 0 {
		t.Fatalf("minReadySeconds 0: %v", d)
	}
	rs.Spec.MinReadySeconds = 20
	if d := availableAfter(rs, pods, t0); d != 15*time.Second {
		t.Fatalf("%v, want 15s", d)
	}
	pods = append(pods, newPod("d", ready(time.Time{})))
	rs.Spec.MinReadySeconds = 10
	if d := availableAfter(rs, pods, t0); d != 5*time.Second {
		t.Fatalf("%v, want 5s", d)
	}
	if d := availableAfter(rs, pods[3:], t0); d != 10*time.Second {
		t.Fatalf("%v, want 10s", d)
	}
}

// The spec of a pod is the template's raw bytes when the ReplicaSet came
// from the apiserver, kcm's encoding otherwise; generateName is
// "<name>-" unless that is too long for a name.
func TestNewPodJSON(t *testing.T) {
	rs := newRS("web", 1, `"x-unknown":{"a":[1,2]}`)
	body, err := newPodJSON(rs)
	if err != nil || !strings.Contains(string(body), `"spec":{"x-unknown":{"a":[1,2]},"containers"`) {
		t.Fatalf("%s %v", body, err)
	}
	built := &api.ReplicaSet{ObjectMeta: api.ObjectMeta{Name: "web", Namespace: "ns"}, Spec: rs.Spec}
	body, err = newPodJSON(built)
	if err != nil || !strings.Contains(string(body), `"spec":{"containers":[{"name":"c","image":"nginx","resources":{}}]}`) {
		t.Fatalf("%s %v", body, err)
	}
	nullSpec, err := api.Typed[api.ReplicaSet]().Decode([]byte(`{"metadata":{"name":"web"},"spec":{"template":{"metadata":{"labels":{"a":"b"}},"spec":null}}}`))
	if err != nil {
		t.Fatal(err)
	}
	if body, err = newPodJSON(nullSpec); err != nil || !strings.Contains(string(body), `"spec":{"containers":null}`) {
		t.Fatalf("%s %v", body, err)
	}
	broken := newRS("web", 1, "")
	broken.SetRaw([]byte(`{"spec":`))
	if _, err := newPodJSON(broken); err == nil {
		t.Fatal("unreadable raw JSON accepted")
	}
	var pod struct {
		Metadata podMeta `json:"metadata"`
	}
	_ = json.Unmarshal(body, &pod)
	if pod.Metadata.GenerateName != "web-" {
		t.Fatalf("generateName %q", pod.Metadata.GenerateName)
	}
	long := strings.Repeat("a", maxNameLength)
	if g := generateName(long); g != long {
		t.Fatalf("generateName of a %d-character name: %d characters", len(long), len(g))
	}
	if g := generateName(long[1:]); g != long[1:]+"-" {
		t.Fatalf("generateName of a %d-character name: %q", len(long)-1, g)
	}
}

// slowStartBatch: batches 1, 2, 4, … capped by what remains; a failing
// batch ends it.
func TestSlowStartBatch(t *testing.T) {
	for _, tc := range []struct {
		count, failAt, wantCalls, wantOK int
	}{
		{0, 0, 0, 0}, {1, 0, 1, 1}, {10, 0, 10, 10}, {10, 1, 1, 0}, {10, 2, 3, 2}, {10, 4, 7, 6}, {10, 8, 10, 9},
	} {
		calls := 0
		var mu = make(chan struct{}, 1)
		ok, err := slowStartBatch(tc.count, 1, func() error {
			mu <- struct{}{}
			calls++
			n := calls
			<-mu
			if n == tc.failAt {
				return errors.New("fail")
			}
			return nil
		})
		if calls != tc.wantCalls || ok != tc.wantOK || (err != nil) != (tc.failAt > 0) {
			t.Errorf("count %d fail at %d: %d calls, %d ok, err %v; want %d calls, %d ok", tc.count, tc.failAt, calls, ok, err, tc.wantCalls, tc.wantOK)
		}
	}
}
