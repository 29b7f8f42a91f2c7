package resttest

import (
	"errors"
	"slices"
	"testing"
	"time"

	"github.com/kcmlab/kcm/clock"
	"github.com/kcmlab/kcm/kube/api"
	"github.com/kcmlab/kcm/kube/api/decode"
	"github.com/kcmlab/kcm/kube/rest"
)

// TestDelete: preconditions, the garbage collector's finalizers by
// propagation policy, objects held by finalizers, graceful deletion of
// pods on a node.
func TestDelete(t *testing.T) {
	running := &api.Pod{ObjectMeta: api.ObjectMeta{Namespace: "ns", Name: "p", UID: "uid-p", ResourceVersion: "3"},
		Spec: api.PodSpec{NodeName: "n1", TerminationGracePeriodSeconds: i64(20)}, Status: api.PodStatus{Phase: api.PodRunning}}
	unscheduled := &api.Pod{ObjectMeta: api.ObjectMeta{Namespace: "ns", Name: "p", ResourceVersion: "3"}, Status: api.PodStatus{Phase: api.PodPending}}
	finished := &api.Pod{ObjectMeta: api.ObjectMeta{Namespace: "ns", Name: "p", ResourceVersion: "3"},
		Spec: api.PodSpec{NodeName: "n1"}, Status: api.PodStatus{Phase: api.PodSucceeded}}
	defaulted := &api.Pod{ObjectMeta: api.ObjectMeta{Namespace: "ns", Name: "p", ResourceVersion: "3"},
		Spec: api.PodSpec{NodeName: "n1"}, Status: api.PodStatus{Phase: api.PodRunning}}
	held := &api.ConfigMap{ObjectMeta: api.ObjectMeta{Namespace: "ns", Name: "p", UID: "uid-p", ResourceVersion: "3", Generation: 2,
		Finalizers: []string{"example.com/x", FinalizerOrphan}}}
	plain := &api.ConfigMap{ObjectMeta: api.ObjectMeta{Namespace: "ns", Name: "p", UID: "uid-p", ResourceVersion: "3"}}
	for _, tc := range []struct {
		name       string
		obj        api.Object
		res        rest.Resource
		opts       rest.DeleteOptions
		code       int
		reason     string
		gone       bool
		finalizers []string
		deletion   string // deletionTimestamp; "" none
		grace      int64
	}{
		{"plain", plain, rest.ConfigMaps, rest.DeleteOptions{}, 200, "", true, nil, "", 0},
		{"uid precondition met", plain, rest.ConfigMaps, rest.DeleteOptions{Preconditions: &rest.Preconditions{UID: ptr("uid-p"), ResourceVersion: ptr("3")}},
			200, "", true, nil, "", 0},
		{"uid precondition failed", plain, rest.ConfigMaps, rest.DeleteOptions{Preconditions: &rest.Preconditions{UID: ptr("other")}}, 409, "Conflict", false, nil, "", 0},
		{"resourceVersion precondition failed", plain, rest.ConfigMaps, rest.DeleteOptions{Preconditions: &rest.Preconditions{ResourceVersion: ptr("2")}},
			409, "Conflict", false, nil, "", 0},
		{"Background", plain, rest.ConfigMaps, rest.DeleteOptions{PropagationPolicy: rest.PropagationBackground}, 200, "", true, nil, "", 0},
		{"Foreground", plain, rest.ConfigMaps, rest.DeleteOptions{PropagationPolicy: rest.PropagationForeground},
			200, "", false, []string{FinalizerForeground}, "2025-06-01T12:00:00Z", 0},
		{"Orphan", plain, rest.ConfigMaps, rest.DeleteOptions{PropagationPolicy: rest.PropagationOrphan},
			200, "", false, []string{FinalizerOrphan}, "2025-06-01T12:00:00Z", 0},
		{"held by finalizers", held, rest.ConfigMaps, rest.DeleteOptions{},
			200, "", false, []string{"example.com/x", FinalizerOrphan}, "2025-06-01T12:00:00Z", 0},
		{"Background drops the orphan finalizer", held, rest.ConfigMaps, rest.DeleteOptions{PropagationPolicy: rest.PropagationBackground},
			200, "", false, []string{"example.com/x"}, "2025-06-01T12:00:00Z", 0},
		{"Foreground replaces it", held, rest.ConfigMaps, rest.DeleteOptions{PropagationPolicy: rest.PropagationForeground},
			200, "", false, []string{"example.com/x", FinalizerForeground}, "2025-06-01T12:00:00Z", 0},
		{"pod on a node: its grace period", running, rest.Pods, rest.DeleteOptions{}, 200, "", false, nil, "2025-06-01T12:00:20Z", 20},
		{"pod: the option's grace period", running, rest.Pods, rest.DeleteOptions{GracePeriodSeconds: i64(5)}, 200, "", false, nil, "2025-06-01T12:00:05Z", 5},
		{"pod: grace 0 deletes at once", running, rest.Pods, rest.DeleteOptions{GracePeriodSeconds: i64(0)}, 200, "", true, nil, "", 0},
		{"pod: 30 s by default", defaulted, rest.Pods, rest.DeleteOptions{}, 200, "", false, nil, "2025-06-01T12:00:30Z", 30},
		{"unscheduled pod: at once", unscheduled, rest.Pods, rest.DeleteOptions{}, 200, "", true, nil, "", 0},
		{"finished pod: at once", finished, rest.Pods, rest.DeleteOptions{}, 200, "", true, nil, "", 0},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s := New(t, Options{Clock: clock.NewFake(t0)})
			switch o := tc.obj.(type) {
			case *api.Pod:
				Add(s, tc.res, o)
			case *api.ConfigMap:
				Add(s, tc.res, o)
			}
			err := rest.NewResources(s.Client(), tc.res, decode.Raw()).InNamespace("ns").Delete(t.Context(), "p", tc.opts)
			if code := statusOf(err); code != tc.code {
				t.Fatalf("answer %d (%v), want %d", code, err, tc.code)
			}
			left, ok := Get[*api.RawObject](s, tc.res, "ns", "p")
			if ok == tc.gone {
				t.Fatalf("still there: %v, want gone: %v", ok, tc.gone)
			}
			if !ok || tc.code != 200 {
				return
			}
			grace := int64(-1)
			if g := left.DeletionGracePeriodSeconds; g != nil {
				grace = *g
			}
			var deletion string
			if dt := left.DeletionTimestamp; dt != nil {
				deletion = dt.UTC().Format(time.RFC3339)
			}
			if !slices.Equal(left.Finalizers, tc.finalizers) || deletion != tc.deletion || grace != tc.grace {
				t.Fatalf("finalizers %q deletion %q grace %d, want %q %q %d", left.Finalizers, deletion, grace, tc.finalizers, tc.deletion, tc.grace)
			}
		})
	}
}

func statusOf(err error) int {
	if err == nil {
		return 200
	}
	var se *rest.StatusError
	if errors.As(err, &se) {
		return int(se.Status.Code)
	}
	return -1
}

// TestDeleteTwice: a second delete of an object in its grace period
// shortens it, never lengthens it; a delete of an object already held
// changes nothing (no new resourceVersion); deleting a generation-counted
// object bumps its generation once.
func TestDeleteTwice(t *testing.T) {
	clk := clock.NewFake(t0)
	s := New(t, Options{Clock: clk})
	Add(s, rest.Pods, &api.Pod{ObjectMeta: api.ObjectMeta{Namespace: "ns", Name: "p", ResourceVersion: "3", Generation: 1},
		Spec: api.PodSpec{NodeName: "n1", TerminationGracePeriodSeconds: i64(30)}, Status: api.PodStatus{Phase: api.PodRunning}})
	pods := rest.NewResources(s.Client(), rest.Pods, decode.Typed[api.Pod]()).InNamespace("ns")
	for _, g := range []int64{30, 60, 10} {
		if err := pods.Delete(t.Context(), "p", rest.DeleteOptions{GracePeriodSeconds: i64(g)}); err != nil {
			t.Fatal(err)
		}
	}
	p, _ := Get[*api.Pod](s, rest.Pods, "ns", "p")
	if *p.DeletionGracePeriodSeconds != 10 || !p.DeletionTimestamp.Equal(t0.Add(10*time.Second)) || p.Generation != 2 || p.ResourceVersion != "5" {
		t.Fatalf("grace %d deletion %v generation %d rv %s", *p.DeletionGracePeriodSeconds, p.DeletionTimestamp, p.Generation, p.ResourceVersion)
	}
	// The kubelet's delete when the containers stopped.
	if err := pods.Delete(t.Context(), "p", rest.DeleteOptions{GracePeriodSeconds: i64(0)}); err != nil {
		t.Fatal(err)
	}
	if _, ok := Get[*api.Pod](s, rest.Pods, "ns", "p"); ok {
		t.Fatal("a pod deleted with grace 0 stays")
	}

	Add(s, rest.ConfigMaps, &api.ConfigMap{ObjectMeta: api.ObjectMeta{Namespace: "ns", Name: "c", ResourceVersion: "9", Finalizers: []string{"x"}}})
	cms := rest.NewResources(s.Client(), rest.ConfigMaps, decode.Typed[api.ConfigMap]()).InNamespace("ns")
	for range 2 {
		if err := cms.Delete(t.Context(), "c", rest.DeleteOptions{}); err != nil {
			t.Fatal(err)
		}
	}
	if c, _ := Get[*api.ConfigMap](s, rest.ConfigMaps, "ns", "c"); c.ResourceVersion != "10" {
		t.Fatalf("resourceVersion %s after two deletes of a held object, want 10", c.ResourceVersion)
	}
}

// TestNamespaceDeletion: a namespace is held by spec.finalizers too, goes
// Terminating, and is removed by the finalize that empties them.
func TestNamespaceDeletion(t *testing.T) {
	s := New(t, Options{Clock: clock.NewFake(t0)})
	Add(s, rest.Namespaces, &api.Namespace{ObjectMeta: api.ObjectMeta{Name: "team", ResourceVersion: "1"},
		Spec: api.NamespaceSpec{Finalizers: []string{"kubernetes"}}, Status: api.NamespaceStatus{Phase: api.NamespaceActive}})
	nss := rest.NewResources(s.Client(), rest.Namespaces, decode.Typed[api.Namespace]())
	if err := nss.Delete(t.Context(), "team", rest.DeleteOptions{}); err != nil {
		t.Fatal(err)
	}
	ns, ok := Get[*api.Namespace](s, rest.Namespaces, "", "team")
	if !ok || ns.Status.Phase != api.NamespaceTerminating || ns.DeletionTimestamp == nil {
		t.Fatalf("deleted namespace %+v %v", ns, ok)
	}
	ns.Spec.Finalizers = nil
	if _, err := nss.UpdateSubresource(t.Context(), ns, "finalize"); err != nil {
		t.Fatal(err)
	}
	if _, ok := Get[*api.Namespace](s, rest.Namespaces, "", "team"); ok {
		t.Fatal("a finalized namespace stays")
	}
}

// TestDeleteCollection: every object the selectors match is deleted, each
// by the rules of one delete.
func TestDeleteCollection(t *testing.T) {
	s := New(t, Options{})
	mk := func(name, app string, fins ...string) *api.ConfigMap {
		return &api.ConfigMap{ObjectMeta: api.ObjectMeta{Namespace: "ns", Name: name, Labels: map[string]string{"app": app}, Finalizers: fins}}
	}
	other := mk("d", "web")
	other.Namespace = "other"
	Add(s, rest.ConfigMaps, mk("a", "web"), mk("b", "web", "x"), mk("c", "db"), other)
	cms := rest.NewResources(s.Client(), rest.ConfigMaps, decode.Raw()).InNamespace("ns")
	if err := cms.DeleteCollection(t.Context(), rest.DeleteOptions{}, rest.ListOptions{LabelSelector: "app=web"}); err != nil {
		t.Fatal(err)
	}
	var left []string
	for _, o := range List[*api.RawObject](s, rest.ConfigMaps, "") {
		left = append(left, o.Key())
	}
	if !slices.Equal(left, []string{"ns/b", "ns/c", "other/d"}) {
		t.Fatalf("left %q", left)
	}
	if err := cms.DeleteCollection(t.Context(), rest.DeleteOptions{}, rest.ListOptions{LabelSelector: "=="}); statusOf(err) != 400 {
		t.Fatalf("bad selector: %v", err)
	}
	if err := rest.NewResources(s.Client(), rest.ConfigMaps, decode.Raw()).InNamespace("ns").Delete(t.Context(), "zz", rest.DeleteOptions{}); statusOf(err) != 404 {
		t.Fatalf("delete missing: %v", err)
	}
}
