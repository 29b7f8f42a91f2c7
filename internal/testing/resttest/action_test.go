package resttest

import (
	"strings"
	"testing"

	"github.com/kcmlab/kcm/kube/api"
	"github.com/kcmlab/kcm/kube/api/decode"
	"github.com/kcmlab/kcm/kube/rest"
)

// TestActionLines: every request kcm's client makes, as its Action and
// its line.
func TestActionLines(t *testing.T) {
	s := New(t, Options{})
	Add(s, rest.ReplicaSets, rsNamed("web", "5"))
	Add(s, rest.Namespaces, &api.Namespace{ObjectMeta: api.ObjectMeta{Name: "team"}})
	ctx := t.Context()
	rss := replicaSets(s)
	raw := rest.NewResources(s.Client(), rest.ReplicaSets, decode.Raw()).InNamespace("ns")
	pods := rest.NewResources(s.Client(), rest.Pods, decode.Typed[api.Pod]()).InNamespace("ns")
	nss := rest.NewResources(s.Client(), rest.Namespaces, decode.Typed[api.Namespace]())
	rs, _ := rss.Get(ctx, "web")
	_, _ = rss.List(ctx, rest.ListOptions{LabelSelector: "app=web", FieldSelector: "metadata.name=web"})
	_, _ = pods.Create(ctx, &api.Pod{ObjectMeta: api.ObjectMeta{GenerateName: "web-"}})
	_, _ = rss.Create(ctx, &api.ReplicaSet{ObjectMeta: api.ObjectMeta{Name: "db"}})
	_, _ = rss.UpdateStatus(ctx, rs)
	ns, _ := nss.Get(ctx, "team")
	_, _ = nss.UpdateSubresource(ctx, ns, "finalize")
	_, _ = raw.Patch(ctx, "web", rest.StrategicMergePatch, []byte(`{"metadata": {"labels": {"a": "b"}}}`), rest.PatchOptions{})
	_ = rss.Delete(ctx, "db", rest.DeleteOptions{Preconditions: &rest.Preconditions{UID: ptr("u"), ResourceVersion: ptr("9")},
		PropagationPolicy: rest.PropagationForeground, GracePeriodSeconds: i64(0)})
	_ = raw.DeleteCollection(ctx, rest.DeleteOptions{PropagationPolicy: rest.PropagationBackground}, rest.ListOptions{})
	_, _ = rest.NewResources(s.Client(), rest.Nodes, decode.Raw()).List(ctx, rest.ListOptions{})
	want := []string{
		"get replicasets ns/web",
		"list replicasets ns/ labelSelector=app=web fieldSelector=metadata.name=web",
		"create pods ns/web-*",
		"create replicasets ns/db",
		"update replicasets/status ns/web",
		"get namespaces team",
		"update namespaces/finalize team",
		`patch replicasets ns/web strategic {"metadata":{"labels":{"a":"b"}}}`,
		"delete replicasets ns/db uid=u rv=9 policy=Foreground grace=0",
		"deletecollection replicasets ns/ policy=Background",
		"list nodes",
	}
	got := s.Actions()
	if lines := Lines(got); strings.Join(lines, "\n") != strings.Join(want, "\n") {
		t.Fatalf("lines:\n%s\nwant:\n%s", strings.Join(lines, "\n"), strings.Join(want, "\n"))
	}
	if a := got[7]; a.Group != "apps" || a.PatchType != rest.StrategicMergePatch || a.Object()["metadata"] == nil {
		t.Fatalf("patch action %+v", a)
	}
	if d := got[8].DeleteOptions(); d.PropagationPolicy != rest.PropagationForeground || *d.Preconditions.UID != "u" {
		t.Fatalf("delete options %+v", d)
	}
	if created, err := Decode[*api.ReplicaSet](got[3]); err != nil || created.Name != "db" {
		t.Fatalf("decoded create %v %v", created, err)
	}
	if a := got[4]; a.Subresource != "status" || a.Namespace != "ns" || a.Name != "web" {
		t.Fatalf("status action %+v", a)
	}
	if n := len(s.Take()); n != len(want) || len(s.Actions()) != 0 {
		t.Fatalf("take %d, then %d left", n, len(s.Actions()))
	}
}

// TestSelect: a pattern names the first words of the lines it selects.
func TestSelect(t *testing.T) {
	acts := []Action{
		{Verb: "create", Resource: "pods", Namespace: "ns", Body: []byte(`{"metadata":{"generateName":"web-"}}`)},
		{Verb: "delete", Resource: "pods", Namespace: "ns", Name: "web-1"},
		{Verb: "delete", Resource: "pods", Namespace: "ns", Name: "web-10"},
		{Verb: "update", Resource: "replicasets", Subresource: "status", Namespace: "ns", Name: "web"},
	}
	for pattern, want := range map[string]int{
		"create pods": 1, "delete pods": 2, "delete pods ns/web-1": 1, "delete": 2, "update replicasets": 0,
		"update replicasets/status ns/web": 1, "delete pods ns/web": 0, "": 0,
	} {
		if got := len(Select(acts, pattern)); got != want {
			t.Errorf("Select %q: %d, want %d", pattern, got, want)
		}
	}
	if a, ok := Last(acts, "delete pods"); !ok || a.Name != "web-10" {
		t.Errorf("Last: %v %v", a, ok)
	}
	if _, ok := Last(acts, "patch"); ok {
		t.Error("Last of nothing")
	}
}

// TestExpect: a match passes silently; a mismatch reports a diff that
// names the missing and the unexpected lines.
func TestExpect(t *testing.T) {
	acts := []Action{
		{Verb: "get", Resource: "namespaces", Name: "ns"},
		{Verb: "patch", Resource: "pods", Namespace: "ns", Name: "p", PatchType: rest.MergePatch, Body: []byte(`{"a":1}`)},
		{Verb: "delete", Resource: "pods", Namespace: "ns", Name: "q"},
	}
	ok := &fakeTB{}
	if !Expect(ok, acts, "get namespaces ns", "patch pods ns/p", "delete pods ns/q") || len(ok.errors) != 0 {
		t.Fatalf("a match failed: %q", ok.errors)
	}
	if !Expect(ok, acts, "get namespaces ns", `patch pods ns/p merge {"a":1}`, "delete pods ns/q") {
		t.Fatal("a match with the body failed")
	}
	if !ExpectUnordered(ok, acts, "delete pods ns/q", "get namespaces ns", "patch pods ns/p merge") || len(ok.errors) != 0 {
		t.Fatalf("an unordered match failed: %q", ok.errors)
	}
	for _, want := range [][]string{
		{"get namespaces ns", `patch pods ns/p merge {"a":2}`, "delete pods ns/q"},
		{"get namespaces ns", "delete pods ns/q"},
		{"get namespaces ns", "patch pods ns/p", "delete pods ns/q", "delete pods ns/r"},
		{"get namespaces n"},
	} {
		bad := &fakeTB{}
		if Expect(bad, acts, want...) || len(bad.errors) != 1 {
			t.Fatalf("%q matched", want)
		}
	}
	bad := &fakeTB{}
	Expect(bad, acts, "get namespaces ns", "update pods ns/p", "delete pods ns/q")
	want := "actions differ (-want +got):\n" +
		"  get namespaces ns\n" +
		`+ patch pods ns/p merge {"a":1}` + "\n" +
		"- update pods ns/p\n" +
		"  delete pods ns/q\n"
	if bad.errors[0] != want {
		t.Fatalf("report:\n%s\nwant:\n%s", bad.errors[0], want)
	}
	if ExpectUnordered(bad, acts, "get namespaces ns") {
		t.Fatal("an unordered mismatch passed")
	}
}
