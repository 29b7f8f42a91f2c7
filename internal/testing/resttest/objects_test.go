package resttest

import (
	"strings"
	"testing"

	"github.com/kcmlab/kcm/kube/api"
	"github.com/kcmlab/kcm/kube/api/decode"
	"github.com/kcmlab/kcm/kube/labels"
	"github.com/kcmlab/kcm/kube/rest"
)

// TestAddKeepsUnmodelledFields: an object decoded from JSON is stored with
// the fields kcm's types do not model, with its changes since, as an
// Update of it would send it.
func TestAddKeepsUnmodelledFields(t *testing.T) {
	s := New(t, Options{})
	rs, err := decode.Typed[api.ReplicaSet]().Decode([]byte(`{"metadata":{"namespace":"ns","name":"web","resourceVersion":"3"},` +
		`"spec":{"replicas":1,"future":{"x":1}}}`))
	if err != nil {
		t.Fatal(err)
	}
	rs.Spec.Replicas = i32(4)
	Add(s, rest.ReplicaSets, rs, nil)
	a := do(t, s, "GET", rsPath+"/web", "", "")
	if a.str("spec", "future", "x") != "1" || a.str("spec", "replicas") != "4" || a.str("apiVersion") != "apps/v1" || a.str("kind") != "ReplicaSet" ||
		a.str("metadata", "resourceVersion") != "3" || a.str("metadata", "uid") != "uid-1" || a.str("metadata", "creationTimestamp") != "" {
		t.Fatalf("stored %v", a.body)
	}
	if got, ok := Get[*api.ReplicaSet](s, rest.ReplicaSets, "ns", "web"); !ok || !strings.Contains(string(got.Raw()), `"future"`) {
		t.Fatalf("Get %v", ok)
	}
	Replace(s, rest.ReplicaSets, rsNamed("other", ""))
	if names := List[*api.ReplicaSet](s, rest.ReplicaSets, ""); len(names) != 1 || names[0].Name != "other" || names[0].ResourceVersion != "4" {
		t.Fatalf("after Replace %v", names)
	}
	if !s.Remove(rest.ReplicaSets, "ns", "other") || s.Remove(rest.ReplicaSets, "ns", "other") {
		t.Fatal("Remove")
	}
	if len(s.Actions()) != 1 {
		t.Fatalf("actions %q: Add, Get, List, Replace and Remove record none", Lines(s.Actions()))
	}
}

// TestListers: a lister from objects has the informers' indexes; one from
// the server holds what it holds now.
func TestListers(t *testing.T) {
	mk := func(ns, name, app string) *api.Pod {
		return &api.Pod{ObjectMeta: api.ObjectMeta{Namespace: ns, Name: name, Labels: map[string]string{"app": app}}}
	}
	l := Lister("pods", mk("a", "p1", "web"), mk("a", "p2", "db"), mk("b", "p3", "web"))
	sel, _ := labels.ParseSelector("app=web")
	if got := l.Namespace("a").List(sel); len(got) != 1 || got[0].Name != "p1" {
		t.Fatalf("a: %v", got)
	}
	if byLabel, err := l.ByIndex("label", "app=web"); err != nil || len(byLabel) != 2 {
		t.Fatalf("label index %v %v", byLabel, err)
	}
	if _, err := l.Namespace("a").Get("p3"); !rest.IsNotFound(err) {
		t.Fatalf("get from another namespace: %v", err)
	}

	s := New(t, Options{})
	Add(s, rest.Pods, mk("a", "p1", "web"))
	if _, err := rest.NewResources(s.Client(), rest.Pods, decode.Typed[api.Pod]()).InNamespace("a").Create(t.Context(), mk("", "p2", "web")); err != nil {
		t.Fatal(err)
	}
	if got := ListerFrom[*api.Pod](s, rest.Pods).List(sel); len(got) != 2 {
		t.Fatalf("from the server: %v", got)
	}
}
