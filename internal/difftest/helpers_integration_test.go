//go:build !nocluster

package difftest

import (
	"context"
	"testing"
	"time"

	"github.com/rs/zerolog"
)

// The controllers of kube-controller-manager that the comparisons run,
// by their canonical v1.34 names.
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
		if diffs := Compare(sc, ra[sc.Name], rb[sc.Name], allow); len(diffs) > 0 {
			t.Errorf("scenario %s: %s", sc.Name, Report(a.Name(), b.Name(), diffs))
		}
	}
}
