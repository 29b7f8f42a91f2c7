package namespace

import (
	"errors"
	"testing"
	"time"

	"github.com/kcmlab/kcm/kube/api"
	"github.com/kcmlab/kcm/kube/rest"
)

// TestConditionUpdater follows Kubernetes' status_condition_utils_test:
// the five conditions appear in order, a failure replaces the False
// state, lastTransitionTime moves only when the status flips, other
// conditions are kept, and an unchanged pass reports no change (no write).
func TestConditionUpdater(t *testing.T) {
	t1 := t0.Add(time.Minute)
	other := api.NamespaceCondition{Type: "SomethingElse", Status: api.ConditionTrue, Reason: "Mine"}
	st := api.NamespaceStatus{Conditions: []api.NamespaceCondition{other}}

	u := newConditionUpdater(t0)
	u.contentTotals(remaining{byResource: map[rest.Resource]int{rest.ConfigMaps: 2}, byFinalizer: map[string]int{"f": 2}})
	if !u.apply(&st) {
		t.Fatal("first pass reported no change")
	}
	if len(st.Conditions) != 6 || st.Conditions[0] != other {
		t.Fatalf("conditions %+v: want the other condition kept first, then the five", st.Conditions)
	}
	rem := find(st.Conditions, ConditionContentRemaining)
	if rem.Status != api.ConditionTrue || rem.Message != "Some resources are remaining: configmaps. has 2 resource instances" {
		t.Fatalf("remaining %+v", rem)
	}

	// Same state again: nothing to write.
	u = newConditionUpdater(t1)
	u.contentTotals(remaining{byResource: map[rest.Resource]int{rest.ConfigMaps: 2}, byFinalizer: map[string]int{"f": 2}})
	if u.apply(&st) {
		t.Error("an unchanged pass reported a change")
	}

	// One left: message changes, status does not, time stays.
	u = newConditionUpdater(t1)
	u.contentTotals(remaining{byResource: map[rest.Resource]int{rest.ConfigMaps: 1}, byFinalizer: map[string]int{"f": 1}})
	if !u.apply(&st) {
		t.Fatal("a changed message reported no change")
	}
	rem = find(st.Conditions, ConditionContentRemaining)
	if rem.Message != "Some resources are remaining: configmaps. has 1 resource instances" || !rem.LastTransitionTime.Equal(t0) {
		t.Errorf("remaining %+v: want the new count at the old time", rem)
	}

	// All gone: the status flips, the time moves.
	u = newConditionUpdater(t1)
	if !u.apply(&st) {
		t.Fatal("the flip reported no change")
	}
	rem = find(st.Conditions, ConditionContentRemaining)
	if rem.Status != api.ConditionFalse || rem.Reason != "ContentRemoved" || !rem.LastTransitionTime.Equal(t1) {
		t.Errorf("remaining %+v: want False ContentRemoved at t1", rem)
	}
	if d := find(st.Conditions, ConditionDiscoveryFailure); !d.LastTransitionTime.Equal(t0) {
		t.Errorf("an untouched False condition's time moved: %+v", d)
	}
}

// TestErrorMessage: a condition shows the apiserver's message of a
// refusal (as client-go's StatusError prints it), else the error's text.
func TestErrorMessage(t *testing.T) {
	se := rest.StatusErrorFrom("DELETE", "/api/v1/namespaces/ns/secrets", forbidden("deletecollection", "secrets"))
	if got := errorMessage(se); got != forbidden("deletecollection", "secrets").Message {
		t.Errorf("status error: %q", got)
	}
	wrapped := errors.Join(errors.New("context"), se)
	if got := errorMessage(wrapped); got != se.Status.Message {
		t.Errorf("wrapped: %q", got)
	}
	noMsg := rest.StatusErrorFrom("GET", "/x", rest.Status{Code: 500})
	if got := errorMessage(noMsg); got != noMsg.Error() {
		t.Errorf("no message: %q", got)
	}
	if got := errorMessage(errors.New("plain")); got != "plain" {
		t.Errorf("plain: %q", got)
	}
}

// TestTargets: namespaced types with delete, once each, pods first, the
// rest ordered; verbs tell list and deletecollection apart.
func TestTargets(t *testing.T) {
	dup := configMaps
	ts, err := targets([]rest.APIResource{widgets, configMaps, nodes, bindings, blind, podsRes, dup})
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, tg := range ts {
		got = append(got, tg.res.String())
	}
	want := []string{"pods.v1", "configmaps.v1", "blinds.v1.example.com", "widgets.v1.example.com"}
	if len(got) != len(want) {
		t.Fatalf("targets %q, want %q", got, want)
	}
	for i := range want {
		if got[i] != want[i] {
			t.Fatalf("targets %q, want %q", got, want)
		}
	}
	if !ts[2].deleteCollection || ts[2].list || ts[3].deleteCollection || !ts[3].list {
		t.Errorf("verbs: blinds %+v widgets %+v", ts[2], ts[3])
	}
	for _, gv := range []string{"", "/", "v1", "apps/v1"} {
		if err := parseGroupVersion(gv); err != nil {
			t.Errorf("%q: %v", gv, err)
		}
	}
	if err := parseGroupVersion("a/b/c"); !errors.Is(err, ErrGroupVersion) || err.Error() != "unexpected GroupVersion string: a/b/c" {
		t.Errorf("a/b/c: %v", err)
	}
	if s := gvrString(rest.ReplicaSets); s != "apps/v1, Resource=replicasets" {
		t.Errorf("gvrString %q", s)
	}
}
