//go:build !nocluster

package difftest

import (
	"context"
	"testing"
	"time"

	"github.com/rs/zerolog"

	"github.com/kcmlab/kcm/ctrl"
	"github.com/kcmlab/kcm/ctrl/deployment"
	"github.com/kcmlab/kcm/ctrl/replicaset"
	"github.com/kcmlab/kcm/ctrl/serviceaccount"
)

// The controllers of kube-controller-manager that the comparisons run,
// by their canonical v1.37 names.
const (
	kcmServiceAccount = "serviceaccount-controller"
	kcmReplicaSet     = "replicaset-controller"
	kcmDeployment     = "deployment-controller"
)

// record runs the scenarios under m on a fresh cluster of its own and
// fails the test if any of them fails.
func record(ctx context.Context, t *testing.T, m Manager, scenarios ...Scenario) map[string]*Recording {
	t.Helper()
	began := time.Now()
	recs, err := RunOnFreshCluster(ctx, m, zerolog.Nop(), scenarios...)
	if err != nil {
		t.Fatalf("%s: %v", m.Name(), err)
	}
	t.Logf("%s: %d scenario(s) recorded in %s", m.Name(), len(scenarios), time.Since(began).Round(time.Millisecond))
	return recs
}

// compare fails the test with a readable report for every difference
// between the two sides' recordings of each scenario.
func compare(t *testing.T, a, b Manager, ra, rb map[string]*Recording, allow []Allowance, scenarios ...Scenario) {
	t.Helper()
	for _, sc := range scenarios {
		t.Run(sc.Name, func(t *testing.T) {
			if diffs := Compare(sc, ra[sc.Name], rb[sc.Name], allow); len(diffs) > 0 {
				t.Error(Report(a.Name(), b.Name(), diffs))
			}
		})
	}
}

// kcmControllers is the controller set of the kcm side of the workload
// comparisons (workloads_integration_test.go): the same three controllers
// the kube-controller-manager side runs.
func kcmControllers() []*ctrl.ControllerDescriptor {
	return []*ctrl.ControllerDescriptor{serviceaccount.Descriptor(), replicaset.Descriptor(), deployment.Descriptor()}
}
