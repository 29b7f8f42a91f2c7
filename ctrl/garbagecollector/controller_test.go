package garbagecollector

import (
	"context"
	"errors"
	"fmt"
	"io"
	"maps"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/rs/zerolog"
	"github.com/spf13/pflag"

	"github.com/kcmlab/kcm/ctrl"
	"github.com/kcmlab/kcm/kube/rest"
)

// discoveryServer serves discovery documents that a test can change: core
// v1 and one document per group (its preferred version); a group set to
// fail answers 503.
type discoveryServer struct {
	mu     sync.Mutex
	core   string
	groups map[string]string // "apps/v1" → its APIResourceList
	failed map[string]bool
}

func resourceList(gv string, rs ...string) string {
	return fmt.Sprintf(`{"groupVersion":%q,"resources":[%s]}`, gv, strings.Join(rs, ","))
}

func apiResource(name, kind string, namespaced bool, verbs ...string) string {
	return fmt.Sprintf(`{"name":%q,"kind":%q,"namespaced":%t,"verbs":["%s"]}`, name, kind, namespaced, strings.Join(verbs, `","`))
}

func (d *discoveryServer) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	d.mu.Lock()
	defer d.mu.Unlock()
	switch {
	case r.URL.Path == "/api/v1":
		io.WriteString(w, d.core)
	case r.URL.Path == "/apis":
		var gs []string
		for _, gv := range slices.Sorted(maps.Keys(d.groups)) {
			g, _, _ := strings.Cut(gv, "/")
			gs = append(gs, fmt.Sprintf(`{"name":%q,"preferredVersion":{"groupVersion":%q}}`, g, gv))
		}
		fmt.Fprintf(w, `{"kind":"APIGroupList","groups":[%s]}`, strings.Join(gs, ","))
	default:
		gv := strings.TrimPrefix(r.URL.Path, "/apis/")
		if d.failed[gv] {
			http.Error(w, `{"kind":"Status","code":503,"message":"unavailable"}`, http.StatusServiceUnavailable)
			return
		}
		doc, ok := d.groups[gv]
		if !ok {
			http.NotFound(w, r)
			return
		}
		io.WriteString(w, doc)
	}
}

// client serves d for the test's length and returns a client of it that
// tries each request once.
func (d *discoveryServer) client(t *testing.T) *rest.Client {
	t.Helper()
	srv := httptest.NewServer(d)
	t.Cleanup(srv.Close)
	client, err := rest.NewClient(&rest.Config{Host: srv.URL}, rest.WithRetryPolicy(rest.RetryPolicy{MaxAttempts: 1}))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(client.CloseIdleConnections)
	return client
}

func (d *discoveryServer) set(f func(d *discoveryServer)) {
	d.mu.Lock()
	defer d.mu.Unlock()
	f(d)
}

func names(m map[rest.Resource]bool) []string {
	var out []string
	for r := range m {
		out = append(out, r.String())
	}
	slices.Sort(out)
	return out
}

// TestResync: each discovery makes the monitored set the resources that
// support list, watch and delete, less Events (Kubernetes'
// GetDeletableResources and its ignored resources); a CRD that appears
// joins, a resource that goes leaves; a discovery that finds nothing
// changes nothing; a group that fails keeps only monitors that had
// synced (none here, since none runs), as Kubernetes' Sync does.
func TestResync(t *testing.T) {
	d := &discoveryServer{
		core: resourceList("v1",
			apiResource("pods", "Pod", true, "create", "delete", "get", "list", "watch"),
			apiResource("events", "Event", true, "create", "delete", "get", "list", "watch"),
			apiResource("bindings", "Binding", true, "create"),
			apiResource("componentstatuses", "ComponentStatus", false, "get", "list")),
		groups: map[string]string{
			"apps/v1":          resourceList("apps/v1", apiResource("deployments", "Deployment", true, "delete", "get", "list", "watch")),
			"events.k8s.io/v1": resourceList("events.k8s.io/v1", apiResource("events", "Event", true, "delete", "get", "list", "watch")),
		},
		failed: map[string]bool{},
	}
	client := d.client(t)
	gc := NewGarbageCollector(client, Options{Config: Config{Logger: zerolog.Nop()}})
	defer gc.monitors.StopAll()
	defer gc.deleteLoop.Queue().ShutDown()
	defer gc.orphanLoop.Queue().ShutDown()
	ctx := context.Background()

	known := gc.resync(ctx, nil)
	want := []string{"deployments.v1.apps", "pods.v1"}
	if got, _ := gc.monitors.Resources(); !slices.Equal(names(got), want) || !slices.Equal(names(known), want) {
		t.Fatalf("monitors %v (known %v), want %v", names(got), names(known), want)
	}
	if _, err := gc.c.mapper.resourceFor("example.com/v1", "Widget"); !errors.Is(err, ErrUnknownKind) {
		t.Fatalf("an unknown kind mapped: %v", err)
	}

	d.set(func(d *discoveryServer) {
		d.groups["example.com/v1"] = resourceList("example.com/v1", apiResource("widgets", "Widget", true, "delete", "get", "list", "watch"))
		delete(d.groups, "apps/v1")
	})
	known = gc.resync(ctx, known)
	want = []string{"pods.v1", "widgets.v1.example.com"}
	if got, _ := gc.monitors.Resources(); !slices.Equal(names(got), want) {
		t.Fatalf("after a CRD came and apps went: monitors %v, want %v", names(got), want)
	}
	if r, err := gc.c.mapper.resourceFor("example.com/v1", "Widget"); err != nil || r.Resource != "widgets" || !r.Namespaced {
		t.Fatalf("the new kind maps to %+v, %v", r, err)
	}

	d.set(func(d *discoveryServer) { d.core = "not json" })
	if next := gc.resync(ctx, known); !slices.Equal(names(next), want) {
		t.Fatalf("a failed discovery changed the monitors to %v", names(next))
	}

	d.set(func(d *discoveryServer) {
		d.core = resourceList("v1", apiResource("pods", "Pod", true, "delete", "get", "list", "watch"))
		d.failed["example.com/v1"] = true
	})
	if next := gc.resync(ctx, known); !slices.Equal(names(next), []string{"pods.v1"}) {
		t.Fatalf("a failed group kept a monitor that never synced: %v", names(next))
	}
}

// TestDisabledByFlag: --enable-garbage-collector=false builds no
// collector (kube-controller-manager's start function returns nothing to
// run); the default builds one, named and with its flags as
// kube-controller-manager has them.
func TestDisabledByFlag(t *testing.T) {
	ds, err := ctrl.NewDescriptors(Descriptor())
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		args []string
		want bool
	}{{nil, true}, {[]string{"--enable-garbage-collector=false"}, false}, {[]string{"--enable-garbage-collector"}, true}} {
		o := ds.NewOptions()
		fs := pflag.NewFlagSet("kcm", pflag.ContinueOnError)
		ds.AddFlags(fs, o)
		if err := fs.Parse(tc.args); err != nil {
			t.Fatal(err)
		}
		client, err := rest.NewClient(&rest.Config{Host: "https://127.0.0.1:1"})
		if err != nil {
			t.Fatal(err)
		}
		cc, err := ctrl.CreateControllerContext(client, ctrl.Config{Options: o, Logger: zerolog.Nop()})
		if err != nil {
			t.Fatal(err)
		}
		c, err := New(context.Background(), cc, Name)
		if err != nil || (c != nil) != tc.want {
			t.Errorf("%q: controller %v, %v; want one: %v", tc.args, c, err, tc.want)
		}
		if c != nil {
			if c.Name() != Name || cc.Workers(c.Name()) != DefaultWorkers {
				t.Errorf("controller %q with %d workers", c.Name(), cc.Workers(c.Name()))
			}
			gc := c.(*GarbageCollector)
			gc.deleteLoop.Queue().ShutDown()
			gc.orphanLoop.Queue().ShutDown()
		}
	}
	d := Descriptor()
	if d.Name != "garbage-collector-controller" || !slices.Equal(d.Aliases, []string{"garbagecollector"}) ||
		d.Concurrency.Name != "concurrent-gc-syncs" || d.Concurrency.Default != 20 || d.DisabledByDefault {
		t.Errorf("descriptor %+v", d)
	}
}

// TestDebugHandler: /graph answers the DOT of the graph (text/vnd.graphviz),
// ?uid= narrows it, any other path is 404 — kube-controller-manager's
// debug handler.
func TestDebugHandler(t *testing.T) {
	srv := httptest.NewServer(DebugHandler(chainsGraph()))
	defer srv.Close()
	get := func(path string) (int, string, string) {
		resp, err := http.Get(srv.URL + path)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		b, _ := io.ReadAll(resp.Body)
		return resp.StatusCode, resp.Header.Get("Content-Type"), string(b)
	}
	code, ct, body := get("/graph")
	if code != 200 || ct != "text/vnd.graphviz" || !strings.Contains(body, `"alpha" -> "bravo"`) || !strings.Contains(body, `"delta" -> "foxtrot"`) {
		t.Errorf("/graph = %d %s\n%s", code, ct, body)
	}
	if _, _, body := get("/graph?uid=golf"); strings.Contains(body, "alpha") || !strings.Contains(body, `"foxtrot" -> "golf"`) {
		t.Errorf("/graph?uid=golf:\n%s", body)
	}
	if code, _, _ := get("/other"); code != 404 {
		t.Errorf("/other = %d, want 404", code)
	}
}
