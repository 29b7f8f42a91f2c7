package resttest

import (
	"errors"
	"fmt"
	"slices"
	"sync"
	"testing"

	"github.com/kcmlab/kcm/kube/api"
	"github.com/kcmlab/kcm/kube/api/decode"
	"github.com/kcmlab/kcm/kube/rest"
)

// TestFaultCounts: a fault fires by verb, resource, subresource, object
// and count; a removed one stops; a failed request is still recorded.
func TestFaultCounts(t *testing.T) {
	pods := On("create", "pods")
	for _, tc := range []struct {
		name  string
		match Match
		fails []int // which of 5 pod creates fail (from 1)
	}{
		{"every one", pods, []int{1, 2, 3, 4, 5}},
		{"the 2nd", pods.Nth(2), []int{2}},
		{"from the 4th", pods.From(4), []int{4, 5}},
		{"the first 2", pods.Times(2), []int{1, 2}},
		{"any verb", On("", "pods"), []int{1, 2, 3, 4, 5}},
		{"another verb", On("update", "pods"), nil},
		{"another resource", On("create", "configmaps"), nil},
		{"a subresource only", On("create", "pods/status"), nil},
		{"one object", pods.Named("ns/p3"), []int{3}},
		{"one object, its 2nd create", pods.Named("ns/p3").Nth(2), nil},
		{"another namespace", pods.Named("other/p3"), nil},
		{"everything", On("", ""), []int{1, 2, 3, 4, 5}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s := New(t, Options{})
			s.Fail(tc.match, Failure(500, "InternalError", "boom"))
			c := rest.NewResources(s.Client(), rest.Pods, decode.Typed[api.Pod]()).InNamespace("ns")
			var failed []int
			for i := 1; i <= 5; i++ {
				_, err := c.Create(t.Context(), &api.Pod{ObjectMeta: api.ObjectMeta{Name: fmt.Sprintf("p%d", i)}})
				if err != nil {
					if !errors.Is(err, rest.ErrServerError) || err.(*rest.StatusError).Status.Message != "boom" {
						t.Fatalf("create %d: %v", i, err)
					}
					failed = append(failed, i)
				}
			}
			if !slices.Equal(failed, tc.fails) {
				t.Fatalf("failed %v, want %v", failed, tc.fails)
			}
			if n := len(s.Actions()); n != 5 {
				t.Fatalf("%d actions recorded, want 5", n)
			}
			if n := len(List[*api.Pod](s, rest.Pods, "ns")); n != 5-len(tc.fails) {
				t.Fatalf("%d pods stored", n)
			}
		})
	}
}

// TestInterceptors: interceptors run in order and see the action; one may
// change the objects and let the action go on, answer NoOp (the server
// says yes and does nothing), or fail it with any error; removing one
// stops it.
func TestInterceptors(t *testing.T) {
	s := New(t, Options{})
	Add(s, rest.ConfigMaps, &api.ConfigMap{ObjectMeta: api.ObjectMeta{Namespace: "ns", Name: "c", ResourceVersion: "1"}})
	cms := rest.NewResources(s.Client(), rest.ConfigMaps, decode.Typed[api.ConfigMap]()).InNamespace("ns")
	var mu sync.Mutex // the interceptors run in the server's goroutines
	var seen []string
	s.Intercept(On("", "configmaps"), func(a Action) error {
		mu.Lock()
		defer mu.Unlock()
		seen = append(seen, "first "+a.Verb)
		return nil
	})
	// Someone else writes first: the update conflicts.
	s.Intercept(On("update", "configmaps").Nth(1), func(Action) error {
		Add(s, rest.ConfigMaps, &api.ConfigMap{ObjectMeta: api.ObjectMeta{Namespace: "ns", Name: "c", ResourceVersion: "7"}})
		return nil
	})
	stale := &api.ConfigMap{ObjectMeta: api.ObjectMeta{Namespace: "ns", Name: "c", ResourceVersion: "1"}, Data: map[string]string{"k": "v"}}
	if _, err := cms.Update(t.Context(), stale); !rest.IsConflict(err) {
		t.Fatalf("update after another write: %v", err)
	}
	stopNoOp := s.Intercept(On("delete", "configmaps").Named("ns/c"), func(Action) error { return NoOp })
	if err := cms.Delete(t.Context(), "c", rest.DeleteOptions{}); err != nil {
		t.Fatal(err)
	}
	if _, ok := Get[*api.ConfigMap](s, rest.ConfigMaps, "ns", "c"); !ok {
		t.Fatal("NoOp deleted")
	}
	created, err := cms.Create(t.Context(), &api.ConfigMap{ObjectMeta: api.ObjectMeta{Name: "c"}})
	if !rest.IsAlreadyExists(err) || created != nil {
		t.Fatalf("create: %v", err)
	}
	stopNoOp()
	s.Intercept(On("get", "configmaps"), func(Action) error { return errors.New("disk on fire") })
	if _, err := cms.Get(t.Context(), "c"); !errors.Is(err, rest.ErrServerError) || err.(*rest.StatusError).Status.Message != "disk on fire" {
		t.Fatalf("get: %v", err)
	}
	if err := cms.Delete(t.Context(), "c", rest.DeleteOptions{}); err != nil {
		t.Fatal(err)
	}
	if _, ok := Get[*api.ConfigMap](s, rest.ConfigMaps, "ns", "c"); ok {
		t.Fatal("the delete after the NoOp was removed did nothing")
	}
	mu.Lock()
	defer mu.Unlock()
	if want := []string{"first update", "first delete", "first create", "first get", "first delete"}; !slices.Equal(seen, want) {
		t.Fatalf("seen %q, want %q", seen, want)
	}
}

// TestNoOpAnswers: NoOp answers each verb as the server would have,
// without changing anything.
func TestNoOpAnswers(t *testing.T) {
	s := New(t, Options{})
	Add(s, rest.ConfigMaps, &api.ConfigMap{ObjectMeta: api.ObjectMeta{Namespace: "ns", Name: "c", ResourceVersion: "4"}, Data: map[string]string{"k": "v"}})
	s.Intercept(On("", ""), func(Action) error { return NoOp })
	for _, tc := range []struct {
		method, path, body string
		code               int
		kind, name         string
	}{
		{"GET", "/api/v1/namespaces/ns/configmaps/c", "", 200, "ConfigMap", "c"},
		{"PUT", "/api/v1/namespaces/ns/configmaps/c", `{"metadata":{"name":"c"},"data":{"k":"w"}}`, 200, "ConfigMap", "c"},
		{"PATCH", "/api/v1/namespaces/ns/configmaps/zz", `{}`, 200, "", ""},
		{"POST", "/api/v1/namespaces/ns/configmaps", `{"kind":"ConfigMap","metadata":{"name":"new"}}`, 201, "ConfigMap", "new"},
		{"POST", "/api/v1/namespaces/ns/configmaps", `{`, 400, "Status", ""},
		{"GET", "/api/v1/namespaces/ns/configmaps", "", 200, "List", ""},
		{"DELETE", "/api/v1/namespaces/ns/configmaps", "", 200, "Status", ""},
	} {
		ct := "application/json"
		if tc.method == "PATCH" {
			ct = string(rest.MergePatch)
		}
		a := do(t, s, tc.method, tc.path, ct, tc.body)
		if a.code != tc.code || a.str("kind") != tc.kind || a.str("metadata", "name") != tc.name {
			t.Errorf("%s %s: %d %s %s, want %d %s %s", tc.method, tc.path, a.code, a.str("kind"), a.str("metadata", "name"), tc.code, tc.kind, tc.name)
		}
	}
	c, _ := Get[*api.ConfigMap](s, rest.ConfigMaps, "ns", "c")
	if c.ResourceVersion != "4" || c.Data["k"] != "v" || len(List[*api.ConfigMap](s, rest.ConfigMaps, "")) != 1 {
		t.Fatalf("NoOp changed the objects: %+v", c)
	}
}
