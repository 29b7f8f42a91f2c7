package ctrl

import (
	"errors"
	"fmt"
	"strings"
	"sync"
	"testing"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/testutil"
)

// cacheAt is a ResourceVersionSource whose resourceVersion the test sets.
type cacheAt struct {
	mu sync.Mutex
	rv string
}

func (c *cacheAt) LastStoreSyncResourceVersion() string {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.rv
}

func (c *cacheAt) set(rv string) {
	c.mu.Lock()
	c.rv = rv
	c.mu.Unlock()
}

var (
	podsGR = GroupResource{Resource: "pods"}
	rsGR   = GroupResource{Group: "apps", Resource: "replicasets"}
)

// The rules of Kubernetes' ConsistencyStore, step by step: a write holds
// its owner back while a cache is older; the newest write per resource
// counts; a cache without a resourceVersion, a resource without a cache
// and resourceVersions that cannot be compared never hold back; a ready
// owner's record is dropped.
func TestConsistency(t *testing.T) {
	type step struct {
		do          string // "wrote <owner> <uid> <resource> <rv>", "pods <rv>", "rs <rv>", "clear <owner> <uid>"
		ready       string // owner to check after the step, "" for none
		wantStale   string // the StaleError's "read/wrote/resource", "" for ready
		wantRecords int
	}
	for _, tc := range []struct {
		name  string
		steps []step
	}{
		{"a write holds its owner back until the cache reaches it", []step{
			{do: "pods 100"},
			{do: "wrote ns/a u1 pods 105", ready: "ns/a", wantStale: "100/105/pods", wantRecords: 1},
			{do: "pods 104", ready: "ns/a", wantStale: "104/105/pods", wantRecords: 1},
			{do: "pods 105", ready: "ns/a", wantRecords: 0},
		}},
		{"other owners are not held back", []step{
			{do: "pods 100"},
			{do: "wrote ns/a u1 pods 105", ready: "ns/b", wantRecords: 1},
		}},
		{"the newest write per resource counts", []step{
			{do: "pods 100"},
			{do: "wrote ns/a u1 pods 110"},
			{do: "wrote ns/a u1 pods 105"},
			{do: "pods 108", ready: "ns/a", wantStale: "108/110/pods", wantRecords: 1},
		}},
		{"every resource written must be reached", []step{
			{do: "pods 200"},
			{do: "rs 100"},
			{do: "wrote ns/a u1 pods 150"},
			{do: "wrote ns/a u1 apps/replicasets 160", ready: "ns/a", wantStale: "100/160/replicasets.apps", wantRecords: 1},
			{do: "rs 160", ready: "ns/a", wantRecords: 0},
		}},
		{"a cache without a resourceVersion does not hold back", []step{
			{do: "wrote ns/a u1 pods 105", ready: "ns/a", wantRecords: 0},
		}},
		{"a resource without a cache does not hold back", []step{
			{do: "wrote ns/a u1 apps/deployments 105", ready: "ns/a", wantRecords: 0},
		}},
		{"resourceVersions that cannot be compared do not hold back", []step{
			{do: "pods abc"},
			{do: "wrote ns/a u1 pods 105", ready: "ns/a", wantRecords: 0},
			{do: "pods 100"},
			{do: "wrote ns/a u1 pods x7", ready: "ns/a", wantRecords: 0},
		}},
		{"an uncomparable write replaces the record", []step{
			{do: "pods 100"},
			{do: "wrote ns/a u1 pods x7"},
			{do: "wrote ns/a u1 pods 105", ready: "ns/a", wantStale: "100/105/pods", wantRecords: 1},
		}},
		{"resourceVersions compare by length first", []step{
			{do: "pods 99"},
			{do: "wrote ns/a u1 pods 100", ready: "ns/a", wantStale: "99/100/pods", wantRecords: 1},
			{do: "pods 1000", ready: "ns/a", wantRecords: 0},
		}},
		{"a write of another UID starts the owner afresh", []step{
			{do: "pods 100"},
			{do: "wrote ns/a u1 pods 110"},
			{do: "wrote ns/a u2 pods 101", ready: "ns/a", wantStale: "100/101/pods", wantRecords: 1},
			{do: "pods 101", ready: "ns/a", wantRecords: 0},
		}},
		{"clear with another UID keeps the record, with none drops it", []step{
			{do: "pods 100"},
			{do: "wrote ns/a u1 pods 110"},
			{do: "clear ns/a u2", ready: "ns/a", wantStale: "100/110/pods", wantRecords: 1},
			{do: "clear ns/a u1", ready: "ns/a", wantRecords: 0},
			{do: "wrote ns/a u1 pods 110"},
			{do: "clear ns/a -", ready: "ns/a", wantRecords: 0},
		}},
		{"an empty resourceVersion records nothing", []step{
			{do: "pods 100"},
			{do: "wrote ns/a u1 pods -", ready: "ns/a", wantRecords: 0},
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			pods, rss := &cacheAt{}, &cacheAt{}
			c := NewConsistency(map[GroupResource]ResourceVersionSource{podsGR: pods, rsGR: rss}, nil)
			for i, s := range tc.steps {
				f := strings.Fields(s.do)
				dash := func(s string) string { return strings.TrimPrefix(s, "-") }
				switch f[0] {
				case "pods":
					pods.set(f[1])
				case "rs":
					rss.set(f[1])
				case "wrote":
					gr := GroupResource{Resource: f[3]}
					if g, r, ok := strings.Cut(f[3], "/"); ok {
						gr = GroupResource{Group: g, Resource: r}
					}
					c.WroteAt(f[1], f[2], gr, dash(f[4]))
				case "clear":
					c.Clear(f[1], dash(f[2]))
				}
				if s.ready != "" {
					err := c.EnsureReady(s.ready)
					got := ""
					var se *StaleError
					if errors.As(err, &se) {
						got = fmt.Sprintf("%s/%s/%s", se.ReadRV, se.WroteRV, se.GroupResource)
						if !errors.Is(err, ErrStale) {
							t.Errorf("step %d: %v does not wrap ErrStale", i, err)
						}
					} else if err != nil {
						t.Fatalf("step %d: EnsureReady = %v", i, err)
					}
					if got != s.wantStale {
						t.Fatalf("step %d (%s): EnsureReady = %q, want %q", i, s.do, got, s.wantStale)
					}
				}
				c.mu.RLock()
				n := len(c.owners)
				c.mu.RUnlock()
				if s.ready != "" && n != s.wantRecords {
					t.Fatalf("step %d (%s): %d owners recorded, want %d", i, s.do, n, s.wantRecords)
				}
			}
		})
	}
}

// A nil *Consistency (the feature off) records nothing and is always
// ready.
func TestConsistencyNil(t *testing.T) {
	var c *Consistency
	c.WroteAt("ns/a", "u", podsGR, "5")
	c.Clear("ns/a", "")
	if err := c.EnsureReady("ns/a"); err != nil {
		t.Fatal(err)
	}
}

// The error reads as Kubernetes' ConsistencyError.
func TestStaleErrorMessage(t *testing.T) {
	err := &StaleError{ReadRV: "10", WroteRV: "12", GroupResource: rsGR}
	if want := "read version: 10 is not as new as written version: 12 for group resource replicasets.apps"; err.Error() != want {
		t.Fatalf("%q, want %q", err.Error(), want)
	}
}

// <subsystem>_stale_sync_skips_total counts each skipped sync by the
// resource whose cache was behind, with kube-controller-manager's name,
// help and labels; asking twice on one registry shares the family.
func TestStaleSyncSkipsMetric(t *testing.T) {
	reg := prometheus.NewRegistry()
	m, err := NewMetrics(reg)
	if err != nil {
		t.Fatal(err)
	}
	skips, err := m.StaleSyncSkips("replicaset_controller", "ReplicaSet")
	if err != nil {
		t.Fatal(err)
	}
	if again, err := m.StaleSyncSkips("replicaset_controller", "ReplicaSet"); err != nil || again.vec != skips.vec {
		t.Fatalf("second StaleSyncSkips: %v, %v; want the same family", again, err)
	}
	pods, rss := &cacheAt{rv: "100"}, &cacheAt{rv: "50"}
	c := NewConsistency(map[GroupResource]ResourceVersionSource{podsGR: pods, rsGR: rss}, skips)
	c.WroteAt("ns/a", "u", podsGR, "101")
	c.WroteAt("ns/b", "u", rsGR, "60")
	for range 2 {
		_ = c.EnsureReady("ns/a")
	}
	_ = c.EnsureReady("ns/b")
	_ = c.EnsureReady("ns/c")
	want := `# HELP replicaset_controller_stale_sync_skips_total Total number of ReplicaSet syncs skipped due to a stale watch cache.
# TYPE replicaset_controller_stale_sync_skips_total counter
replicaset_controller_stale_sync_skips_total{group="",resource="pods"} 2
replicaset_controller_stale_sync_skips_total{group="apps",resource="replicasets"} 1
`
	if err := testutil.GatherAndCompare(reg, strings.NewReader(want), "replicaset_controller_stale_sync_skips_total"); err != nil {
		t.Fatal(err)
	}
	var none *Metrics
	if s, err := none.StaleSyncSkips("x", "X"); s != nil || err != nil {
		t.Fatalf("nil Metrics gave %v, %v", s, err)
	}
	var nilSkips *StaleSkips
	nilSkips.inc(podsGR) // counts nothing, does not panic
}

// Owners are recorded, checked and cleared from many goroutines at once
// (one goroutine per owner, as the loop syncs one key at a time).
func TestConsistencyConcurrentOwners(t *testing.T) {
	pods := &cacheAt{rv: "1"}
	c := NewConsistency(map[GroupResource]ResourceVersionSource{podsGR: pods}, nil)
	var wg sync.WaitGroup
	for g := range 8 {
		wg.Go(func() {
			owner := fmt.Sprintf("ns/o%d", g)
			for i := 2; i < 300; i++ {
				c.WroteAt(owner, "u", podsGR, fmt.Sprint(i))
				if err := c.EnsureReady(owner); !errors.Is(err, ErrStale) {
					t.Errorf("%s: EnsureReady = %v, want stale", owner, err)
					return
				}
				if i%50 == 0 {
					c.Clear(owner, "u")
				}
			}
		})
	}
	wg.Wait()
	pods.set("1000")
	for g := range 8 {
		if err := c.EnsureReady(fmt.Sprintf("ns/o%d", g)); err != nil {
			t.Fatal(err)
		}
	}
	if len(c.owners) != 0 {
		t.Fatalf("%d owners left after all were ready", len(c.owners))
	}
}
