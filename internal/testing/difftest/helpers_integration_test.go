//go:build !nocluster

package difftest

import (
	"context"
	"sort"
	"sync"
	"testing"
	"time"

	"github.com/rs/zerolog"

	"github.com/kcmlab/kcm/ctrl"
	"github.com/kcmlab/kcm/ctrl/deployment"
	"github.com/kcmlab/kcm/ctrl/replicaset"
	"github.com/kcmlab/kcm/ctrl/serviceaccount"
	"github.com/kcmlab/kcm/testenv"
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
	logWrites(t, m, recs)
	return recs
}

// logWrites logs each scenario's writes by ServiceAccount, which the
// audit check (RunScenarios) has found all made as the right identity.
func logWrites(t *testing.T, m Manager, recs map[string]*Recording) {
	t.Helper()
	names := make([]string, 0, len(recs))
	for name := range recs {
		names = append(names, name)
	}
	sort.Strings(names)
	for _, name := range names {
		if w := recs[name].Writes; w != nil {
			t.Logf("%s: %s: writes by account: %s", m.Name(), name, WritesText(w))
		}
	}
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

// audited wraps the stop of a manager started directly on c (not through
// RunScenarios): stopping it then checks every write of its clients in
// c's audit log (AuditWrites), failing the test for each made as the wrong
// identity, and logs its writes in ns by account. Later calls return the
// first one's answer.
func audited(t *testing.T, c *testenv.Cluster, m Manager, stop func() error, ns string) func() error {
	t.Helper()
	var once sync.Once
	var err error
	return func() error {
		once.Do(func() {
			err = stop()
			writes, aerr := AuditWrites(c, m, ns)
			if aerr != nil {
				t.Error(aerr)
				return
			}
			t.Logf("%s: writes in %s by account: %s", m.Name(), ns, WritesText(writes[ns]))
		})
		return err
	}
}
