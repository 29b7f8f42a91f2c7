package resttest

import (
	"strings"
	"testing"

	"github.com/kcmlab/kcm/kube/api"
	"github.com/kcmlab/kcm/kube/rest"
)

// TestPatch: merge and strategic merge patches as kcm sends them
// (adoption and release by ownerReferences, finalizer removal at a
// resourceVersion), with the apiserver's conditions.
func TestPatch(t *testing.T) {
	const (
		smp   = string(rest.StrategicMergePatch)
		merge = string(rest.MergePatch)
	)
	owner := `{"apiVersion":"apps/v1","kind":"ReplicaSet","name":"web","uid":"rs1","controller":true}`
	for _, tc := range []struct {
		name, path, pt, patch string
		code                  int
		want                  map[string]string
		reason                string
	}{
		{"adopt: ownerReferences merge by uid", "/api/v1/namespaces/ns/pods/p", smp,
			`{"metadata":{"uid":"uid-p","ownerReferences":[` + owner + `]}}`, 200,
			map[string]string{"metadata.ownerReferences": "[map[apiVersion:v1 kind:ConfigMap name:cm uid:c1] map[apiVersion:apps/v1 controller:true kind:ReplicaSet name:web uid:rs1]]",
				"metadata.resourceVersion": "9"}, ""},
		{"release: $patch delete by uid", "/api/v1/namespaces/ns/pods/p", smp,
			`{"metadata":{"uid":"uid-p","ownerReferences":[{"$patch":"delete","uid":"c1"}]}}`, 200,
			map[string]string{"metadata.ownerReferences": "[]"}, ""},
		{"an element merges into its match", "/api/v1/namespaces/ns/pods/p", smp,
			`{"metadata":{"ownerReferences":[{"uid":"c1","blockOwnerDeletion":false}]}}`, 200,
			map[string]string{"metadata.ownerReferences": "[map[apiVersion:v1 blockOwnerDeletion:false kind:ConfigMap name:cm uid:c1]]"}, ""},
		{"finalizers merge as a set", "/api/v1/namespaces/ns/pods/p", smp,
			`{"metadata":{"finalizers":["b","c"]}}`, 200, map[string]string{"metadata.finalizers": "[a b c]"}, ""},
		{"$deleteFromPrimitiveList", "/api/v1/namespaces/ns/pods/p", smp,
			`{"metadata":{"$deleteFromPrimitiveList/finalizers":["a"],"$setElementOrder/finalizers":[]}}`, 200,
			map[string]string{"metadata.finalizers": "[b]"}, ""},
		{"$patch replace of a map", "/api/v1/namespaces/ns/pods/p", smp,
			`{"metadata":{"labels":{"$patch":"replace","x":"y"}}}`, 200, map[string]string{"metadata.labels": "map[x:y]"}, ""},
		{"a list without a key is replaced", "/api/v1/namespaces/ns/pods/p", smp,
			`{"spec":{"nodeSelector":null,"args":["z"]}}`, 200, map[string]string{"spec.args": "[z]"}, ""},
		{"containers merge by name", "/api/v1/namespaces/ns/pods/p", smp,
			`{"spec":{"containers":[{"name":"c","image":"v2"}]}}`, 200,
			map[string]string{"spec.containers": "[map[image:v2 name:c resources:map[]]]", "metadata.generation": "2"}, ""},
		{"a list-wide $patch replace", "/api/v1/namespaces/ns/pods/p", smp,
			`{"spec":{"containers":[{"$patch":"replace"},{"name":"d","image":"x"}]}}`, 200,
			map[string]string{"spec.containers": "[map[image:x name:d]]"}, ""},
		{"a key not in the list is appended", "/api/v1/namespaces/ns/pods/p", smp,
			`{"spec":{"containers":[{"name":"d","image":"x"}]}}`, 200,
			map[string]string{"spec.containers": "[map[image:v1 name:c resources:map[]] map[image:x name:d]]"}, ""},
		{"merge patch: null removes", "/api/v1/namespaces/ns/pods/p", merge,
			`{"metadata":{"resourceVersion":"7","finalizers":null,"labels":{"app":null,"x":"y"}}}`, 200,
			map[string]string{"metadata.finalizers": "", "metadata.labels": "map[x:y]"}, ""},
		{"merge patch replaces lists", "/api/v1/namespaces/ns/pods/p", merge,
			`{"metadata":{"ownerReferences":[` + owner + `]}}`, 200,
			map[string]string{"metadata.ownerReferences": "[map[apiVersion:apps/v1 controller:true kind:ReplicaSet name:web uid:rs1]]"}, ""},
		{"status subresource keeps spec", "/api/v1/namespaces/ns/pods/p/status", merge,
			`{"spec":{"nodeName":"n9"},"status":{"phase":"Running"}}`, 200,
			map[string]string{"spec.nodeName": "", "status.phase": "Running"}, ""},
		{"uid mismatch", "/api/v1/namespaces/ns/pods/p", smp, `{"metadata":{"uid":"other"}}`, 422, nil, "Invalid"},
		{"stale resourceVersion", "/api/v1/namespaces/ns/pods/p", merge, `{"metadata":{"resourceVersion":"6","finalizers":null}}`, 409, nil, "Conflict"},
		{"renaming", "/api/v1/namespaces/ns/pods/p", merge, `{"metadata":{"name":"q"}}`, 400, nil, "BadRequest"},
		{"missing", "/api/v1/namespaces/ns/pods/zz", merge, `{}`, 404, nil, "NotFound"},
		{"strategic merge of a custom resource", "/apis/example.com/v1/namespaces/ns/widgets/w", smp, `{"metadata":{}}`, 415, nil, "UnsupportedMediaType"},
		{"merge patch of a custom resource", "/apis/example.com/v1/namespaces/ns/widgets/w", merge, `{"metadata":{"labels":{"a":"b"}}}`, 200,
			map[string]string{"metadata.labels": "map[a:b]"}, ""},
		{"JSON patch", "/api/v1/namespaces/ns/pods/p", string(rest.JSONPatch), `[]`, 415, nil, "UnsupportedMediaType"},
		{"apply patch", "/api/v1/namespaces/ns/pods/p", string(rest.ApplyPatch), `{}`, 415, nil, "UnsupportedMediaType"},
		{"not JSON", "/api/v1/namespaces/ns/pods/p", merge, `{`, 400, nil, "BadRequest"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s := New(t, Options{})
			Add(s, rest.Pods, &api.Pod{ObjectMeta: api.ObjectMeta{Namespace: "ns", Name: "p", UID: "uid-p", ResourceVersion: "7", Generation: 1,
				Labels: map[string]string{"app": "web"}, Finalizers: []string{"a", "b"},
				OwnerReferences: []api.OwnerReference{{APIVersion: "v1", Kind: "ConfigMap", Name: "cm", UID: "c1"}}},
				Spec: api.PodSpec{Containers: []api.Container{{Name: "c", Image: "v1"}}}})
			widget, err := api.NewRawObject(map[string]any{"apiVersion": "example.com/v1", "kind": "Widget",
				"metadata": map[string]any{"namespace": "ns", "name": "w"}})
			if err != nil {
				t.Fatal(err)
			}
			Add(s, rest.Resource{Group: "example.com", Version: "v1", Resource: "widgets", Kind: "Widget", Namespaced: true}, widget)
			a := do(t, s, "PATCH", tc.path, tc.pt, tc.patch)
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
}

// TestPatchEndsDeletion: a patch that removes the last finalizer of an
// object being deleted removes the object (ShouldDeleteDuringUpdate).
func TestPatchEndsDeletion(t *testing.T) {
	s := New(t, Options{})
	Add(s, rest.ConfigMaps, &api.ConfigMap{ObjectMeta: api.ObjectMeta{Namespace: "ns", Name: "c", Finalizers: []string{"x"}}})
	if a := do(t, s, "DELETE", "/api/v1/namespaces/ns/configmaps/c", "application/json", `{}`); a.code != 200 || a.str("metadata", "deletionTimestamp") == "" {
		t.Fatalf("delete of a held object: %d %v", a.code, a.body)
	}
	if a := do(t, s, "PATCH", "/api/v1/namespaces/ns/configmaps/c", string(rest.MergePatch), `{"metadata":{"labels":{"l":"v"}}}`); a.code != 200 {
		t.Fatalf("patch %d", a.code)
	}
	if _, ok := Get[*api.ConfigMap](s, rest.ConfigMaps, "ns", "c"); !ok {
		t.Fatal("removed while a finalizer holds it")
	}
	if a := do(t, s, "PATCH", "/api/v1/namespaces/ns/configmaps/c", string(rest.MergePatch), `{"metadata":{"finalizers":null}}`); a.code != 200 {
		t.Fatalf("patch %d", a.code)
	}
	if _, ok := Get[*api.ConfigMap](s, rest.ConfigMaps, "ns", "c"); ok {
		t.Fatal("still there without finalizers")
	}
}
