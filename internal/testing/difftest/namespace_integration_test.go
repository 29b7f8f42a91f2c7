//go:build !nocluster

package difftest

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/kcmlab/kcm/ctrl"
	"github.com/kcmlab/kcm/ctrl/namespace"
	"github.com/kcmlab/kcm/ctrl/serviceaccount"
)

// kcmNamespace is kube-controller-manager v1.37's name of the namespace
// controller.
const kcmNamespace = "namespace-controller"

// namespaceAllowances are the deliberate differences between kcm's
// namespace controller and kube-controller-manager's in the namespace
// scenario. None: the states and the namespaces left compare equal.
var namespaceAllowances []Allowance

// TestNamespaceMatchesKCM runs the namespace scenario under kcm's
// namespace and serviceaccount controllers and under
// kube-controller-manager's, each on a fresh cluster, and requires the
// same sequence of states of the deleted namespace — phase,
// spec.finalizers and the five conditions with their reasons and
// messages, while a custom resource's finalizer holds content and after —
// and the same namespaces at the end.
func TestNamespaceMatchesKCM(t *testing.T) {
	sc := NamespaceScenario()
	kcm, ref, ra, rb := recordNamespaceScenario(t, 4*time.Minute, sc)
	for side, r := range map[string]*Recording{"kcm": ra[sc.Name], "kube-controller-manager": rb[sc.Name]} {
		// The comparison must have something to compare: the content
		// held by the finalizer, shown in the conditions, then gone.
		all := loggedStates(t, side, r)
		for _, want := range []string{
			`NamespaceContentRemaining=True SomeResourcesRemain "Some resources are remaining: widgets.difftest.example.com has 1 resource instances"`,
			`NamespaceFinalizersRemaining=True SomeFinalizersRemain "Some content in the namespace has finalizers remaining: difftest.example.com/hold in 1 resource instances"`,
			`NamespaceContentRemaining=False ContentRemoved "All content successfully removed"`,
			"[finalizer removed] gone",
		} {
			if !strings.Contains(all, want) {
				t.Errorf("%s: no state with %s", side, want)
			}
		}
		if _, ok := r.Objects["Namespace "+victimNamespace]; ok {
			t.Errorf("%s: the deleted namespace is still listed", side)
		}
		if _, ok := r.Objects["Namespace kube-system"]; !ok {
			t.Errorf("%s recorded no Namespace kube-system; recorded: %s", side, strings.Join(r.Objects.Keys(), ", "))
		}
	}
	compare(t, kcm, ref, ra, rb, namespaceAllowances, sc)
}

// TestNamespaceDiscoveryFailureMatchesKCM runs the discovery-failure
// scenario under both managers: an aggregated API whose Service does not
// exist keeps a deleted namespace Terminating with
// NamespaceDeletionDiscoveryFailure (its message naming the failed group
// version, whose own error text differs deliberately: see
// GroupErrorPlaceholder) until the APIService is deleted.
func TestNamespaceDiscoveryFailureMatchesKCM(t *testing.T) {
	sc := NamespaceDiscoveryScenario()
	kcm, ref, ra, rb := recordNamespaceScenario(t, 6*time.Minute, sc)
	for side, r := range map[string]*Recording{"kcm": ra[sc.Name], "kube-controller-manager": rb[sc.Name]} {
		all := loggedStates(t, side, r)
		want := `NamespaceDeletionDiscoveryFailure=True DiscoveryFailed "Discovery failed for some groups, 1 failing: ` +
			`unable to retrieve the complete list of server APIs: ` + brokenGroup + `/v1: ` + GroupErrorPlaceholder + `"`
		if !strings.Contains(all, want) || !strings.Contains(all, "[APIService deleted] gone") {
			t.Errorf("%s: no state with %s, or the namespace never went", side, want)
		}
	}
	compare(t, kcm, ref, ra, rb, namespaceAllowances, sc)
}

// recordNamespaceScenario records sc under kcm's namespace and
// serviceaccount controllers and under kube-controller-manager's, each on
// a fresh cluster, within d.
func recordNamespaceScenario(t *testing.T, d time.Duration, sc Scenario) (kcm *InProcess, ref *KubeControllerManager, ra, rb map[string]*Recording) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), d)
	defer cancel()
	kcm = &InProcess{Descriptors: func() []*ctrl.ControllerDescriptor {
		return []*ctrl.ControllerDescriptor{namespace.Descriptor(), serviceaccount.Descriptor()}
	}}
	ref = &KubeControllerManager{Controllers: []string{kcmNamespace, kcmServiceAccount}}
	return kcm, ref, record(ctx, t, kcm, sc), record(ctx, t, ref, sc)
}

// loggedStates logs one side's recorded namespace states and returns them,
// one per line, for the assertions.
func loggedStates(t *testing.T, side string, r *Recording) string {
	t.Helper()
	var states []string
	for _, s := range r.Timeline.States {
		states = append(states, "["+s.Phase+"] "+s.State)
	}
	t.Logf("%s, namespace states:\n  %s", side, strings.Join(states, "\n  "))
	return strings.Join(states, "\n")
}
