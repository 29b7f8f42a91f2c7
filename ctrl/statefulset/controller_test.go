package statefulset

import (
	"context"
	"slices"
	"strings"
	"testing"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/testutil"
	"github.com/rs/zerolog"

	"github.com/kcmlab/kcm/ctrl"
	"github.com/kcmlab/kcm/kube/rest"
)

// Descriptor is kube-controller-manager's row: name
// "statefulset-controller", alias "statefulset", on by default,
// --concurrent-statefulset-syncs 5 with its usage text, refused below 1
// (StatefulSetControllerOptions.Validate: "must be greater than 0").
func TestDescriptor(t *testing.T) {
	d := Descriptor()
	if d.Name != "statefulset-controller" || !slices.Equal(d.Aliases, []string{"statefulset"}) || d.DisabledByDefault {
		t.Errorf("descriptor %q %q disabled=%v", d.Name, d.Aliases, d.DisabledByDefault)
	}
	f := d.Concurrency
	if f == nil || f.Name != "concurrent-statefulset-syncs" || f.Default != 5 || f.Min != 1 || f.Max != 0 {
		t.Fatalf("concurrency flag %+v", f)
	}
	if want := "The number of statefulset objects that are allowed to sync concurrently. Larger number = more responsive statefulsets, but more CPU (and network) load"; f.Usage != want {
		t.Errorf("usage %q, want kube-controller-manager's %q", f.Usage, want)
	}
	if d.Constructor == nil || len(d.Flags) != 0 {
		t.Errorf("constructor %v, flags %v", d.Constructor != nil, d.Flags)
	}
}

// New on a context with a registry: the loop waits for its set and pod
// handlers and for the claim and revision caches, and the registry holds
// kube-controller-manager's statefulset_controller_* families once a
// series is set (a Vec without series is not gathered).
func TestNewRegistersTheMetrics(t *testing.T) {
	client, err := rest.NewClient(&rest.Config{Host: "https://127.0.0.1:1"})
	if err != nil {
		t.Fatal(err)
	}
	reg := prometheus.NewRegistry()
	cc, err := ctrl.CreateControllerContext(client, ctrl.Config{Logger: zerolog.Nop(), Registerer: reg})
	if err != nil {
		t.Fatal(err)
	}
	c, err := New(context.Background(), cc, Name)
	if err != nil {
		t.Fatal(err)
	}
	loop := c.(*ctrl.Loop)
	defer loop.Queue().ShutDown()
	if got, want := loop.WaitsFor(), []string{"statefulsets.apps/statefulset-controller", "pods/statefulset-controller",
		"persistentvolumeclaims", "controllerrevisions.apps"}; !slices.Equal(got, want) {
		t.Errorf("waits for %q, want %q", got, want)
	}
	m, err := NewMetrics(reg) // the same families, already registered by New
	if err != nil {
		t.Fatal(err)
	}
	m.SetMaxUnavailable("ns", "web", "OrderedReady", 1)
	m.SetUnavailableReplicas("ns", "web", "OrderedReady", 2)
	skips, err := cc.Metrics.StaleSyncSkips("statefulset_controller", "StatefulSet")
	if err != nil {
		t.Fatal(err)
	}
	skips2 := ctrl.NewConsistency(map[ctrl.GroupResource]ctrl.ResourceVersionSource{podsResource: rvSource("1")}, skips)
	skips2.WroteAt("ns/web", "u", podsResource, "2")
	_ = skips2.EnsureReady("ns/web")
	want := `
# HELP statefulset_controller_stale_sync_skips_total Total number of StatefulSet syncs skipped due to a stale watch cache.
# TYPE statefulset_controller_stale_sync_skips_total counter
statefulset_controller_stale_sync_skips_total{group="",resource="pods"} 1
# HELP statefulset_controller_statefulset_max_unavailable [ALPHA] Maximum number of unavailable pods allowed during StatefulSet rolling updates
# TYPE statefulset_controller_statefulset_max_unavailable gauge
statefulset_controller_statefulset_max_unavailable{pod_management_policy="OrderedReady",statefulset_name="web",statefulset_namespace="ns"} 1
# HELP statefulset_controller_statefulset_unavailable_replicas [ALPHA] Current number of unavailable pods in StatefulSet
# TYPE statefulset_controller_statefulset_unavailable_replicas gauge
statefulset_controller_statefulset_unavailable_replicas{pod_management_policy="OrderedReady",statefulset_name="web",statefulset_namespace="ns"} 2
`
	if err := testutil.GatherAndCompare(reg, strings.NewReader(want), "statefulset_controller_stale_sync_skips_total",
		"statefulset_controller_statefulset_max_unavailable", "statefulset_controller_statefulset_unavailable_replicas"); err != nil {
		t.Error(err)
	}
}

// rvSource is a cache at a fixed resourceVersion.
type rvSource string

func (s rvSource) LastStoreSyncResourceVersion() string { return string(s) }

// A nil *Metrics records nothing and does not panic (a controller built
// without a registry).
func TestNilMetrics(t *testing.T) {
	var m *Metrics
	m.SetMaxUnavailable("ns", "web", "Parallel", 1)
	m.SetUnavailableReplicas("ns", "web", "Parallel", 1)
	m.Forget("ns", "web")
	if _, err := NewMetrics(nil); err == nil {
		t.Error("NewMetrics(nil) succeeded")
	}
}
