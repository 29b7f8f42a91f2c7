package rest

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strings"
	"testing"

	"github.com/kcmlab/kcm/kube/api"
	"github.com/kcmlab/kcm/kube/api/decode"
	"github.com/kcmlab/kcm/kube/internal/jsonx"
)

// TestResourcesRequests: method, path, query, headers and body of each
// verb (API concepts: "Standard API terminology", "Patch operations").
func TestResourcesRequests(t *testing.T) {
	ctx := context.Background()
	yes := true
	var grace int64 = 0
	tests := []struct {
		name                        string
		op                          func(*Client) error
		method, path, query, accept string
		contentType                 string
		body                        []string // substrings of the body
	}{
		{name: "get", op: func(c *Client) error { _, err := rcConfigMaps(c).Get(ctx, "cm1"); return err },
			method: "GET", path: "/api/v1/namespaces/ns1/configmaps/cm1", accept: acceptJSON},
		{name: "get metadata only", op: func(c *Client) error {
			_, err := NewResources(c, ConfigMaps, decode.Raw()).InNamespace("ns1").MetadataOnly().Get(ctx, "cm1")
			return err
		}, method: "GET", path: "/api/v1/namespaces/ns1/configmaps/cm1", accept: acceptMetaObject},
		{name: "get cluster-scoped ignores namespace", op: func(c *Client) error {
			_, err := NewResources(c, Nodes, decode.Raw()).InNamespace("ns1").Get(ctx, "n1")
			return err
		}, method: "GET", path: "/api/v1/nodes/n1", accept: acceptJSON},
		{name: "create in client namespace", op: func(c *Client) error {
			_, err := rcConfigMaps(c).Create(ctx, &api.ConfigMap{ObjectMeta: api.ObjectMeta{Name: "cm1"}, Data: map[string]string{"a": "b"}})
			return err
		}, method: "POST", path: "/api/v1/namespaces/ns1/configmaps", accept: acceptJSON, contentType: contentTypeJSON,
			body: []string{`"name":"cm1"`, `"data":{"a":"b"}`}},
		{name: "create in object namespace", op: func(c *Client) error {
			_, err := rcConfigMaps(c).Create(ctx, &api.ConfigMap{ObjectMeta: api.ObjectMeta{Name: "cm1", Namespace: "other"}})
			return err
		}, method: "POST", path: "/api/v1/namespaces/other/configmaps", accept: acceptJSON, contentType: contentTypeJSON},
		{name: "update", op: func(c *Client) error {
			_, err := rcConfigMaps(c).Update(ctx, &api.ConfigMap{ObjectMeta: api.ObjectMeta{Name: "cm1", ResourceVersion: "41"}})
			return err
		}, method: "PUT", path: "/api/v1/namespaces/ns1/configmaps/cm1", accept: acceptJSON, contentType: contentTypeJSON,
			body: []string{`"resourceVersion":"41"`}},
		{name: "update status", op: func(c *Client) error {
			_, err := NewResources(c, Pods, decode.Typed[api.Pod]()).UpdateStatus(ctx, &api.Pod{ObjectMeta: api.ObjectMeta{Name: "p", Namespace: "ns2"}})
			return err
		}, method: "PUT", path: "/api/v1/namespaces/ns2/pods/p/status", accept: acceptJSON, contentType: contentTypeJSON},
		{name: "namespace finalize", op: func(c *Client) error {
			o, err := api.NewRawObject(map[string]any{"apiVersion": "v1", "kind": "Namespace", "metadata": map[string]any{"name": "ns9"}})
			if err != nil {
				return err
			}
			_, err = NewResources(c, Namespaces, decode.Raw()).UpdateSubresource(ctx, o, "finalize")
			return err
		}, method: "PUT", path: "/api/v1/namespaces/ns9/finalize", accept: acceptJSON, contentType: contentTypeJSON,
			body: []string{`"name":"ns9"`}},
		{name: "merge patch of status", op: func(c *Client) error {
			_, err := rcConfigMaps(c).Patch(ctx, "cm1", MergePatch, []byte(`{"data":{"a":null}}`), PatchOptions{FieldManager: "kcm"}, "status")
			return err
		}, method: "PATCH", path: "/api/v1/namespaces/ns1/configmaps/cm1/status", query: "fieldManager=kcm", accept: acceptJSON,
			contentType: string(MergePatch), body: []string{`{"data":{"a":null}}`}},
		{name: "apply with force", op: func(c *Client) error {
			_, err := NewResources(c, Deployments, decode.Raw()).InNamespace("ns1").Patch(ctx, "d", ApplyPatch, []byte("x: 1"), PatchOptions{FieldManager: "m", Force: true})
			return err
		}, method: "PATCH", path: "/apis/apps/v1/namespaces/ns1/deployments/d", query: "fieldManager=m&force=true", accept: acceptJSON,
			contentType: string(ApplyPatch)},
		{name: "delete", op: func(c *Client) error {
			return rcConfigMaps(c).Delete(ctx, "cm1", DeleteOptions{PropagationPolicy: PropagationForeground, GracePeriodSeconds: &grace})
		}, method: "DELETE", path: "/api/v1/namespaces/ns1/configmaps/cm1", accept: acceptJSON, contentType: contentTypeJSON,
			body: []string{`"kind":"DeleteOptions"`, `"apiVersion":"v1"`, `"propagationPolicy":"Foreground"`, `"gracePeriodSeconds":0`}},
		{name: "delete collection", op: func(c *Client) error {
			return rcConfigMaps(c).DeleteCollection(ctx, DeleteOptions{DryRun: []string{"All"}}, ListOptions{LabelSelector: "app=web"})
		}, method: "DELETE", path: "/api/v1/namespaces/ns1/configmaps", query: "labelSelector=app%3Dweb", accept: acceptJSON,
			contentType: contentTypeJSON, body: []string{`"dryRun":["All"]`}},
		{name: "list metadata only", op: func(c *Client) error {
			_, err := NewResources(c, Pods, decode.Raw()).MetadataOnly().List(ctx, ListOptions{Limit: 500, ResourceVersion: "0"})
			return err
		}, method: "GET", path: "/api/v1/pods", query: "limit=500&resourceVersion=0", accept: acceptMetaList},
		{name: "watch bookmarks", op: func(c *Client) error {
			w, err := rcConfigMaps(c).Watch(ctx, WatchOptions{ListOptions: ListOptions{ResourceVersion: "5", AllowWatchBookmarks: true,
				TimeoutSeconds: 290, SendInitialEvents: &yes, ResourceVersionMatch: "NotOlderThan"}})
			if err == nil {
				w.Close()
			}
			return err
		}, method: "GET", path: "/api/v1/namespaces/ns1/configmaps",
			query:  "allowWatchBookmarks=true&resourceVersion=5&resourceVersionMatch=NotOlderThan&sendInitialEvents=true&timeoutSeconds=290&watch=true",
			accept: acceptJSON},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			rcNoLeaks(t)
			body := rcCM
			if strings.HasPrefix(tc.name, "list") {
				body = `{"kind":"List","metadata":{},"items":[]}`
			}
			sc := &rcScript{replies: []rcReply{{code: 200, body: body}}}
			c := rcClient(t, rcServer(t, sc).URL, nil)
			if err := tc.op(c); err != nil {
				t.Fatal(err)
			}
			seen := sc.seen()
			if len(seen) != 1 {
				t.Fatalf("%d requests", len(seen))
			}
			got := seen[0]
			if got.Method != tc.method || got.Path != tc.path || got.Query != tc.query {
				t.Errorf("request %s %s?%s, want %s %s?%s", got.Method, got.Path, got.Query, tc.method, tc.path, tc.query)
			}
			if a := got.Header.Get("Accept"); a != tc.accept {
				t.Errorf("Accept %q, want %q", a, tc.accept)
			}
			if ct := got.Header.Get("Content-Type"); ct != tc.contentType {
				t.Errorf("Content-Type %q, want %q", ct, tc.contentType)
			}
			for _, sub := range tc.body {
				if !strings.Contains(got.Body, sub) {
					t.Errorf("body %s lacks %s", got.Body, sub)
				}
			}
		})
	}
}

// TestResourcesGetEmptyName: an empty name would address the collection;
// Get refuses it without a request.
func TestResourcesGetEmptyName(t *testing.T) {
	c, err := NewClient(&Config{Host: "http://127.0.0.1:1", QPS: -1})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := rcConfigMaps(c).Get(context.Background(), ""); err == nil || !strings.Contains(err.Error(), "empty name") {
		t.Fatalf("err = %v", err)
	}
}

// TestResourcesDecodeError: a 2xx whose body is not the object fails with
// ErrDecode.
func TestResourcesDecodeError(t *testing.T) {
	rcNoLeaks(t)
	sc := &rcScript{replies: []rcReply{{code: 200, body: `<html>`}}}
	c := rcClient(t, rcServer(t, sc).URL, nil)
	if _, err := rcConfigMaps(c).Get(context.Background(), "cm1"); !errors.Is(err, api.ErrDecode) {
		t.Fatalf("err = %v, want ErrDecode", err)
	}
}

// TestUpdateKeepsUnknownFields: a typed read-modify-write sends back the
// fields the struct does not model, as read (kcm's design rule: unknown
// fields survive a read-modify-write).
func TestUpdateKeepsUnknownFields(t *testing.T) {
	rcNoLeaks(t)
	const stored = `{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"cm1","namespace":"ns1","resourceVersion":"7",` +
		`"labels":{"a":"1","b":"2"},"futureMeta":{"x":9007199254740993}},"data":{"k":"v","drop":"me"},"futureTop":[1,2,3]}`
	sc := &rcScript{replies: []rcReply{{code: 200, body: stored}}}
	c := rcClient(t, rcServer(t, sc).URL, nil)
	ctx := context.Background()
	cm, err := rcConfigMaps(c).Get(ctx, "cm1")
	if err != nil {
		t.Fatal(err)
	}
	cp, err := api.DeepCopy(cm)
	if err != nil {
		t.Fatal(err)
	}
	cp.Data["k"] = "v2"
	delete(cp.Data, "drop")
	delete(cp.Labels, "b")
	if _, err := rcConfigMaps(c).Update(ctx, cp); err != nil {
		t.Fatal(err)
	}
	sent := sc.seen()[1].Body
	var got map[string]any
	if err := jsonx.UnmarshalNumbers([]byte(sent), &got); err != nil {
		t.Fatal(err)
	}
	// No creationTimestamp: the typed ConfigMap encodes its zero time as
	// null, but the caller did not set it and the server sent none, so
	// the body says what the server sent.
	want := `{"apiVersion":"v1","data":{"k":"v2"},"futureTop":[1,2,3],"kind":"ConfigMap","metadata":{"futureMeta":{"x":9007199254740993},` +
		`"labels":{"a":"1"},"name":"cm1","namespace":"ns1","resourceVersion":"7"}}`
	if b, _ := jsonx.Marshal(got); string(b) != want {
		t.Fatalf("PUT body\n got %s\nwant %s", b, want)
	}
}

// TestUpdateOfCachedObjectKeepsUnknownFields: a typed object as an
// informer caches it (decode.Compact: no JSON kept, only what the struct
// does not model) is written back like one read by Get: DeepCopy, change,
// Update sends the same body, unmodelled fields included.
func TestUpdateOfCachedObjectKeepsUnknownFields(t *testing.T) {
	rcNoLeaks(t)
	const stored = `{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"cm1","namespace":"ns1","resourceVersion":"7",` +
		`"labels":{"a":"1","b":"2"},"futureMeta":{"x":9007199254740993}},"data":{"k":"v","drop":"me"},"futureTop":[1,2,3]}`
	write := func(cm *api.ConfigMap) string {
		t.Helper()
		sc := &rcScript{replies: []rcReply{{code: 200, body: stored}}}
		c := rcClient(t, rcServer(t, sc).URL, nil)
		cp, err := api.DeepCopy(cm)
		if err != nil {
			t.Fatal(err)
		}
		cp.Data["k"] = "v2"
		delete(cp.Data, "drop")
		delete(cp.Labels, "b")
		if _, err := rcConfigMaps(c).Update(context.Background(), cp); err != nil {
			t.Fatal(err)
		}
		return sc.seen()[0].Body
	}
	cached, err := decode.Compact[api.ConfigMap]().Decode([]byte(stored))
	if err != nil {
		t.Fatal(err)
	}
	read, err := decode.Typed[api.ConfigMap]().Decode([]byte(stored))
	if err != nil {
		t.Fatal(err)
	}
	got, want := write(cached), write(read)
	if got != want {
		t.Fatalf("PUT body of the cached object\n%s\nof the object read by Get\n%s", got, want)
	}
	if !strings.Contains(got, `"futureTop":[1,2,3]`) || !strings.Contains(got, `9007199254740993`) {
		t.Fatalf("unmodelled fields lost: %s", got)
	}
}

// TestDiscovery: resources of a group version, subresources left out.
func TestDiscovery(t *testing.T) {
	rcNoLeaks(t)
	mux := http.NewServeMux()
	mux.HandleFunc("/api/v1", func(w http.ResponseWriter, r *http.Request) {
		io.WriteString(w, `{"kind":"APIResourceList","groupVersion":"v1","resources":[`+
			`{"name":"pods","namespaced":true,"kind":"Pod","verbs":["get"]},{"name":"pods/status","namespaced":true,"kind":"Pod"},`+
			`{"name":"nodes","namespaced":false,"kind":"Node"}]}`)
	})
	mux.HandleFunc("/apis/example.com/v1alpha1", func(w http.ResponseWriter, r *http.Request) {
		io.WriteString(w, `{"groupVersion":"example.com/v1alpha1","resources":[{"name":"widgets","namespaced":true,"kind":"Widget"}]}`)
	})
	mux.HandleFunc("/apis/bad/v1", func(w http.ResponseWriter, r *http.Request) { io.WriteString(w, `[`) })
	mux.HandleFunc("/version", func(w http.ResponseWriter, r *http.Request) { io.WriteString(w, `{"gitVersion":"v1.34.4"}`) })
	c := rcClient(t, rcServer(t, mux).URL, nil)
	ctx := context.Background()
	core, err := c.DiscoverResources(ctx, "v1")
	if err != nil {
		t.Fatal(err)
	}
	want := []Resource{{Version: "v1", Resource: "pods", Kind: "Pod", Namespaced: true}, {Version: "v1", Resource: "nodes", Kind: "Node"}}
	if fmt.Sprint(core) != fmt.Sprint(want) {
		t.Fatalf("core: %+v", core)
	}
	w, err := c.ResourceForKind(ctx, "example.com/v1alpha1", "Widget")
	if err != nil || w != (Resource{Group: "example.com", Version: "v1alpha1", Resource: "widgets", Kind: "Widget", Namespaced: true}) {
		t.Fatalf("ResourceForKind = %+v, %v", w, err)
	}
	if _, err := c.ResourceForKind(ctx, "example.com/v1alpha1", "Gadget"); !IsNotFound(err) {
		t.Fatalf("unknown kind: %v, want NotFound", err)
	}
	if _, err := c.DiscoverResources(ctx, "missing/v1"); !IsNotFound(err) {
		t.Fatalf("unknown group: %v, want NotFound", err)
	}
	if _, err := c.DiscoverResources(ctx, "bad/v1"); !errors.Is(err, api.ErrDecode) {
		t.Fatalf("malformed list: %v, want ErrDecode", err)
	}
	if v, err := c.ServerVersion(ctx); err != nil || v != "v1.34.4" {
		t.Fatalf("ServerVersion = %q, %v", v, err)
	}
}
