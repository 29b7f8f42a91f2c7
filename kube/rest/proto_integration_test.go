package rest_test

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/kcmlab/kcm/kube/api"
	"github.com/kcmlab/kcm/kube/api/decode"
	"github.com/kcmlab/kcm/kube/api/protowire"
	"github.com/kcmlab/kcm/kube/rest"
	"github.com/kcmlab/kcm/testenv"
)

// The protobuf path against the real kube-apiserver: what it answers when
// kcm asks as kube-controller-manager does (Accept: protobuf, then JSON).

// pbEnv returns a JSON client and a protobuf client (Config.ContentType)
// on the shared cluster, a fresh namespace and a bounded context.
func pbEnv(t *testing.T) (js, pb *rest.Client, ns string, ctx context.Context) {
	t.Helper()
	js, ns, ctx = env(t)
	cfg := testenv.Shared(t).Config()
	cfg.QPS = -1
	cfg.ContentType = rest.ContentTypeProtobuf
	pb, err := rest.NewClient(cfg)
	if err != nil {
		t.Fatal(err)
	}
	return js, pb, ns, ctx
}

// names lists "name" of protobuf RawObjects, failing on any held as JSON
// or of another kind.
func pbNames(t *testing.T, items []*api.RawObject, kind string) []string {
	t.Helper()
	var out []string
	for _, o := range items {
		if !o.IsProto() || o.Kind != kind {
			t.Fatalf("%s/%s: kind %q, protobuf %v; want %s as protobuf", o.Namespace, o.Name, o.Kind, o.IsProto(), kind)
		}
		out = append(out, o.Name)
	}
	slices.Sort(out)
	return out
}

// pbWatchUntil reads events until one satisfies stop, returning the
// objects' names of ADDED events before it.
func pbNext(t *testing.T, w *rest.Watcher[*api.RawObject]) rest.WatchEvent[*api.RawObject] {
	t.Helper()
	ev, err := w.Next()
	if err != nil {
		t.Fatalf("watch: %v", err)
	}
	return ev
}

// TestProtoPods: pods read as protobuf through every read path — paged
// LIST, LIST at resourceVersion 0, metadata-only LIST, watch over chunked
// HTTP and WebSocket, WatchList ending with its bookmark, metadata-only
// watch — each object a RawObject holding its protobuf message.
func TestProtoPods(t *testing.T) {
	js, pb, ns, ctx := pbEnv(t)
	jpods := rest.NewResources(js, rest.Pods, decode.Typed[api.Pod]()).InNamespace(ns)
	for i := range 5 {
		if _, err := jpods.Create(ctx, testPod(fmt.Sprintf("p%d", i))); err != nil {
			t.Fatal(err)
		}
	}
	want := []string{"p0", "p1", "p2", "p3", "p4"}
	pods := rest.NewResources(pb, rest.Pods, decode.StrippingManagedFields(decode.Wire())).InNamespace(ns)

	page, err := pods.List(ctx, rest.ListOptions{Limit: 2})
	if err != nil {
		t.Fatal(err)
	}
	if len(page.Items) != 2 || page.Continue == "" || page.ResourceVersion == "" {
		t.Fatalf("first page: %d items, meta %+v", len(page.Items), page.ListMeta)
	}
	all, err := pods.ListAll(ctx, rest.ListOptions{Limit: 2})
	if err != nil {
		t.Fatal(err)
	}
	if got := pbNames(t, all.Items, "Pod"); !slices.Equal(got, want) {
		t.Fatalf("paged list: %v", got)
	}
	for _, o := range all.Items {
		if bytes.Contains(o.Proto(), []byte("kube-scheduler")) || o.APIVersion != "v1" {
			t.Fatalf("%s: managedFields kept, or apiVersion %q", o.Name, o.APIVersion)
		}
	}
	cached, err := pods.List(ctx, rest.ListOptions{ResourceVersion: "0"})
	if err != nil {
		t.Fatal(err)
	}
	if got := pbNames(t, cached.Items, "Pod"); !slices.Equal(got, want) {
		t.Fatalf("list at resourceVersion 0: %v", got)
	}
	meta, err := pods.MetadataOnly().List(ctx, rest.ListOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if got := pbNames(t, meta.Items, "PartialObjectMetadata"); !slices.Equal(got, want) || meta.Items[0].Labels["app"] != "web" {
		t.Fatalf("metadata-only list: %v %+v", got, meta.Items[0].ObjectMeta)
	}

	for _, tr := range []rest.WatchTransport{rest.Chunked, rest.WebSocket} {
		t.Run(fmt.Sprintf("transport %d", tr), func(t *testing.T) {
			// WatchList: the initial events, then the bookmark that ends them.
			yes := true
			wl, err := pods.Watch(ctx, rest.WatchOptions{Transport: tr, ListOptions: rest.ListOptions{SendInitialEvents: &yes,
				AllowWatchBookmarks: true, ResourceVersionMatch: "NotOlderThan"}})
			if err != nil {
				t.Fatal(err)
			}
			var initial []*api.RawObject
			for {
				ev := pbNext(t, wl)
				if ev.IsInitialEventsEnd() {
					break
				}
				if ev.Type == rest.Added {
					initial = append(initial, ev.Object)
				}
			}
			wl.Close()
			if got := pbNames(t, initial, "Pod"); !slices.Equal(got, want) {
				t.Fatalf("WatchList initial events: %v", got)
			}
			// A watch from the list's resourceVersion sees a new pod come and go.
			w, err := pods.Watch(ctx, rest.WatchOptions{Transport: tr, ListOptions: rest.ListOptions{ResourceVersion: all.ResourceVersion}})
			if err != nil {
				t.Fatal(err)
			}
			defer w.Close()
			mw, err := pods.MetadataOnly().Watch(ctx, rest.WatchOptions{Transport: tr, ListOptions: rest.ListOptions{ResourceVersion: all.ResourceVersion}})
			if err != nil {
				t.Fatal(err)
			}
			defer mw.Close()
			name := fmt.Sprintf("new-%d", tr)
			if _, err := jpods.Create(ctx, testPod(name)); err != nil {
				t.Fatal(err)
			}
			want = append(want, name) // in the next WatchList's initial events
			slices.Sort(want)
			for _, c := range []struct {
				w    *rest.Watcher[*api.RawObject]
				kind string
			}{{w, "Pod"}, {mw, "PartialObjectMetadata"}} {
				for {
					ev := pbNext(t, c.w)
					if ev.Type == rest.Added && ev.Object.Name == name {
						pbNames(t, []*api.RawObject{ev.Object}, c.kind)
						break
					}
				}
			}
		})
	}
}

// TestProtoFailures: failures answered in protobuf are the *StatusError
// the JSON path gives: a missing object, and 410 Gone from a watch and a
// LIST at a compacted resourceVersion.
func TestProtoFailures(t *testing.T) {
	if testenv.UncachedResource != "configmaps" {
		t.Fatalf("testenv serves %s uncached; this test needs configmaps", testenv.UncachedResource)
	}
	js, pb, ns, ctx := pbEnv(t)
	var errs [2]error
	for i, c := range []*rest.Client{js, pb} {
		_, errs[i] = rest.NewResources(c, rest.ConfigMaps, decode.Wire()).InNamespace(ns).Get(ctx, "none")
	}
	var je, pe *rest.StatusError
	if !rest.IsNotFound(errs[1]) || !errors.As(errs[0], &je) || !errors.As(errs[1], &pe) || !reflect.DeepEqual(je.Status, pe.Status) {
		t.Fatalf("not found: JSON %v, protobuf %v", errs[0], errs[1])
	}
	cms := rest.NewResources(pb, rest.ConfigMaps, decode.Wire()).InNamespace(ns)
	first, err := rest.NewResources(js, rest.ConfigMaps, decode.Typed[api.ConfigMap]()).InNamespace(ns).
		Create(ctx, &api.ConfigMap{ObjectMeta: api.ObjectMeta{Name: "old"}})
	if err != nil {
		t.Fatal(err)
	}
	for i := range 3 {
		if _, err := rest.NewResources(js, rest.ConfigMaps, decode.Typed[api.ConfigMap]()).InNamespace(ns).
			Create(ctx, &api.ConfigMap{ObjectMeta: api.ObjectMeta{Name: fmt.Sprintf("new-%d", i)}}); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := testenv.Shared(t).CompactEtcd(ctx); err != nil {
		t.Fatalf("compact: %v", err)
	}
	for _, tr := range []rest.WatchTransport{rest.Chunked, rest.WebSocket} {
		w, err := cms.Watch(ctx, rest.WatchOptions{Transport: tr, ListOptions: rest.ListOptions{ResourceVersion: first.ResourceVersion}})
		if err == nil {
			var ev rest.WatchEvent[*api.RawObject]
			ev, err = w.Next()
			w.Close()
			if err == nil {
				if ev.Type != rest.Error {
					t.Fatalf("transport %d: first event %s, want ERROR 410", tr, ev.Type)
				}
				err = ev.Err
			}
		}
		if !rest.IsGone(err) {
			t.Fatalf("transport %d: watch from a compacted rv: %v, want 410 Gone", tr, err)
		}
	}
	_, err = cms.List(ctx, rest.ListOptions{ResourceVersion: first.ResourceVersion, ResourceVersionMatch: "Exact", Limit: 1})
	if !rest.IsGone(err) {
		t.Fatalf("exact list at a compacted rv: %v, want 410 Gone", err)
	}
}

// TestProtoCustomResourceIsJSON: a custom resource has no protobuf form:
// a protobuf client reads it as JSON, list, get and watch; its
// metadata-only form is protobuf like any resource's.
func TestProtoCustomResourceIsJSON(t *testing.T) {
	js, pb, ns, ctx := pbEnv(t)
	group := strings.ToLower(ns) + ".kcm.test"
	res := testenv.InstallCRD(t, ctx, js, group, "Widget")
	if res.HasProtobuf() {
		t.Fatalf("%s has protobuf", res)
	}
	w, err := api.NewRawObject(map[string]any{"apiVersion": group + "/v1", "kind": "Widget",
		"metadata": map[string]any{"name": "w1"}, "spec": map[string]any{"size": 3}})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := rest.NewResources(js, res, decode.Raw()).InNamespace(ns).Create(ctx, w); err != nil {
		t.Fatal(err)
	}
	r := rest.NewResources(pb, res, decode.Wire()).InNamespace(ns)
	got, err := r.Get(ctx, "w1")
	if err != nil || got.IsProto() || !bytes.Contains(got.Raw(), []byte(`"size":3`)) {
		t.Fatalf("get: %+v %v", got, err)
	}
	l, err := r.List(ctx, rest.ListOptions{})
	if err != nil || len(l.Items) != 1 || l.Items[0].IsProto() {
		t.Fatalf("list: %+v %v", l, err)
	}
	wt, err := r.Watch(ctx, rest.WatchOptions{ListOptions: rest.ListOptions{ResourceVersion: "0"}})
	if err != nil {
		t.Fatal(err)
	}
	ev, err := wt.Next()
	wt.Close()
	if err != nil || ev.Type != rest.Added || ev.Object.IsProto() || ev.Object.Name != "w1" {
		t.Fatalf("watch: %+v %v", ev, err)
	}
	// Written back through the protobuf client: JSON, as read.
	edited, err := got.Edit(func(m map[string]any) error {
		m["spec"].(map[string]any)["size"] = 5
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	up, err := r.Update(ctx, edited)
	if err != nil || up.IsProto() || !bytes.Contains(up.Raw(), []byte(`"size":5`)) {
		t.Fatalf("update: %+v %v", up, err)
	}
	m, err := r.MetadataOnly().List(ctx, rest.ListOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if names := pbNames(t, m.Items, "PartialObjectMetadata"); !slices.Equal(names, []string{"w1"}) {
		t.Fatalf("metadata-only list: %v", names)
	}
}

// TestProtoRawObjectWriteKeepsEveryField: a pod read as protobuf and
// written back — Update with a label added, UpdateStatus with a condition
// added, both by appending to its message as protobuf merges — keeps
// every other field, those kcm models and those it does not, exactly as
// the server had them (compared on the JSON of the pod before and after).
func TestProtoRawObjectWriteKeepsEveryField(t *testing.T) {
	js, pb, ns, ctx := pbEnv(t)
	in, err := api.NewRawObject(map[string]any{"apiVersion": "v1", "kind": "Pod",
		"metadata": map[string]any{"name": "keep", "labels": map[string]any{"app": "web"}, "annotations": map[string]any{"a": "b"}},
		"spec": map[string]any{"hostname": "h1", "subdomain": "sd", "enableServiceLinks": false,
			"readinessGates": []any{map[string]any{"conditionType": "kcm.test/gate"}},
			"containers": []any{map[string]any{"name": "c", "image": "registry.k8s.io/pause:3.10", "workingDir": "/srv",
				"stdin": true, "tty": true, "terminationMessagePath": "/tmp/kcm-msg"}}}})
	if err != nil {
		t.Fatal(err)
	}
	jraw := rest.NewResources(js, rest.Pods, decode.Raw()).InNamespace(ns)
	if _, err := jraw.Create(ctx, in); err != nil {
		t.Fatal(err)
	}
	jsonMap := func() map[string]any {
		t.Helper()
		o, err := jraw.Get(ctx, "keep")
		if err != nil {
			t.Fatal(err)
		}
		m, err := o.Map()
		if err != nil {
			t.Fatal(err)
		}
		return m
	}
	before := jsonMap()
	pods := rest.NewResources(pb, rest.Pods, decode.Wire()).InNamespace(ns)
	o, err := pods.Get(ctx, "keep")
	if err != nil || !o.IsProto() {
		t.Fatalf("get: %+v %v", o, err)
	}
	pd, _ := decode.AsProto(decode.Wire())
	// metadata (1) { labels (11) { key, value } }: merged into the labels.
	label := protowire.AppendBytes(nil, 1, protowire.AppendBytes(nil, 11,
		protowire.AppendString(protowire.AppendString(nil, 1, "kcm.test/proto"), 2, "yes")))
	o2, err := pd.DecodeProto(o.TypeMeta, append(bytes.Clone(o.Proto()), label...))
	if err != nil || o2.Labels["kcm.test/proto"] != "yes" {
		t.Fatalf("edited %+v %v", o2, err)
	}
	up, err := pods.Update(ctx, o2)
	if err != nil || !up.IsProto() || up.Labels["kcm.test/proto"] != "yes" || up.Labels["app"] != "web" {
		t.Fatalf("update: %+v %v", up, err)
	}
	after := jsonMap()
	wantMeta := before["metadata"].(map[string]any)["labels"].(map[string]any)
	wantMeta["kcm.test/proto"] = "yes"
	for _, k := range []string{"spec", "status"} {
		if !reflect.DeepEqual(before[k], after[k]) {
			t.Errorf("update changed %s:\nbefore %v\nafter  %v", k, before[k], after[k])
		}
	}
	if got := after["metadata"].(map[string]any)["labels"]; !reflect.DeepEqual(got, wantMeta) {
		t.Errorf("labels %v, want %v", got, wantMeta)
	}
	if got, want := after["metadata"].(map[string]any)["annotations"], before["metadata"].(map[string]any)["annotations"]; !reflect.DeepEqual(got, want) {
		t.Errorf("annotations %v, want %v", got, want)
	}
	// status (3) { conditions (2) { type 1, status 2 } }: one more condition.
	cond := protowire.AppendBytes(nil, 3, protowire.AppendBytes(nil, 2,
		protowire.AppendString(protowire.AppendString(nil, 1, "kcm.test/gate"), 2, "True")))
	// As a cache holds it: managedFields dropped, which the server then
	// keeps as they were (a request without managedFields keeps the live
	// object's).
	spd, _ := decode.AsProto(decode.StrippingManagedFields(decode.Wire()))
	o3, err := spd.DecodeProto(up.TypeMeta, append(bytes.Clone(up.Proto()), cond...))
	if err != nil {
		t.Fatal(err)
	}
	if bytes.Equal(o3.Proto(), append(bytes.Clone(up.Proto()), cond...)) {
		t.Fatal("managedFields were not dropped from the written message")
	}
	if _, err := pods.UpdateStatus(ctx, o3); err != nil {
		t.Fatalf("update status: %v", err)
	}
	final := jsonMap()
	managed := func(m map[string]any) int {
		mf, _ := m["metadata"].(map[string]any)["managedFields"].([]any)
		return len(mf)
	}
	if managed(final) < managed(after) || managed(after) == 0 {
		t.Errorf("managedFields: %d entries after the update, %d after the status update", managed(after), managed(final))
	}
	if !reflect.DeepEqual(final["spec"], before["spec"]) {
		t.Errorf("status update changed spec:\nbefore %v\nafter  %v", before["spec"], final["spec"])
	}
	conds, _ := final["status"].(map[string]any)["conditions"].([]any)
	found := false
	for _, c := range conds {
		if m := c.(map[string]any); m["type"] == "kcm.test/gate" && m["status"] == "True" {
			found = true
		}
	}
	if !found {
		t.Errorf("condition not written: %v", final["status"])
	}
	for k, v := range after["status"].(map[string]any) {
		if k != "conditions" && !reflect.DeepEqual(final["status"].(map[string]any)[k], v) {
			t.Errorf("status update changed status.%s: %v -> %v", k, v, final["status"].(map[string]any)[k])
		}
	}
}
