package replicaset

import (
	"encoding/json"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/kcmlab/kcm/internal/testing/resttest"
	"github.com/kcmlab/kcm/kube/api"
	"github.com/kcmlab/kcm/kube/api/decode"
	"github.com/kcmlab/kcm/kube/rest"
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
			st := calculateStatus(&r, tc.active, 0, tc.err, t0)
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
		"terminating set": func(s *api.ReplicaSetStatus) {
			zero := int32(0)
			s.TerminatingReplicas = &zero
		},
	} {
		st := rs.Status
		change(&st)
		if statusUnchanged(rs, st) {
			t.Errorf("%s change not seen", name)
		}
	}
	one, two := int32(1), int32(1)
	rs.Status.TerminatingReplicas, same.TerminatingReplicas = &one, &two
	if !statusUnchanged(rs, same) {
		t.Error("equal terminatingReplicas (distinct pointers) reported changed")
	}
	two = 2
	if statusUnchanged(rs, same) {
		t.Error("terminatingReplicas 1 -> 2 not seen")
	}
	two = 1
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
	nullSpec, err := decode.Typed[api.ReplicaSet]().Decode([]byte(`{"metadata":{"name":"web"},"spec":{"template":{"metadata":{"labels":{"a":"b"}},"spec":null}}}`))
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

// Status (Kubernetes' calculateStatus): fullyLabeled counts pods with all
// the template's labels; available needs minReadySeconds of readiness;
// the sync asks to run again when the next pod becomes available.
func TestSyncStatusAndAvailabilityRequeue(t *testing.T) {
	f := newFixture(t)
	rs := newRS("web", 4, "")
	rs.Spec.MinReadySeconds = 30
	rs.Generation = 3
	f.rss = []*api.ReplicaSet{rs}
	f.pods = []*api.Pod{
		newPod("long-ready", ownedBy(rs), ready(t0.Add(-time.Minute))),
		newPod("just-ready", ownedBy(rs), ready(t0.Add(-20*time.Second))),
		newPod("newly-ready", ownedBy(rs), ready(t0.Add(-5*time.Second))),
		newPod("partly-labelled", ownedBy(rs), withLabels(webLabels)),
	}
	res, err := f.sync(key)
	if err != nil {
		t.Fatal(err)
	}
	st := f.lastStatus()
	want := api.ReplicaSetStatus{Replicas: 4, FullyLabeledReplicas: 3, ReadyReplicas: 3, AvailableReplicas: 1, ObservedGeneration: 3}
	if st.Replicas != want.Replicas || st.FullyLabeledReplicas != want.FullyLabeledReplicas || st.ReadyReplicas != want.ReadyReplicas ||
		st.AvailableReplicas != want.AvailableReplicas || st.ObservedGeneration != want.ObservedGeneration || st.Conditions != nil {
		t.Fatalf("status %+v\nwant %+v", st, want)
	}
	if res.RequeueAfter != 10*time.Second {
		t.Fatalf("requeue after %v, want 10s (just-ready becomes available then)", res.RequeueAfter)
	}
	// At that moment the pod counts as available.
	f.clock.Step(10 * time.Second)
	rs2 := newRS("web", 4, "")
	rs2.Spec.MinReadySeconds, rs2.Generation, rs2.Status = 30, 3, st
	f3 := newFixture(t)
	f3.clock = f.clock
	f3.rss, f3.pods = []*api.ReplicaSet{rs2}, f.pods
	res, err = f3.sync(key)
	if err != nil {
		t.Fatal(err)
	}
	if st := f3.lastStatus(); st.AvailableReplicas != 2 || res.RequeueAfter != 15*time.Second {
		t.Fatalf("available %d requeue %v; want 2 and 15s", st.AvailableReplicas, res.RequeueAfter)
	}
}

// The status is written only when it changed (or the generation was not
// yet observed), and a ReplicaFailure condition is removed by a sync that
// succeeds.
func TestSyncStatusWrites(t *testing.T) {
	f := newFixture(t)
	rs := newRS("web", 1, "")
	zero := int32(0)
	rs.Status = api.ReplicaSetStatus{Replicas: 1, FullyLabeledReplicas: 1, ObservedGeneration: 1, TerminatingReplicas: &zero}
	f.rss = []*api.ReplicaSet{rs}
	f.pods = ownedPods(rs, 1)
	if _, err := f.sync(key); err != nil {
		t.Fatal(err)
	}
	if got := f.take(); len(got) != 0 {
		t.Fatalf("actions %q for an unchanged status", resttest.Lines(got))
	}
	// A status written before terminatingReplicas existed (Kubernetes
	// 1.34, or kcm before it) is written once to add it, as Kubernetes'
	// ptr.Equal comparison does.
	f1 := newFixture(t)
	old := newRS("web", 1, "")
	old.Status = api.ReplicaSetStatus{Replicas: 1, FullyLabeledReplicas: 1, ObservedGeneration: 1}
	f1.rss, f1.pods = []*api.ReplicaSet{old}, ownedPods(old, 1)
	if _, err := f1.sync(key); err != nil {
		t.Fatal(err)
	}
	if st := f1.lastStatus(); st.TerminatingReplicas == nil || *st.TerminatingReplicas != 0 {
		t.Fatalf("status %+v: want terminatingReplicas 0 added", st)
	}

	f2 := newFixture(t)
	rs2 := newRS("web", 1, "")
	rs2.Status = api.ReplicaSetStatus{Replicas: 1, FullyLabeledReplicas: 1, ObservedGeneration: 1,
		Conditions: []api.ReplicaSetCondition{{Type: "Other", Status: api.ConditionTrue}, {Type: api.ReplicaSetReplicaFailure, Status: api.ConditionTrue, Reason: ReasonFailedCreate}}}
	f2.rss = []*api.ReplicaSet{rs2}
	f2.pods = ownedPods(rs2, 1)
	if _, err := f2.sync(key); err != nil {
		t.Fatal(err)
	}
	if st := f2.lastStatus(); len(st.Conditions) != 1 || st.Conditions[0].Type != "Other" {
		t.Fatalf("conditions %+v: ReplicaFailure not removed", st.Conditions)
	}
}

// updateReplicaSetStatus: a failed write is retried once on a fresh read;
// a second failure, or a failed read, fails the sync.
func TestSyncStatusRetry(t *testing.T) {
	conflict := resttest.Failure(409, "Conflict", "the object has been modified")
	statusWrites := resttest.On("update", "replicasets/status")
	for _, tc := range []struct {
		name    string
		fails   resttest.Match
		getFail *rest.Status
		want    []string
		wantErr bool
	}{
		{"first write conflicts", statusWrites.Nth(1), nil,
			[]string{"update replicasets/status ns/web", "get replicasets ns/web", "update replicasets/status ns/web"}, false},
		{"both writes fail", statusWrites, nil,
			[]string{"update replicasets/status ns/web", "get replicasets ns/web", "update replicasets/status ns/web"}, true},
		{"the fresh read fails", statusWrites, &rest.Status{Code: 500, Reason: "InternalError", Message: "x"},
			[]string{"update replicasets/status ns/web", "get replicasets ns/web"}, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			f := newFixture(t)
			rs := newRS("web", 1, "")
			f.rss = []*api.ReplicaSet{rs}
			f.pods = ownedPods(rs, 1)
			fresh := newRS("web", 1, "")
			fresh.ResourceVersion = "8"
			f.getRS = fresh
			f.api.Fail(tc.fails, conflict)
			if tc.getFail != nil {
				f.api.Fail(resttest.On("get", "replicasets"), *tc.getFail)
			}
			_, err := f.sync(key)
			if (err != nil) != tc.wantErr {
				t.Fatalf("err %v", err)
			}
			if !resttest.Expect(t, f.api.Actions(), tc.want...) {
				t.FailNow()
			}
			if !tc.wantErr {
				var sent api.ReplicaSet
				_ = json.Unmarshal(f.body("update replicasets/status ns/web", 1), &sent)
				if sent.ResourceVersion != "8" || sent.Status.Replicas != 1 || sent.Status.ObservedGeneration != 1 {
					t.Fatalf("retry sent rv %s status %+v", sent.ResourceVersion, sent.Status)
				}
			}
		})
	}
}

// terminatingReplicas counts the ReplicaSet's own pods being deleted that
// are not terminal yet (Kubernetes' FilterTerminatingPods and
// FilterClaimedPods): not a terminal one, not another owner's, not one
// whose labels stopped matching, and none is adopted.
func TestSyncCountsTerminatingPods(t *testing.T) {
	f := newFixture(t)
	rs := newRS("web", 1, "")
	other := newRS("other", 1, "")
	other.UID = "other-uid"
	f.rss = []*api.ReplicaSet{rs}
	f.pods = []*api.Pod{
		newPod("running", ownedBy(rs)),
		newPod("deleting-1", ownedBy(rs), deleting()),
		newPod("deleting-2", ownedBy(rs), deleting(), phase(api.PodRunning)),
		newPod("deleting-failed", ownedBy(rs), deleting(), phase(api.PodFailed)),
		newPod("deleting-other-owner", ownedBy(other), deleting()),
		newPod("deleting-orphan", deleting()),
		newPod("deleting-relabelled", ownedBy(rs), deleting(), withLabels(map[string]string{"app": "else"})),
	}
	if _, err := f.sync(key); err != nil {
		t.Fatal(err)
	}
	if st := f.lastStatus(); st.Replicas != 1 || st.TerminatingReplicas == nil || *st.TerminatingReplicas != 2 {
		t.Fatalf("status %+v: want 1 replica, terminatingReplicas 2", st)
	}
	if got := f.count("patch pods"); got != 0 {
		t.Fatalf("%d pod patches: a terminating pod must not be adopted or released", got)
	}
}
