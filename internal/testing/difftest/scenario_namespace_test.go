package difftest

import (
	"testing"
	"time"

	"github.com/kcmlab/kcm/kube/api"
)

// TestNormalizeGroupError: both managers' texts for the broken group
// version become the placeholder; everything else stays.
func TestNormalizeGroupError(t *testing.T) {
	prefix := `x; NamespaceDeletionDiscoveryFailure=True DiscoveryFailed "Discovery failed for some groups, 1 failing: ` +
		`unable to retrieve the complete list of server APIs: broken.difftest.example.com/v1: `
	want := prefix + GroupErrorPlaceholder + `"; NamespaceContentRemaining=False`
	for _, text := range []string{"service unavailable", "stale GroupVersion discovery: broken.difftest.example.com/v1"} {
		if got := normalizeGroupError(prefix + text + `"; NamespaceContentRemaining=False`); got != want {
			t.Errorf("%q:\n got %s\nwant %s", text, got, want)
		}
	}
	for _, s := range []string{"phase=Active", "broken.difftest.example.com/v1: no closing quote"} {
		if got := normalizeGroupError(s); got != s {
			t.Errorf("%q changed to %q", s, got)
		}
	}
}

// TestNamespaceState: phase, finalizers, deletion and each condition in
// order, without times; a deleted namespace is "gone".
func TestNamespaceState(t *testing.T) {
	dt := api.NewTime(time.Unix(0, 0))
	ns := &api.Namespace{ObjectMeta: api.ObjectMeta{DeletionTimestamp: &dt},
		Spec: api.NamespaceSpec{Finalizers: []string{"kubernetes"}},
		Status: api.NamespaceStatus{Phase: api.NamespaceTerminating, Conditions: []api.NamespaceCondition{
			{Type: "B", Status: api.ConditionTrue, Reason: "R", Message: "m", LastTransitionTime: dt},
			{Type: "A", Status: api.ConditionFalse, Reason: "S", Message: "n"}}}}
	want := `phase=Terminating finalizers=[kubernetes] deleting=true; B=True R "m"; A=False S "n"`
	if got := namespaceState(ns); got != want {
		t.Errorf("got %s\nwant %s", got, want)
	}
	if got := namespaceState(nil); got != "gone" {
		t.Errorf("nil: %s", got)
	}
	if c := namespaceCondition(ns, "A"); c == nil || c.Reason != "S" {
		t.Errorf("condition A: %+v", c)
	}
	if namespaceCondition(nil, "A") != nil || namespaceCondition(ns, "C") != nil {
		t.Error("a missing condition was found")
	}
}
