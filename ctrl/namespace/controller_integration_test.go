//go:build !nocluster

package namespace

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/kcmlab/kcm/internal/testing/ctrltest"
	"github.com/kcmlab/kcm/kube/api"
	"github.com/kcmlab/kcm/kube/api/decode"
	"github.com/kcmlab/kcm/kube/rest"
	"github.com/kcmlab/kcm/testenv"
)

// bound is how long the tests wait for any one thing the controller does:
// the 5 s grace period, a pass, and (in the forbidden test) a retry after
// backoff, on a loaded machine.
const bound = 3 * time.Minute

func adminClient(t *testing.T) (*testenv.Cluster, *rest.Client) {
	t.Helper()
	cl := testenv.Shared(t)
	c, err := rest.NewClient(cl.ManagerConfig())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(c.CloseIdleConnections)
	return cl, c
}

// create makes one object from JSON in namespace ns.
func create(t *testing.T, ctx context.Context, c *rest.Client, res rest.Resource, ns, body string) {
	t.Helper()
	obj, err := decode.Raw().Decode([]byte(body))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := rest.NewResources(c, res, decode.Raw()).InNamespace(ns).Create(ctx, obj); err != nil {
		t.Fatalf("create %s in %s: %v", res, ns, err)
	}
}

// count lists res in ns.
func count(t *testing.T, ctx context.Context, c *rest.Client, res rest.Resource, ns string) int {
	t.Helper()
	l, err := rest.NewResources(c, res, decode.Raw()).InNamespace(ns).List(ctx, rest.ListOptions{})
	if err != nil {
		t.Fatalf("list %s in %s: %v", res, ns, err)
	}
	return len(l.Items)
}

// watchNamespace follows namespace name until done says stop, and
// returns the last state seen (nil when it was deleted).
func watchNamespace(t *testing.T, ctx context.Context, c *rest.Client, name, what string,
	done func(ns *api.Namespace, deleted bool) bool) *api.Namespace {
	t.Helper()
	nss := rest.NewResources(c, rest.Namespaces, decode.Typed[api.Namespace]())
	sel := "metadata.name=" + name
	list, err := nss.List(ctx, rest.ListOptions{FieldSelector: sel})
	if err != nil {
		t.Fatal(err)
	}
	var last *api.Namespace
	if len(list.Items) == 1 {
		last = list.Items[0]
		if done(last, false) {
			return last
		}
	} else if done(nil, true) {
		return nil
	}
	w, err := nss.Watch(ctx, rest.WatchOptions{ListOptions: rest.ListOptions{
		FieldSelector: sel, ResourceVersion: list.ResourceVersion, TimeoutSeconds: int64(bound / time.Second)}})
	if err != nil {
		t.Fatal(err)
	}
	defer w.Close()
	for {
		ev, err := w.Next()
		if err != nil {
			t.Fatalf("waiting for %s: %v; last state: %s", what, err, describe(last))
		}
		if ev.Type == rest.Deleted {
			if done(ev.Object, true) {
				return ev.Object
			}
			continue
		}
		last = ev.Object
		if done(last, false) {
			return last
		}
	}
}

// describe renders a namespace's phase and conditions for failures.
func describe(ns *api.Namespace) string {
	if ns == nil {
		return "<none>"
	}
	b, _ := json.Marshal(ns.Status)
	return fmt.Sprintf("spec.finalizers %q status %s", ns.Spec.Finalizers, b)
}

func conditionOf(ns *api.Namespace, typ string) *api.NamespaceCondition {
	if ns == nil {
		return nil
	}
	return find(ns.Status.Conditions, typ)
}

// TestDeletesNamespaceContent runs the controller the way the manager
// does (built by its descriptor, its informer started, its loop run) on
// kube-apiserver, deletes a namespace holding a Deployment, a ReplicaSet,
// pods, ConfigMaps, Secrets and custom resources, and checks that all of
// it goes and that the namespace disappears after — its last state before
// it went says all content was removed.
func TestDeletesNamespaceContent(t *testing.T) {
	cl, admin := adminClient(t)
	ctx, cancel := context.WithTimeout(context.Background(), bound)
	defer cancel()
	widgets := testenv.InstallCRD(t, ctx, admin, "nscontent.example.com", "Widget")
	ctrltest.Start(t, ctx, admin, Descriptor(), 2)

	ns := cl.Namespace(t)
	create(t, ctx, admin, rest.Deployments, ns, `{"apiVersion":"apps/v1","kind":"Deployment","metadata":{"name":"web"},
		"spec":{"replicas":2,"selector":{"matchLabels":{"app":"web"}},
		"template":{"metadata":{"labels":{"app":"web"}},"spec":{"containers":[{"name":"web","image":"web:1"}]}}}}`)
	create(t, ctx, admin, rest.ReplicaSets, ns, `{"apiVersion":"apps/v1","kind":"ReplicaSet","metadata":{"name":"rs"},
		"spec":{"replicas":2,"selector":{"matchLabels":{"app":"rs"}},
		"template":{"metadata":{"labels":{"app":"rs"}},"spec":{"containers":[{"name":"web","image":"web:1"}]}}}}`)
	for i := range 3 {
		create(t, ctx, admin, rest.Pods, ns, fmt.Sprintf(`{"apiVersion":"v1","kind":"Pod","metadata":{"name":"p%d","labels":{"app":"rs"}},
			"spec":{"containers":[{"name":"c","image":"web:1"}]}}`, i))
		create(t, ctx, admin, rest.ConfigMaps, ns, fmt.Sprintf(`{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"cm%d"},"data":{"k":"v"}}`, i))
		create(t, ctx, admin, rest.Secrets, ns, fmt.Sprintf(`{"apiVersion":"v1","kind":"Secret","metadata":{"name":"s%d"},"stringData":{"k":"v"}}`, i))
		create(t, ctx, admin, widgets, ns, fmt.Sprintf(`{"apiVersion":"nscontent.example.com/v1","kind":"Widget","metadata":{"name":"w%d"},"spec":{"size":%d}}`, i, i))
	}
	content := []rest.Resource{rest.Deployments, rest.ReplicaSets, rest.Pods, rest.ConfigMaps, rest.Secrets, widgets, rest.ServiceAccounts}
	for _, res := range content {
		if count(t, ctx, admin, res, ns) == 0 {
			t.Fatalf("no %s in %s before the deletion", res, ns)
		}
	}

	nss := rest.NewResources(admin, rest.Namespaces, decode.Typed[api.Namespace]())
	if err := nss.Delete(ctx, ns, rest.DeleteOptions{}); err != nil {
		t.Fatal(err)
	}
	var lastSeen *api.Namespace
	watchNamespace(t, ctx, admin, ns, "the namespace to disappear", func(n *api.Namespace, deleted bool) bool {
		if !deleted {
			lastSeen = n
		}
		return deleted
	})
	for _, res := range content {
		if n := count(t, ctx, admin, res, ns); n != 0 {
			t.Errorf("%d %s left after the namespace went", n, res)
		}
	}
	// The status written before the finalize: everything removed.
	for typ, want := range allFalse {
		c := conditionOf(lastSeen, typ)
		if c == nil || string(c.Status)+" "+c.Reason+": "+c.Message != want {
			t.Errorf("%s before the namespace went: %+v; want %s", typ, c, want)
		}
	}
}

// TestForbiddenTypeKeepsNamespaceTerminating runs the controller as a
// ServiceAccount with kube-controller-manager's namespace-controller
// rights less delete and deletecollection in one API group (a CRD's). A
// namespace holding objects of that group and a ConfigMap is deleted: the
// ConfigMap goes, the namespace stays Terminating with
// NamespaceDeletionContentFailure saying who may not do what, and once the
// rights are granted it goes.
func TestForbiddenTypeKeepsNamespaceTerminating(t *testing.T) {
	cl, admin := adminClient(t)
	ctx, cancel := context.WithTimeout(context.Background(), 2*bound)
	defer cancel()
	const group = "nsforbidden.example.com"
	gadgets := testenv.InstallCRD(t, ctx, admin, group, "Gadget")

	// The restricted account: every group but the CRD's may be emptied.
	home := cl.Namespace(t)
	const sa = "restricted-namespace-controller"
	create(t, ctx, admin, rest.ServiceAccounts, home, `{"apiVersion":"v1","kind":"ServiceAccount","metadata":{"name":"`+sa+`"}}`)
	resources, err := admin.ServerPreferredResources(ctx)
	if err != nil {
		t.Fatal(err)
	}
	var groups []any
	for _, r := range resources {
		if r.Group != group && !slices.Contains(groups, any(r.Group)) {
			groups = append(groups, r.Group)
		}
	}
	role := func(deletable []any) string {
		b, _ := json.Marshal(map[string]any{
			"apiVersion": "rbac.authorization.k8s.io/v1", "kind": "ClusterRole",
			"metadata": map[string]any{"name": "kcm-test-" + sa},
			"rules": []any{
				map[string]any{"apiGroups": []any{""}, "resources": []any{"namespaces"}, "verbs": []any{"get", "list", "watch", "delete"}},
				map[string]any{"apiGroups": []any{""}, "resources": []any{"namespaces/finalize", "namespaces/status"}, "verbs": []any{"update"}},
				map[string]any{"apiGroups": []any{"*"}, "resources": []any{"*"}, "verbs": []any{"get", "list", "watch"}},
				map[string]any{"apiGroups": deletable, "resources": []any{"*"}, "verbs": []any{"delete", "deletecollection"}},
			},
		})
		return string(b)
	}
	roles := rest.NewResources(admin, clusterRoles, decode.Raw())
	create(t, ctx, admin, clusterRoles, "", role(groups))
	t.Cleanup(func() { _ = roles.Delete(context.Background(), "kcm-test-"+sa, rest.DeleteOptions{}) })
	create(t, ctx, admin, clusterRoleBindings, "", `{"apiVersion":"rbac.authorization.k8s.io/v1","kind":"ClusterRoleBinding",
		"metadata":{"name":"kcm-test-`+sa+`"},
		"roleRef":{"apiGroup":"rbac.authorization.k8s.io","kind":"ClusterRole","name":"kcm-test-`+sa+`"},
		"subjects":[{"kind":"ServiceAccount","name":"`+sa+`","namespace":"`+home+`"}]}`)
	t.Cleanup(func() {
		_ = rest.NewResources(admin, clusterRoleBindings, decode.Raw()).Delete(context.Background(), "kcm-test-"+sa, rest.DeleteOptions{})
	})
	cfg := cl.ManagerConfig()
	cfg.Credentials = rest.StaticToken(serviceAccountToken(t, ctx, admin, home, sa))
	restricted, err := rest.NewClient(cfg)
	if err != nil {
		t.Fatal(err)
	}
	defer restricted.CloseIdleConnections()
	ctrltest.Start(t, ctx, restricted, Descriptor(), 2)

	ns := cl.Namespace(t)
	create(t, ctx, admin, gadgets, ns, `{"apiVersion":"`+group+`/v1","kind":"Gadget","metadata":{"name":"g"}}`)
	create(t, ctx, admin, rest.ConfigMaps, ns, `{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"cm"}}`)
	nss := rest.NewResources(admin, rest.Namespaces, decode.Typed[api.Namespace]())
	if err := nss.Delete(ctx, ns, rest.DeleteOptions{}); err != nil {
		t.Fatal(err)
	}
	wantFailure := fmt.Sprintf("Failed to delete all resource types, 1 remaining: gadgets.%s is forbidden: "+
		`User "system:serviceaccount:%s:%s" cannot deletecollection resource "gadgets" in API group "%s" in the namespace "%s"`,
		group, home, sa, group, ns)
	stuck := watchNamespace(t, ctx, admin, ns, "NamespaceDeletionContentFailure", func(n *api.Namespace, deleted bool) bool {
		if deleted {
			t.Fatalf("the namespace went although its gadgets could not be deleted")
		}
		c := conditionOf(n, ConditionContentFailure)
		return c != nil && c.Status == api.ConditionTrue
	})
	want := map[string]string{
		ConditionDiscoveryFailure:           "False ResourcesDiscovered: All resources successfully discovered",
		ConditionGroupVersionParsingFailure: "False ParsedGroupVersions: All legacy kube types successfully parsed",
		ConditionContentFailure:             "True ContentDeletionFailed: " + wantFailure,
		ConditionContentRemaining:           "False ContentRemoved: All content successfully removed",
		ConditionFinalizersRemaining:        "False ContentHasNoFinalizers: All content-preserving finalizers finished",
	}
	for typ, w := range want {
		c := conditionOf(stuck, typ)
		if c == nil || string(c.Status)+" "+c.Reason+": "+c.Message != w {
			t.Errorf("%s:\n got %+v\nwant %s", typ, c, w)
		}
	}
	if stuck.Status.Phase != api.NamespaceTerminating || !slices.Contains(stuck.Spec.Finalizers, api.FinalizerKubernetes) {
		t.Errorf("namespace %s: want Terminating with its finalizer", describe(stuck))
	}
	if n := count(t, ctx, admin, rest.ConfigMaps, ns); n != 0 {
		t.Errorf("%d ConfigMaps left: the permitted types must be emptied", n)
	}
	if n := count(t, ctx, admin, gadgets, ns); n != 1 {
		t.Errorf("%d gadgets, want the forbidden one still there", n)
	}

	// Granted: the next retry (backoff, at most a minute) finishes it.
	obj, err := decode.Raw().Decode([]byte(role(append(groups, group))))
	if err != nil {
		t.Fatal(err)
	}
	cur, err := roles.Get(ctx, "kcm-test-"+sa)
	if err != nil {
		t.Fatal(err)
	}
	obj, err = obj.Edit(func(m map[string]any) error {
		m["metadata"].(map[string]any)["resourceVersion"] = cur.ResourceVersion
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := roles.Update(ctx, obj); err != nil {
		t.Fatal(err)
	}
	watchNamespace(t, ctx, admin, ns, "the namespace to go once permitted", func(_ *api.Namespace, deleted bool) bool { return deleted })
	if n := count(t, ctx, admin, gadgets, ns); n != 0 {
		t.Errorf("%d gadgets left", n)
	}
}

var (
	clusterRoles        = rest.Resource{Group: "rbac.authorization.k8s.io", Version: "v1", Resource: "clusterroles", Kind: "ClusterRole"}
	clusterRoleBindings = rest.Resource{Group: "rbac.authorization.k8s.io", Version: "v1", Resource: "clusterrolebindings", Kind: "ClusterRoleBinding"}
)

// serviceAccountToken asks the TokenRequest API for a token of ns/name.
func serviceAccountToken(t *testing.T, ctx context.Context, c *rest.Client, ns, name string) string {
	t.Helper()
	obj, err := decode.Raw().Decode([]byte(`{"apiVersion":"authentication.k8s.io/v1","kind":"TokenRequest","spec":{"expirationSeconds":3600}}`))
	if err != nil {
		t.Fatal(err)
	}
	out, err := rest.NewResources(c, rest.ServiceAccounts, decode.Raw()).InNamespace(ns).CreateSubresource(ctx, name, "token", obj)
	if err != nil {
		t.Fatalf("TokenRequest: %v", err)
	}
	var tr struct {
		Status struct {
			Token string `json:"token"`
		} `json:"status"`
	}
	if err := json.Unmarshal(out.Raw(), &tr); err != nil || tr.Status.Token == "" {
		t.Fatalf("TokenRequest answer without a token (%v)", err)
	}
	return strings.TrimSpace(tr.Status.Token)
}
