package hintdiff_test

import (
	"flag"
	"testing"

	"go.uber.org/goleak"

	"github.com/kcmlab/kcm/bench/hintdiff"
)

// The number of random cases, the first seed, and how often Kubernetes'
// AddHints runs per case to see whether its result depends on map order:
// `go test ./hintdiff -hintdiff.n 20000` is the long run.
var (
	samples = flag.Int("hintdiff.n", 1000, "random cases per test")
	seed    = flag.Int64("hintdiff.seed", 1, "first seed of the generator")
	runs    = flag.Int("hintdiff.runs", 30, "runs of Kubernetes' AddHints per case")
)

func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

// TestReconcileHintsMatchesKubernetes: trafficDistribution hints
// (KEP-4444, KEP-3015) as k8s.io/endpointslice@v0.37.2 trafficdist sets
// them, for every value, on random slices.
func TestReconcileHintsMatchesKubernetes(t *testing.T) {
	for s := *seed; s < *seed+int64(*samples); s++ {
		c := hintdiff.Generate(s)
		for _, td := range hintdiff.TrafficDistributions {
			if err := hintdiff.CheckReconcileHints(c, td); err != nil {
				t.Fatalf("seed %d: %v", s, err)
			}
		}
	}
}

// TestAddHintsMatchesKubernetes: the topology cache (KEP-2433,
// topology-mode: Auto) as k8s.io/endpointslice@v0.37.2 topologycache
// computes it, on random nodes and slices.
func TestAddHintsMatchesKubernetes(t *testing.T) {
	for s := *seed; s < *seed+int64(*samples); s++ {
		if err := hintdiff.CheckAddHints(hintdiff.Generate(s), *runs); err != nil {
			t.Fatalf("seed %d: %v", s, err)
		}
	}
}
