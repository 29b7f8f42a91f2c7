//go:build !nocluster

package manager

import (
	"context"
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/kcmlab/kcm/ctrl/clientbuilder"
	"github.com/kcmlab/kcm/kube/api"
	"github.com/kcmlab/kcm/kube/api/decode"
	"github.com/kcmlab/kcm/kube/rest"
	"github.com/kcmlab/kcm/testenv"
)

// auditEvent is an audit log entry with the kcm client that sent it.
type auditEvent struct{ testenv.AuditEvent }

// controller is the name in a kcm User-Agent, "kcm/<version> (<name>)", or ""
// for another client.
func (e auditEvent) controller() string {
	if !strings.HasPrefix(e.UserAgent, "kcm/") {
		return ""
	}
	i := strings.LastIndex(e.UserAgent, " (") // the version may hold parentheses: "kcm/(devel) (x)"
	if i < 0 || !strings.HasSuffix(e.UserAgent, ")") {
		return ""
	}
	return e.UserAgent[i+2 : len(e.UserAgent)-1]
}

// readAudit reads the cluster's audit log.
func readAudit(t *testing.T, cl *testenv.Cluster) []auditEvent {
	t.Helper()
	events, err := cl.AuditEvents()
	if err != nil {
		t.Fatal(err)
	}
	out := make([]auditEvent, len(events))
	for i, e := range events {
		out[i] = auditEvent{e}
	}
	return out
}

// rootClients are the clients of kcm that keep its own credentials under
// --use-service-account-credentials, by User-Agent name.
var rootClients = map[string]bool{"kcm": true, leaderElectionClient: true, "kcm-delegated-auth": true,
	"shared-informers": true, "serviceaccount-token-controller": true}

var clusterRoleBindings = rest.Resource{Group: "rbac.authorization.k8s.io", Version: "v1", Resource: "clusterrolebindings",
	Kind: "ClusterRoleBinding"}

// watchUntil waits until the watch delivers an object for which ok holds.
func watchUntil[T api.Object](t *testing.T, ctx context.Context, r *rest.Resources[T], what string, ok func(T) bool) {
	t.Helper()
	w, err := r.Watch(ctx, rest.WatchOptions{ListOptions: rest.ListOptions{ResourceVersion: "0", TimeoutSeconds: 120}})
	if err != nil {
		t.Fatal(err)
	}
	defer w.Close()
	for {
		ev, err := w.Next()
		if err != nil {
			t.Fatalf("waiting for %s: %v", what, err)
		}
		if ev.Type != rest.Deleted && ok(ev.Object) {
			return
		}
	}
}

// allowed asks the apiserver whether user may create pods in ns.
func allowed(t *testing.T, ctx context.Context, c *rest.Client, user, ns string) bool {
	t.Helper()
	sar, err := decode.Raw().Decode([]byte(`{"apiVersion":"authorization.k8s.io/v1","kind":"SubjectAccessReview",
		"spec":{"user":"` + user + `","resourceAttributes":{"namespace":"` + ns + `","verb":"create","resource":"pods"}}}`))
	if err != nil {
		t.Fatal(err)
	}
	res := rest.Resource{Group: "authorization.k8s.io", Version: "v1", Resource: "subjectaccessreviews", Kind: "SubjectAccessReview"}
	out, err := rest.NewResources(c, res, decode.Raw()).Create(ctx, sar)
	if err != nil {
		t.Fatal(err)
	}
	var a struct {
		Status struct{ Allowed bool } `json:"status"`
	}
	if err := json.Unmarshal(out.Raw(), &a); err != nil {
		t.Fatal(err)
	}
	return a.Status.Allowed
}

// TestServiceAccountCredentialsAudited runs the manager with
// --use-service-account-credentials on an apiserver that writes an audit
// log. A Deployment rolled out to a second template and its namespace
// deleted: every write a controller made is recorded as made by
// system:serviceaccount:kube-system:<that controller's account>, the
// accounts having been created by kcm's own identity, which also asked
// for their tokens and made no other write. Then the bootstrap binding
// system:controller:replicaset-controller goes: the ReplicaSet
// controller's pod creation is a 403 for its own account, while the
// Deployment and ServiceAccount controllers keep working.
func TestServiceAccountCredentialsAudited(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	cl, err := testenv.Start(ctx, testenv.Options{AuditWrites: true})
	if err != nil {
		t.Fatal(err)
	}
	defer cl.Stop()
	cfg := cl.Config()
	cfg.UserAgent = "audit-test" // not a kcm User-Agent
	admin, err := rest.NewClient(cfg)
	if err != nil {
		t.Fatal(err)
	}
	defer admin.CloseIdleConnections()

	o := NewOptions(NewControllerDescriptors())
	o.UseServiceAccountCredentials = true
	in := startManager(t, cl, o, "audited")
	in.waitLog(t, "caches synced; starting controllers")

	namespaces := rest.NewResources(admin, rest.Namespaces, decode.Typed[api.Namespace]())
	if _, err := namespaces.Create(ctx, &api.Namespace{ObjectMeta: api.ObjectMeta{Name: "audited"}}); err != nil {
		t.Fatal(err)
	}
	deployments := rest.NewResources(admin, rest.Deployments, decode.Raw()).InNamespace("audited")
	dep := func(ns, name, image string) *api.RawObject {
		d, err := decode.Raw().Decode([]byte(`{"apiVersion":"apps/v1","kind":"Deployment","metadata":{"name":"` + name + `","namespace":"` + ns + `"},
			"spec":{"replicas":2,"selector":{"matchLabels":{"app":"` + name + `"}},
			"template":{"metadata":{"labels":{"app":"` + name + `"}},"spec":{"containers":[{"name":"c","image":"` + image + `"}]}}}}`))
		if err != nil {
			t.Fatal(err)
		}
		return d
	}
	if _, err := deployments.Create(ctx, dep("audited", "web", "web:1")); err != nil {
		t.Fatal(err)
	}
	pods := rest.NewResources(admin, rest.Pods, decode.Typed[api.Pod]()).InNamespace("audited")
	seen := map[string]bool{}
	watchUntil(t, ctx, pods, "the Deployment's two pods", func(p *api.Pod) bool {
		seen[p.Name] = true
		return len(seen) == 2
	})
	// The rollout: a second template, a second ReplicaSet.
	if _, err := deployments.Patch(ctx, "web", rest.MergePatch,
		[]byte(`{"spec":{"template":{"spec":{"containers":[{"name":"c","image":"web:2"}]}}}}`), rest.PatchOptions{}); err != nil {
		t.Fatal(err)
	}
	sets := map[string]bool{}
	watchUntil(t, ctx, rest.NewResources(admin, rest.ReplicaSets, decode.Typed[api.ReplicaSet]()).InNamespace("audited"),
		"the rollout's second ReplicaSet", func(rs *api.ReplicaSet) bool {
			sets[rs.Name] = true
			return len(sets) == 2
		})
	watchUntil(t, ctx, rest.NewResources(admin, rest.ConfigMaps, decode.Typed[api.ConfigMap]()).InNamespace("audited"),
		"kube-root-ca.crt", func(cm *api.ConfigMap) bool { return cm.Name == "kube-root-ca.crt" })
	watchUntil(t, ctx, rest.NewResources(admin, rest.ServiceAccounts, decode.Typed[api.ServiceAccount]()).InNamespace("audited"),
		"the default ServiceAccount", func(sa *api.ServiceAccount) bool { return sa.Name == "default" })
	if err := namespaces.Delete(ctx, "audited", rest.DeleteOptions{}); err != nil {
		t.Fatal(err)
	}
	waitNamespaceGone(t, ctx, namespaces, "audited")

	// Who wrote what.
	wrote := map[string]int{} // successful writes by account, in the scenario's namespace
	rootWrites := map[string]bool{}
	for _, e := range readAudit(t, cl) {
		ctl := e.controller()
		if ctl == "" {
			continue // the test's own requests
		}
		const prefix = "system:serviceaccount:kube-system:"
		account, isSA := strings.CutPrefix(e.User.Username, prefix)
		switch {
		case rootClients[ctl]:
			// kcm's own identity: the controllers' accounts and tokens, its
			// Lease, the secure port's reviews, nothing else (the token
			// controller, which would write Secrets, has no key here and
			// does not run).
			r := e.ObjectRef
			switch {
			case isSA:
				t.Errorf("kcm's own client %s wrote %s %+v as %s", ctl, e.Verb, r, e.User.Username)
			case r.Resource == "serviceaccounts" && r.Namespace == "kube-system" && e.Verb == "create":
				rootWrites[r.Name+"/"+r.Subresource] = true
			case r.Resource == "leases" && r.Namespace == "kube-system",
				r.Resource == "tokenreviews", r.Resource == "subjectaccessreviews":
			default:
				t.Errorf("kcm's own client %s wrote %s %+v", ctl, e.Verb, r)
			}
		case !isSA || account != ctl:
			t.Errorf("%s wrote %s %+v as %q, want %s%s", e.UserAgent, e.Verb, e.ObjectRef, e.User.Username, prefix, ctl)
		case e.ResponseStatus.Code < 300 && (e.ObjectRef.Namespace == "audited" ||
			e.ObjectRef.Resource == "namespaces" && e.ObjectRef.Name == "audited"):
			wrote[account]++
		}
	}
	for _, account := range []string{"deployment-controller", "replicaset-controller", "service-account-controller",
		"root-ca-cert-publisher", "namespace-controller"} {
		if wrote[account] == 0 {
			t.Errorf("no write of %s recorded in the audit log (writes by account: %v)", account, wrote)
		}
		if !rootWrites[account+"/"] || !rootWrites[account+"/token"] {
			t.Errorf("kcm did not create the ServiceAccount %s and ask for its token (kcm's writes: %v)", account, rootWrites)
		}
	}

	// Without its bootstrap binding, the ReplicaSet controller is
	// forbidden, as itself; the others go on.
	rsUser := clientbuilder.Username("kube-system", "replicaset-controller")
	if err := rest.NewResources(admin, clusterRoleBindings, decode.Raw()).Delete(ctx, "system:controller:replicaset-controller",
		rest.DeleteOptions{}); err != nil {
		t.Fatal(err)
	}
	if _, err := namespaces.Create(ctx, &api.Namespace{ObjectMeta: api.ObjectMeta{Name: "unbound"}}); err != nil {
		t.Fatal(err)
	}
	for allowed(t, ctx, admin, rsUser, "unbound") { // the apiserver's RBAC cache sees the deletion
		if ctx.Err() != nil {
			t.Fatal("the binding's deletion never took effect")
		}
	}
	for drained := false; !drained; { // the lines so far
		select {
		case <-in.lines:
		default:
			drained = true
		}
	}
	if _, err := rest.NewResources(admin, rest.Deployments, decode.Raw()).InNamespace("unbound").
		Create(ctx, dep("unbound", "blocked", "web:1")); err != nil {
		t.Fatal(err)
	}
	waitLogWithin(t, in, 90*time.Second, `"controller":"replicaset-controller"`, rsUser, `cannot create resource \"pods\"`)
	watchUntil(t, ctx, rest.NewResources(admin, rest.ReplicaSets, decode.Typed[api.ReplicaSet]()).InNamespace("unbound"),
		"the Deployment controller's ReplicaSet", func(rs *api.ReplicaSet) bool { return rs.ControllerRef() != nil })
	watchUntil(t, ctx, rest.NewResources(admin, rest.ServiceAccounts, decode.Typed[api.ServiceAccount]()).InNamespace("unbound"),
		"the ServiceAccount controller's default account", func(sa *api.ServiceAccount) bool { return sa.Name == "default" })
	forbidden := false
	for _, e := range readAudit(t, cl) {
		if e.ObjectRef.Namespace == "unbound" && e.ObjectRef.Resource == "pods" && e.Verb == "create" {
			if e.User.Username != rsUser || e.ResponseStatus.Code != 403 {
				t.Errorf("a pod create in the unbound namespace by %s answered %d, want only 403s for %s",
					e.User.Username, e.ResponseStatus.Code, rsUser)
			}
			forbidden = true
		}
	}
	if !forbidden {
		t.Error("the audit log records no forbidden pod create by the ReplicaSet controller")
	}
}

// waitLogWithin waits, at most d, for a log line of in containing every
// one of subs.
func waitLogWithin(t *testing.T, in *instance, d time.Duration, subs ...string) {
	t.Helper()
	deadline := time.After(d)
	for {
		select {
		case line, ok := <-in.lines:
			if !ok {
				t.Fatalf("the log ended without a line containing %q", subs)
			}
			all := true
			for _, s := range subs {
				all = all && strings.Contains(line, s)
			}
			if all {
				return
			}
		case <-deadline:
			t.Fatalf("no log line containing %q within %v", subs, d)
		}
	}
}

// waitNamespaceGone waits until the namespace is deleted.
func waitNamespaceGone(t *testing.T, ctx context.Context, namespaces *rest.Resources[*api.Namespace], name string) {
	t.Helper()
	list, err := namespaces.List(ctx, rest.ListOptions{FieldSelector: "metadata.name=" + name})
	if err != nil {
		t.Fatal(err)
	}
	if len(list.Items) == 0 {
		return
	}
	w, err := namespaces.Watch(ctx, rest.WatchOptions{ListOptions: rest.ListOptions{FieldSelector: "metadata.name=" + name,
		ResourceVersion: list.ResourceVersion, TimeoutSeconds: 120}})
	if err != nil {
		t.Fatal(err)
	}
	defer w.Close()
	for {
		ev, err := w.Next()
		if err != nil {
			t.Fatalf("waiting for namespace %s to go: %v", name, err)
		}
		if ev.Type == rest.Deleted {
			return
		}
	}
}
