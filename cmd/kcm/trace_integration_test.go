package main

import (
	"context"
	"errors"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/kcmlab/kcm/kube/api"
	"github.com/kcmlab/kcm/kube/api/decode"
	"github.com/kcmlab/kcm/kube/rest"
	"github.com/kcmlab/kcm/testenv"
)

// expectLine awaits a line containing every part, at or after line from.
func expectLine(t *testing.T, ctx context.Context, tap *lineTap, from int, parts ...string) int {
	t.Helper()
	i, err := tap.await(ctx, from, parts...)
	if err != nil {
		t.Fatalf("%v; output so far:\n%s", err, strings.Join(tap.all(), "\n"))
	}
	return i
}

// TestDevWorkloadTracesDemoChurn runs what `kcm dev` runs on its cluster —
// the demo churn and the trace of pods — against the shared real cluster,
// then changes a pod of its own and checks that its change went through
// every stage, in order.
func TestDevWorkloadTracesDemoChurn(t *testing.T) {
	cl := testenv.Shared(t)
	// Namespace also creates the "default" ServiceAccount: the
	// ServiceAccount admission plugin refuses pods in a namespace without it.
	ns := cl.Namespace(t)
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	tap := newLineTap()
	runCtx, stop := context.WithCancel(ctx)
	done := make(chan error, 1)
	go func() {
		done <- runDevWorkload(runCtx, cl.Config(), devWorkload{Demo: true, DemoNamespace: ns,
			Period: 100 * time.Millisecond, Trace: "po", TraceNamespace: ns}, tap)
	}()
	stopAndWait := sync.OnceValue(func() error { stop(); return <-done })
	defer stopAndWait()

	// The trace syncs before the demo writes anything; then the demo's
	// pods show up as live events.
	synced := expectLine(t, ctx, tap, 0, "informer", "synced")
	demoCreate := expectLine(t, ctx, tap, 0, "demo", "create", "pod "+ns+"/web-0")
	expectLine(t, ctx, tap, demoCreate, "reflector", "ADDED", ns+"/web-0")
	if demoCreate < synced {
		t.Errorf("the demo wrote (line %d) before the trace had synced (line %d)", demoCreate, synced)
	}
	// Its relabel, adoption and delete steps, as the store saw them.
	expectLine(t, ctx, tap, synced, "store", "update", ns+"/web-0", "(+tier=backend -tier=frontend)")
	expectLine(t, ctx, tap, synced, "store", "update", ns+"/web-1", "owner (+")
	expectLine(t, ctx, tap, synced, "store", "delete", ns+"/web-0", "(-app=web -tier=backend)")

	// The test's own pod: created, then relabelled.
	c, err := rest.NewClient(cl.Config())
	if err != nil {
		t.Fatal(err)
	}
	pods := rest.NewResources(c, rest.Pods, decode.Raw()).InNamespace(ns)
	probe, err := api.NewRawObject(map[string]any{"apiVersion": "v1", "kind": "Pod",
		"metadata": map[string]any{"name": "probe", "labels": map[string]any{"stage": "one"}},
		"spec":     map[string]any{"containers": []any{map[string]any{"name": "c", "image": "registry.k8s.io/pause:3.10"}}}})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := pods.Create(ctx, probe); err != nil {
		t.Fatal(err)
	}
	key := ns + "/probe"
	expectLine(t, ctx, tap, synced, "store", "add", key, "label (+stage=one)")
	changed, err := pods.Patch(ctx, "probe", rest.MergePatch, []byte(`{"metadata":{"labels":{"stage":"two"}}}`), rest.PatchOptions{})
	if err != nil {
		t.Fatal(err)
	}
	i := expectLine(t, ctx, tap, synced, "reflector", "MODIFIED", key+" rv="+changed.ResourceVersion+" ")
	i = expectLine(t, ctx, tap, i, "deltafifo", "Updated", key+", queue depth")
	i = expectLine(t, ctx, tap, i, "store", "update", key, "(+stage=two -stage=one)")
	expectLine(t, ctx, tap, i, "processor", "OnUpdate", key+" → 1 listener, buffer depth", "after the reflector read it")

	if err := stopAndWait(); err != nil {
		t.Errorf("runDevWorkload = %v", err)
	}
	expectLine(t, ctx, tap, i, "informer", "stopped")
}

// TestTraceCommandListAndWatch runs `kcm trace` itself through its
// kubeconfig flag, with LIST+WATCH over WebSocket, on configmaps.
func TestTraceCommandListAndWatch(t *testing.T) {
	cl := testenv.Shared(t)
	ns := cl.Namespace(t)
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	c, err := rest.NewClient(cl.Config())
	if err != nil {
		t.Fatal(err)
	}
	cms := rest.NewResources(c, rest.ConfigMaps, decode.Raw()).InNamespace(ns)
	cm := func(name string) *api.RawObject {
		o, err := api.NewRawObject(map[string]any{"apiVersion": "v1", "kind": "ConfigMap",
			"metadata": map[string]any{"name": name, "labels": map[string]any{"app": "x"}}})
		if err != nil {
			t.Fatal(err)
		}
		return o
	}
	if _, err := cms.Create(ctx, cm("before")); err != nil {
		t.Fatal(err)
	}
	tap := newLineTap()
	runCtx, stop := context.WithCancel(ctx)
	done := make(chan error, 1)
	f := traceFlags{namespace: ns, kubeconfig: cl.KubeconfigPath(), watchList: false, contentType: rest.ContentTypeProtobuf}
	go func() { done <- trace(runCtx, "cm", f, rest.WebSocket, tap, tap) }()
	stopAndWait := sync.OnceValue(func() error { stop(); return <-done })
	defer stopAndWait()

	expectLine(t, ctx, tap, 0, "kcm trace: configmaps (v1) in namespace "+ns)
	expectLine(t, ctx, tap, 0, "one informer: reflector (websocket watch, asks for protobuf)")
	expectLine(t, ctx, tap, 0, "WatchList off")
	expectLine(t, ctx, tap, 0, "reflector", "LIST", "done: 1 items in 1 page")
	expectLine(t, ctx, tap, 0, "reflector", "phase", "listing → watching")
	i := expectLine(t, ctx, tap, 0, "informer", "synced", "1 objects cached")
	if _, err := cms.Create(ctx, cm("after")); err != nil {
		t.Fatal(err)
	}
	i = expectLine(t, ctx, tap, i, "reflector", "ADDED", ns+"/after")
	i = expectLine(t, ctx, tap, i, "deltafifo", "Added", ns+"/after")
	i = expectLine(t, ctx, tap, i, "store", "add", ns+"/after", "label (+app=x)")
	expectLine(t, ctx, tap, i, "processor", "OnAdd", ns+"/after")
	if err := stopAndWait(); err != nil {
		t.Errorf("trace = %v, want nil after the context ended", err)
	}
}

// TestResolveResourceByDiscovery: names not built in are found in core v1
// and in the groups the server lists.
func TestResolveResourceByDiscovery(t *testing.T) {
	cl := testenv.Shared(t)
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	cfg := cl.Config()
	cfg.QPS = -1 // each lookup below runs a full discovery
	c, err := rest.NewClient(cfg)
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name, wantResource, wantGroup string
	}{
		{"services", "services", ""},
		{"endpoints", "endpoints", ""},
		{"statefulsets", "statefulsets", "apps"},
		{"priorityclass", "priorityclasses", "scheduling.k8s.io"},
		{"events.events.k8s.io", "events", "events.k8s.io"},
		{"po", "pods", ""},
	}
	for _, tt := range tests {
		got, err := resolveResource(ctx, c, tt.name)
		if err != nil || got.Resource != tt.wantResource || got.Group != tt.wantGroup {
			t.Errorf("resolveResource(%q) = %v, %v; want %s in group %q", tt.name, got, err, tt.wantResource, tt.wantGroup)
		}
	}
	if _, err := resolveResource(ctx, c, "widgets"); !errors.Is(err, errUnknownResource) {
		t.Errorf("resolveResource(widgets) error = %v, want errUnknownResource", err)
	}
}
