//go:build !nocluster

package difftest

import (
	"context"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/kcmlab/kcm/ctrl"
	"github.com/kcmlab/kcm/ctrl/serviceaccount"
)

// serviceAccountAllowances are the deliberate differences between kcm's
// serviceaccount controller and kube-controller-manager's. None today:
// every ServiceAccount either leaves is equal after normalisation.
var serviceAccountAllowances []Allowance

// TestServiceAccountMatchesKCM runs the ServiceAccount scenario under
// kcm's serviceaccount controller and under kube-controller-manager's,
// each on a fresh cluster, and requires the same ServiceAccounts in every
// namespace (the ones kube-apiserver creates at start-up, the scenario's,
// and the re-created one).
func TestServiceAccountMatchesKCM(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	sc := ServiceAccountScenario()
	kcm := &InProcess{Descriptors: func() []*ctrl.ControllerDescriptor {
		return []*ctrl.ControllerDescriptor{serviceaccount.Descriptor()}
	}}
	ref := &KubeControllerManager{Controllers: []string{kcmServiceAccount}}
	ra := record(ctx, t, kcm, sc)
	rb := record(ctx, t, ref, sc)
	// The comparison must have something to compare: the accounts of the
	// scenario's namespaces and of the namespaces kube-apiserver makes.
	for _, key := range []string{"ServiceAccount difftest-sa-2/default", "ServiceAccount kube-system/default"} {
		for side, r := range map[string]*Recording{"kcm": ra[sc.Name], "kube-controller-manager": rb[sc.Name]} {
			if _, ok := r.Objects[key]; !ok {
				t.Errorf("%s recorded no %s; recorded: %s", side, key, strings.Join(r.Objects.Keys(), ", "))
			}
		}
	}
	compare(t, kcm, ref, ra, rb, serviceAccountAllowances, sc)
}

// TestKCMAgreesWithItself runs the scale, rolling-update and Recreate scenarios
// twice under kube-controller-manager and requires no difference: this is
// what shows that the normaliser removes only what varies between runs
// and that the timeline comparison does not depend on timing. It then
// tampers with one recording and requires the difference to be reported,
// so that the comparison can fail.
func TestKCMAgreesWithItself(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 4*time.Minute)
	defer cancel()
	scenarios := []Scenario{ScaleScenario(), RollingUpdateScenario(), RecreateScenario()}
	a := &KubeControllerManager{Controllers: []string{kcmDeployment, kcmReplicaSet, kcmServiceAccount}}
	b := &KubeControllerManager{Controllers: a.Controllers}
	ra := record(ctx, t, a, scenarios...)
	rb := record(ctx, t, b, scenarios...)
	compare(t, a, b, ra, rb, nil, scenarios...)

	roll := ra["rolling-update"]
	t.Logf("rolling update, ReplicaSet spec steps:\n%s", renderSpecs(roll.Timeline))
	t.Logf("rolling update, pod steps:\n%s", renderPods(roll.Timeline))
	t.Logf("scale, ReplicaSet spec steps:\n%s", renderSpecs(ra["scale"].Timeline))
	t.Logf("recreate, pod steps:\n%s", renderPods(ra["recreate"].Timeline))
	if n := countPhase(roll.Timeline, "rollout"); n < 4 {
		t.Errorf("the rollout has %d spec steps; a rollout of 4 with maxSurge 1 takes more", n)
	}

	// Negative checks: each tampering must be reported.
	sc := RollingUpdateScenario()
	tampered := *rb["rolling-update"]
	tampered.Timeline.Specs = append([]Step(nil), tampered.Timeline.Specs...)
	last := &tampered.Timeline.Specs[len(tampered.Timeline.Specs)-1]
	last.State += "0"
	if d := Compare(sc, roll, &tampered, nil); len(d) == 0 {
		t.Error("a changed spec step was not reported")
	}
	tampered = *rb["rolling-update"]
	tampered.Objects = Snapshot{}
	for k, v := range rb["rolling-update"].Objects {
		tampered.Objects[k] = strings.Replace(v, "availableReplicas: 4", "availableReplicas: 3", 1)
	}
	if d := Compare(sc, roll, &tampered, nil); len(d) == 0 {
		t.Error("a changed object was not reported")
	}
}

func renderSpecs(tl Timeline) string {
	var sb strings.Builder
	for i, s := range tl.Specs {
		sb.WriteString("  " + itoa(i+1) + " [" + s.Phase + "] " + s.State + "\n")
	}
	return sb.String()
}

func renderPods(tl Timeline) string {
	var sb strings.Builder
	for i, s := range tl.Pods {
		sb.WriteString("  " + itoa(i+1) + " [" + s.Phase + "] " + s.String() + "\n")
	}
	return sb.String()
}

func countPhase(tl Timeline, phase string) int {
	n := 0
	for _, s := range tl.Specs {
		if s.Phase == phase {
			n++
		}
	}
	return n
}

func itoa(i int) string { return strconv.Itoa(i) }
