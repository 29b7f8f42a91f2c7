package resttest

import (
	"errors"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/kcmlab/kcm/clock"
	"github.com/kcmlab/kcm/kube/api"
	"github.com/kcmlab/kcm/kube/rest"
)

var t0 = time.Date(2025, 6, 1, 12, 0, 0, 0, time.UTC)

const rsPath = "/apis/apps/v1/namespaces/ns/replicasets"

// TestGetAndList: reads answer from the stored objects with kube-apiserver's
// codes and messages: 404 with the qualified resource, a namespace's
// collection or all namespaces, sorted by namespace and name, label and
// field selectors, PartialObjectMetadata when asked for, no watches.
func TestGetAndList(t *testing.T) {
	s := New(t, Options{})
	other := rsNamed("c", "3")
	other.Namespace = "other"
	Add(s, rest.ReplicaSets, rsNamed("b", "2"), rsNamed("a", "1"), other)
	meta := "application/json;as=PartialObjectMetadata;g=meta.k8s.io;v=v1,application/json"
	metaList := "application/json;as=PartialObjectMetadataList;g=meta.k8s.io;v=v1,application/json"
	for _, tc := range []struct {
		name, path, accept string
		code               int
		want               []string // the names listed, or the name got
		message            string
		kind               string
	}{
		{"get", rsPath + "/a", "", 200, []string{"a"}, "", "ReplicaSet"},
		{"get metadata only", rsPath + "/a", meta, 200, []string{"a"}, "", "PartialObjectMetadata"},
		{"get missing", rsPath + "/zz", "", 404, nil, `replicasets.apps "zz" not found`, "Status"},
		{"get of another namespace", "/apis/apps/v1/namespaces/other/replicasets/a", "", 404, nil, `replicasets.apps "a" not found`, "Status"},
		{"core resource", "/api/v1/namespaces/ns/pods/p", "", 404, nil, `pods "p" not found`, "Status"},
		{"unknown subresource", rsPath + "/a/scale", "", 404, nil, "the server could not find the requested resource", "Status"},
		{"list a namespace", rsPath, "", 200, []string{"a", "b"}, "", "ReplicaSetList"},
		{"list all namespaces", "/apis/apps/v1/replicasets", "", 200, []string{"a", "b", "c"}, "", "ReplicaSetList"},
		{"list metadata only", rsPath, metaList, 200, []string{"a", "b"}, "", "PartialObjectMetadataList"},
		{"label selector", rsPath + "?labelSelector=app%3Db", "", 200, []string{"b"}, "", "ReplicaSetList"},
		{"set selector", rsPath + "?labelSelector=app+in+(a,b,c)", "", 200, []string{"a", "b"}, "", "ReplicaSetList"},
		{"field selector", "/apis/apps/v1/replicasets?fieldSelector=metadata.namespace%3Dother", "", 200, []string{"c"}, "", "ReplicaSetList"},
		{"field selector !=", rsPath + "?fieldSelector=metadata.name!%3Da", "", 200, []string{"b"}, "", "ReplicaSetList"},
		{"bad label selector", rsPath + "?labelSelector=a%3D%3D%3D", "", 400, nil, "unable to parse requirement", "Status"},
		{"unsupported field", rsPath + "?fieldSelector=spec.x%3D1", "", 400, nil, "field label not supported: spec.x=1", "Status"},
		{"watch", rsPath + "?watch=true", "", 405, nil, "resttest does not serve watch", "Status"},
		{"not an API path", "/healthz", "", 404, nil, "the server could not find the requested resource", "Status"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			a := do(t, s, "GET", tc.path, "", "", "Accept", tc.accept)
			if a.code != tc.code || a.str("kind") != tc.kind || !strings.Contains(a.str("message"), tc.message) {
				t.Fatalf("%d %s %q, want %d %s %q", a.code, a.str("kind"), a.str("message"), tc.code, tc.kind, tc.message)
			}
			var got []string
			if items, ok := a.body["items"].([]any); ok {
				for _, it := range items {
					got = append(got, answer{body: it.(map[string]any)}.str("metadata", "name"))
				}
			} else if tc.code == 200 {
				got = []string{a.str("metadata", "name")}
			}
			if !slices.Equal(got, tc.want) {
				t.Fatalf("names %q, want %q", got, tc.want)
			}
			if strings.Contains(tc.accept, "PartialObjectMetadata") && a.body["spec"] != nil {
				t.Fatal("metadata only, and a spec")
			}
		})
	}
	if a := do(t, s, "GET", rsPath, "", ""); a.str("metadata", "resourceVersion") != "3" {
		t.Fatalf("list resourceVersion %q, want the store's 3", a.str("metadata", "resourceVersion"))
	}
}

// TestCreate: the server's fields are assigned (uid, resourceVersion from
// the one counter, creationTimestamp from the clock, generation 1 for an
// object with a spec), generateName makes names, status is reset, and
// kube-apiserver's refusals are kept.
func TestCreate(t *testing.T) {
	clk := clock.NewFake(t0)
	s := New(t, Options{Clock: clk})
	Add(s, rest.ReplicaSets, rsNamed("taken", "41"))
	for _, tc := range []struct {
		name, path, body string
		code             int
		want             map[string]string // path "a.b" → value
		message          string
	}{
		{"named", rsPath, `{"metadata":{"name":"web"},"spec":{"replicas":2},"status":{"replicas":9}}`, 201,
			map[string]string{"metadata.name": "web", "metadata.namespace": "ns", "metadata.uid": "uid-1", "metadata.resourceVersion": "42",
				"metadata.creationTimestamp": "2025-06-01T12:00:00Z", "metadata.generation": "1", "status.replicas": ""}, ""},
		{"generated name", rsPath, `{"metadata":{"generateName":"web-"},"spec":{}}`, 201,
			map[string]string{"metadata.name": "web-1", "metadata.resourceVersion": "43"}, ""},
		{"generated again", rsPath, `{"metadata":{"generateName":"web-"},"spec":{}}`, 201,
			map[string]string{"metadata.name": "web-2"}, ""},
		{"no spec, no generation", "/api/v1/namespaces/ns/configmaps", `{"metadata":{"name":"c"},"data":{"k":"v"}}`, 201,
			map[string]string{"metadata.generation": "", "data.k": "v"}, ""},
		{"a namespace starts Active", "/api/v1/namespaces", `{"metadata":{"name":"team"},"spec":{"finalizers":["kubernetes"]}}`, 201,
			map[string]string{"status.phase": "Active", "metadata.generation": ""}, ""},
		{"a pod starts Pending", "/api/v1/namespaces/ns/pods", `{"metadata":{"name":"p"},"spec":{},"status":{"phase":"Running"}}`, 201,
			map[string]string{"status.phase": "Pending"}, ""},
		{"name taken", rsPath, `{"metadata":{"name":"taken"}}`, 409, nil, `replicasets.apps "taken" already exists`},
		{"resourceVersion set", rsPath, `{"metadata":{"name":"x","resourceVersion":"1"}}`, 500, nil, "resourceVersion should not be set on objects to be created"},
		{"other namespace", rsPath, `{"metadata":{"name":"x","namespace":"other"}}`, 400, nil, "does not match the namespace sent on the request"},
		{"no name", rsPath, `{"metadata":{}}`, 422, nil, "name or generateName is required"},
		{"not JSON", rsPath, `{`, 400, nil, ""},
		{"a subresource", rsPath + "/taken/eviction", `{}`, 404, nil, "the server could not find the requested resource"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			a := do(t, s, "POST", tc.path, "application/json", tc.body)
			if a.code != tc.code || !strings.Contains(a.str("message"), tc.message) {
				t.Fatalf("%d %q, want %d %q", a.code, a.str("message"), tc.code, tc.message)
			}
			for p, want := range tc.want {
				if got := a.str(strings.Split(p, ".")...); got != want {
					t.Errorf("%s %q, want %q", p, got, want)
				}
			}
		})
	}
	if ns, ok := Get[*api.Namespace](s, rest.Namespaces, "", "team"); !ok || ns.Status.Phase != api.NamespaceActive {
		t.Fatalf("stored namespace %v %v", ns, ok)
	}
}

// TestUpdate: what an update may change (Kubernetes' update strategies),
// the resourceVersion and uid conditions (409), generation, and an
// update that changes nothing.
func TestUpdate(t *testing.T) {
	for _, tc := range []struct {
		name   string
		path   string
		body   string
		code   int
		want   map[string]string
		reason string
	}{
		{"spec change", rsPath + "/web", `{"metadata":{"name":"web","resourceVersion":"5"},"spec":{"replicas":3},"status":{"replicas":9}}`, 200,
			map[string]string{"spec.replicas": "3", "status.replicas": "1", "metadata.generation": "2", "metadata.resourceVersion": "6",
				"metadata.uid": "uid-web"}, ""},
		{"no resourceVersion: unconditional", rsPath + "/web", `{"metadata":{"name":"web"},"spec":{"replicas":3}}`, 200,
			map[string]string{"spec.replicas": "3", "metadata.resourceVersion": "6"}, ""},
		{"label change keeps generation", rsPath + "/web", `{"metadata":{"name":"web","labels":{"x":"y"}},"spec":{"replicas":1}}`, 200,
			map[string]string{"metadata.labels.x": "y", "metadata.generation": "1", "metadata.resourceVersion": "6"}, ""},
		{"nothing changes: same resourceVersion", rsPath + "/web",
			`{"metadata":{"name":"web","namespace":"ns","uid":"uid-web","generation":1,"labels":{"app":"web"},"resourceVersion":"5"},"spec":{"replicas":1}}`, 200,
			map[string]string{"metadata.resourceVersion": "5"}, ""},
		{"status", rsPath + "/web/status", `{"metadata":{"name":"web","resourceVersion":"5"},"spec":{"replicas":7},"status":{"replicas":4}}`, 200,
			map[string]string{"spec.replicas": "1", "status.replicas": "4", "metadata.generation": "1"}, ""},
		{"stale resourceVersion", rsPath + "/web", `{"metadata":{"name":"web","resourceVersion":"4"}}`, 409, nil, "Conflict"},
		{"stale status write", rsPath + "/web/status", `{"metadata":{"name":"web","resourceVersion":"4"}}`, 409, nil, "Conflict"},
		{"another uid", rsPath + "/web", `{"metadata":{"name":"web","uid":"other"}}`, 409, nil, "Conflict"},
		{"missing", rsPath + "/zz", `{"metadata":{"name":"zz"}}`, 404, nil, "NotFound"},
		{"name differs", rsPath + "/web", `{"metadata":{"name":"other"}}`, 400, nil, "BadRequest"},
		{"unknown subresource", rsPath + "/web/scale", `{"metadata":{"name":"web"}}`, 404, nil, "NotFound"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s := New(t, Options{})
			rs := rsNamed("web", "5")
			rs.Status.Replicas = 1
			Add(s, rest.ReplicaSets, rs)
			a := do(t, s, "PUT", tc.path, "application/json", tc.body)
			if a.code != tc.code || a.str("reason") != tc.reason {
				t.Fatalf("%d %s %q, want %d %s", a.code, a.str("reason"), a.str("message"), tc.code, tc.reason)
			}
			for p, want := range tc.want {
				if got := a.str(strings.Split(p, ".")...); got != want {
					t.Errorf("%s %q, want %q", p, got, want)
				}
			}
		})
	}
	if msg := do(t, conflicted(t), "PUT", rsPath+"/web", "application/json", `{"metadata":{"name":"web","resourceVersion":"4"}}`).str("message"); msg !=
		`Operation cannot be fulfilled on replicasets.apps "web": the object has been modified; please apply your changes to the latest version and try again` {
		t.Fatalf("conflict message %q", msg)
	}
}

func conflicted(t *testing.T) *Server {
	s := New(t, Options{})
	Add(s, rest.ReplicaSets, rsNamed("web", "5"))
	return s
}

// TestUpdateRules: Deployments count annotation changes in generation;
// namespaces keep spec.finalizers on update and change only them through
// finalize; a status write never changes generation.
func TestUpdateRules(t *testing.T) {
	s := New(t, Options{})
	Add(s, rest.Deployments, &api.Deployment{ObjectMeta: api.ObjectMeta{Namespace: "ns", Name: "d", ResourceVersion: "1", Generation: 1}})
	Add(s, rest.Namespaces, &api.Namespace{ObjectMeta: api.ObjectMeta{Name: "team", ResourceVersion: "2"},
		Spec: api.NamespaceSpec{Finalizers: []string{"kubernetes"}}, Status: api.NamespaceStatus{Phase: api.NamespaceActive}})
	deps := "/apis/apps/v1/namespaces/ns/deployments/d"
	if a := do(t, s, "PUT", deps, "application/json", `{"metadata":{"name":"d","annotations":{"a":"b"}},"spec":{}}`); a.str("metadata", "generation") != "2" {
		t.Fatalf("deployment annotation change: generation %s", a.str("metadata", "generation"))
	}
	if a := do(t, s, "PUT", deps+"/status", "application/json", `{"metadata":{"name":"d","annotations":{"a":"c"}},"spec":{},"status":{"replicas":1}}`); a.str("metadata", "generation") != "2" ||
		a.str("metadata", "annotations", "a") != "c" {
		t.Fatalf("deployment status write: generation %s annotations %v", a.str("metadata", "generation"), a.body["metadata"])
	}
	ns := "/api/v1/namespaces/team"
	a := do(t, s, "PUT", ns, "application/json", `{"metadata":{"name":"team","labels":{"l":"v"}},"spec":{"finalizers":[]},"status":{"phase":"Terminating"}}`)
	if a.str("spec", "finalizers") != "[kubernetes]" || a.str("status", "phase") != "Active" || a.str("metadata", "labels", "l") != "v" {
		t.Fatalf("namespace update %v", a.body)
	}
	a = do(t, s, "PUT", ns+"/finalize", "application/json", `{"metadata":{"name":"team"},"spec":{"finalizers":["other"]},"status":{"phase":"Terminating"}}`)
	if a.str("spec", "finalizers") != "[other]" || a.str("status", "phase") != "Active" {
		t.Fatalf("namespace finalize %v", a.body)
	}
	a = do(t, s, "PUT", ns+"/status", "application/json", `{"metadata":{"name":"team"},"spec":{"finalizers":[]},"status":{"phase":"Terminating"}}`)
	if a.str("spec", "finalizers") != "[other]" || a.str("status", "phase") != "Terminating" {
		t.Fatalf("namespace status %v", a.body)
	}
}

// TestClientErrors: the answers reach kcm's client as its sentinel errors.
func TestClientErrors(t *testing.T) {
	s := New(t, Options{})
	Add(s, rest.ReplicaSets, rsNamed("web", "5"))
	rss := replicaSets(s)
	stale := rsNamed("web", "4")
	if _, err := rss.Update(t.Context(), stale); !rest.IsConflict(err) {
		t.Fatalf("stale update: %v", err)
	}
	if _, err := rss.Get(t.Context(), "zz"); !errors.Is(err, rest.ErrNotFound) {
		t.Fatalf("get missing: %v", err)
	}
	if _, err := rss.Create(t.Context(), &api.ReplicaSet{ObjectMeta: api.ObjectMeta{Name: "web"}}); !rest.IsAlreadyExists(err) {
		t.Fatalf("create existing: %v", err)
	}
	got, err := rss.Get(t.Context(), "web")
	if err != nil || got.ResourceVersion != "5" || got.UID != "uid-web" {
		t.Fatalf("get %+v %v", got, err)
	}
}
