package resourcequota

import (
	"context"
	"encoding/json"
	"errors"
	"maps"
	"net/http"
	"net/http/httptest"
	"slices"
	"sync/atomic"
	"testing"

	"github.com/rs/zerolog"

	"github.com/kcmlab/kcm/ctrl/resourcequota/quota"
	"github.com/kcmlab/kcm/internal/testing/resttest"
	"github.com/kcmlab/kcm/kube/api"
	"github.com/kcmlab/kcm/kube/rest"
)

// TestQuotableResources: of what discovery serves, quota monitors the
// namespaced resources with create, list, watch and delete
// (GetQuotableResources), less the ignored ones (events, the reviews).
func TestQuotableResources(t *testing.T) {
	all := []string{"create", "delete", "deletecollection", "get", "list", "patch", "update", "watch"}
	res := func(group, name string, namespaced bool, verbs ...string) rest.APIResource {
		return rest.APIResource{Resource: rest.Resource{Group: group, Version: "v1", Resource: name, Namespaced: namespaced}, Verbs: verbs}
	}
	got := quotableResources([]rest.APIResource{
		res("", "pods", true, all...),
		res("", "configmaps", true, all...),
		res("", "nodes", false, all...),                    // cluster-scoped
		res("", "events", true, all...),                    // ignored
		res("events.k8s.io", "events", true, all...),       // ignored
		res("", "bindings", true, "create"),                // no list
		res("", "componentstatuses", false, "get", "list"), // cluster-scoped, ignored
		res("authorization.k8s.io", "localsubjectaccessreviews", true, "create"),
		res("example.com", "widgets", true, all...),
		res("example.com", "readonly", true, "get", "list", "watch"), // no create or delete
	}, DefaultIgnoredResources())
	var names []string
	for r := range got {
		names = append(names, r.String())
	}
	slices.Sort(names)
	if want := []string{"configmaps.v1", "pods.v1", "widgets.v1.example.com"}; !slices.Equal(names, want) {
		t.Fatalf("quotable %q, want %q", names, want)
	}
}

// discoveryServer serves /api/v1, /apis and /apis/example.com/v1 (whose
// widgets appear when widgets is set) and answers 500 for
// /apis/example.com/v1 while broken is set.
type discoveryServer struct {
	widgets, broken atomic.Bool
}

func (d *discoveryServer) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	verbs := []string{"create", "delete", "get", "list", "watch"}
	type resource struct {
		Name       string   `json:"name"`
		Namespaced bool     `json:"namespaced"`
		Kind       string   `json:"kind"`
		Verbs      []string `json:"verbs"`
	}
	var body any
	switch r.URL.Path {
	case "/api/v1":
		body = map[string]any{"kind": "APIResourceList", "groupVersion": "v1", "resources": []resource{
			{"pods", true, "Pod", verbs}, {"pods/status", true, "Pod", []string{"get", "update"}},
			{"configmaps", true, "ConfigMap", verbs}, {"secrets", true, "Secret", verbs},
			{"resourcequotas", true, "ResourceQuota", verbs}, {"events", true, "Event", verbs},
		}}
	case "/apis":
		body = map[string]any{"kind": "APIGroupList", "groups": []any{
			map[string]any{"name": "example.com", "preferredVersion": map[string]any{"groupVersion": "example.com/v1"}},
		}}
	case "/apis/example.com/v1":
		if d.broken.Load() {
			http.Error(w, "backend down", http.StatusInternalServerError)
			return
		}
		rs := []resource{{"gadgets", true, "Gadget", verbs}}
		if d.widgets.Load() {
			rs = append(rs, resource{"widgets", true, "Widget", verbs})
		}
		body = map[string]any{"kind": "APIResourceList", "groupVersion": "example.com/v1", "resources": rs}
	default:
		http.NotFound(w, r)
		return
	}
	w.Header().Set("Content-Type", "application/json")
	_ = json.NewEncoder(w).Encode(body)
}

// TestDiscoveryResync: a resync that finds new quotable resources gives
// each (but pods, services, claims and quotas, which have typed
// informers) a metadata monitor and each without an evaluator a
// count/<resource>.<group> evaluator, and queues the quotas already
// naming it; a partial discovery keeps what the failed group served; an
// unchanged one changes nothing (Kubernetes' Sync and SyncMonitors).
func TestDiscoveryResync(t *testing.T) {
	d := &discoveryServer{}
	srv := httptest.NewServer(d)
	defer srv.Close()
	client, err := rest.NewClient(&rest.Config{Host: srv.URL}, rest.WithRetryPolicy(rest.RetryPolicy{MaxAttempts: 1}))
	if err != nil {
		t.Fatal(err)
	}
	defer client.CloseIdleConnections()
	f := newFixture(t, []*api.ResourceQuota{
		rq("widgets", list("count/widgets.example.com", "5"), synced(nil)),
		rq("pods", list("pods", "5"), synced(list("pods", "0"))),
	}, nil, nil)
	f.c.quotas = resttest.ListerFrom[*api.ResourceQuota](f.api, ResourceQuotas)
	f.c.discover = client.ServerPreferredResources
	f.c.monitors = newMonitors(client, f.c.resourceChanged, nil, f.clock, zerolog.Nop()) // never started: no watch
	defer f.c.monitors.StopAll()
	ctx := context.Background()
	widgetsGR := quota.GroupResource{Group: "example.com", Resource: "widgets"}
	monitored := func() []string {
		var out []string
		m, _ := f.c.monitors.Resources()
		for r := range m {
			out = append(out, r.String())
		}
		slices.Sort(out)
		return out
	}

	known := f.c.resyncDiscovery(ctx, nil, false)
	if want := []string{"configmaps.v1", "gadgets.v1.example.com", "secrets.v1"}; !slices.Equal(monitored(), want) {
		t.Fatalf("monitors %q, want %q", monitored(), want)
	}
	if f.c.registry.Get(widgetsGR) != nil {
		t.Fatal("an evaluator for widgets before discovery served them")
	}
	if e := f.c.registry.Get(quota.GroupResource{Group: "example.com", Resource: "gadgets"}); e == nil ||
		len(e.MatchingResources([]string{"count/gadgets.example.com"})) != 1 {
		t.Fatal("no count/gadgets.example.com evaluator")
	}
	drain(t, f.c.priority.Queue())
	// A monitor that has not synced counts nothing: its quota's sync
	// fails (and is retried) instead of writing a count too low.
	if _, err := f.c.monitors.count(quota.GroupResource{Group: "example.com", Resource: "gadgets"}, "ns"); !errors.Is(err, ErrNotSynced) {
		t.Errorf("count of an unsynced monitor: %v, want ErrNotSynced", err)
	}
	if _, err := f.c.monitors.count(widgetsGR, "ns"); !errors.Is(err, ErrNotMonitored) {
		t.Errorf("count of an unmonitored resource: %v, want ErrNotMonitored", err)
	}

	// The CRD is installed: the next resync monitors and counts widgets,
	// and the quota naming them is queued at once.
	d.widgets.Store(true)
	known2 := f.c.resyncDiscovery(ctx, known, false)
	if !slices.Contains(monitored(), "widgets.v1.example.com") {
		t.Fatalf("monitors %q lack widgets", monitored())
	}
	if e := f.c.registry.Get(widgetsGR); e == nil || len(e.MatchingResources([]string{"count/widgets.example.com"})) != 1 {
		t.Fatal("no count/widgets.example.com evaluator")
	}
	if got := drain(t, f.c.priority.Queue()); !slices.Equal(got, []string{"ns/widgets"}) {
		t.Errorf("queued %q after widgets were discovered, want ns/widgets", got)
	}
	f.counts["widgets"] = map[string]int{"ns": 2}
	if actions, err := f.sync("ns/widgets"); err != nil || !resttest.Expect(t, actions, "update resourcequotas/status ns/widgets") {
		t.Fatalf("sync: %v", err)
	} else if got := f.stored("ns", "widgets").Status.Used; !maps.Equal(got, list("count/widgets.example.com", "2")) {
		t.Errorf("used %v", got)
	}

	// Unchanged: the same map back, nothing queued.
	if again := f.c.resyncDiscovery(ctx, known2, false); !maps.Equal(again, known2) {
		t.Errorf("an unchanged discovery changed the known resources")
	}
	// The group fails: what it served is kept.
	d.broken.Store(true)
	if kept := f.c.resyncDiscovery(ctx, known2, false); !maps.Equal(kept, known2) || !slices.Contains(monitored(), "widgets.v1.example.com") {
		t.Errorf("a failed group dropped its resources: %v", kept)
	}
	// The CRD is deleted: its monitor goes.
	d.broken.Store(false)
	d.widgets.Store(false)
	f.c.resyncDiscovery(ctx, known2, false)
	if slices.Contains(monitored(), "widgets.v1.example.com") {
		t.Errorf("monitors %q still hold widgets", monitored())
	}
	// Its custom resources went with it: they count 0.
	if n, err := f.c.monitors.count(widgetsGR, "ns"); n != 0 || err != nil {
		t.Errorf("count of a resource discovery no longer serves: %d, %v; want 0", n, err)
	}
}
