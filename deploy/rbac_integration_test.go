//go:build !nocluster

package deploy_test

import (
	"context"
	"crypto/tls"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/rs/zerolog"
	"go.yaml.in/yaml/v3"

	"github.com/kcmlab/kcm/ctrl/resourcequota"
	"github.com/kcmlab/kcm/kube/api"
	"github.com/kcmlab/kcm/kube/api/decode"
	"github.com/kcmlab/kcm/kube/rest"
	"github.com/kcmlab/kcm/manager"
	"github.com/kcmlab/kcm/testenv"
)

func TestMain(m *testing.M) { os.Exit(testenv.Main(m)) }

// bound is how long the test waits for any one thing the manager should do.
const bound = 90 * time.Second

var (
	clusterRoles        = rest.Resource{Group: "rbac.authorization.k8s.io", Version: "v1", Resource: "clusterroles", Kind: "ClusterRole"}
	clusterRoleBindings = rest.Resource{Group: "rbac.authorization.k8s.io", Version: "v1", Resource: "clusterrolebindings", Kind: "ClusterRoleBinding"}
	roles               = rest.Resource{Group: "rbac.authorization.k8s.io", Version: "v1", Resource: "roles", Kind: "Role", Namespaced: true}
	roleBindings        = rest.Resource{Group: "rbac.authorization.k8s.io", Version: "v1", Resource: "rolebindings", Kind: "RoleBinding", Namespaced: true}
)

// resourceOf maps the kinds rbac.yaml holds to their REST resources.
func resourceOf(kind string) (rest.Resource, error) {
	for _, r := range []rest.Resource{rest.ServiceAccounts, clusterRoles, clusterRoleBindings, roles, roleBindings} {
		if r.Kind == kind {
			return r, nil
		}
	}
	return rest.Resource{}, fmt.Errorf("rbac.yaml: unexpected kind %q", kind)
}

// documents parses a multi-document YAML file into JSON objects.
func documents(t *testing.T, path string) []map[string]any {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var docs []map[string]any
	dec := yaml.NewDecoder(f)
	for {
		var d map[string]any
		err := dec.Decode(&d)
		if errors.Is(err, io.EOF) {
			return docs
		}
		if err != nil {
			t.Fatalf("%s: %v", path, err)
		}
		if d != nil {
			docs = append(docs, d)
		}
	}
}

// apply creates every object of docs, or replaces it when it exists.
func apply(t *testing.T, ctx context.Context, c *rest.Client, docs []map[string]any) {
	t.Helper()
	for _, d := range docs {
		kind, _ := d["kind"].(string)
		res, err := resourceOf(kind)
		if err != nil {
			t.Fatal(err)
		}
		meta, _ := d["metadata"].(map[string]any)
		ns, _ := meta["namespace"].(string)
		name, _ := meta["name"].(string)
		b, err := json.Marshal(d)
		if err != nil {
			t.Fatal(err)
		}
		obj, err := decode.Raw().Decode(b)
		if err != nil {
			t.Fatal(err)
		}
		r := rest.NewResources(c, res, decode.Raw()).InNamespace(ns)
		if _, err := r.Create(ctx, obj); rest.IsAlreadyExists(err) {
			err = r.Delete(ctx, name, rest.DeleteOptions{})
			if err == nil {
				_, err = r.Create(ctx, obj)
			}
		} else if err != nil {
			t.Fatalf("creating %s %s: %v", kind, name, err)
		}
	}
}

// serviceAccountToken asks the TokenRequest API for a token of
// kube-system/kcm, as the kubelet does for a pod.
func serviceAccountToken(t *testing.T, ctx context.Context, c *rest.Client) string {
	t.Helper()
	body := []byte(`{"apiVersion":"authentication.k8s.io/v1","kind":"TokenRequest","spec":{"expirationSeconds":3600}}`)
	obj, err := decode.Raw().Decode(body)
	if err != nil {
		t.Fatal(err)
	}
	out, err := rest.NewResources(c, rest.ServiceAccounts, decode.Raw()).InNamespace("kube-system").
		CreateSubresource(ctx, "kcm", "token", obj)
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
	return tr.Status.Token
}

// lines collects the manager's log lines for the test to wait on.
type lines struct {
	mu   sync.Mutex
	all  []string
	more chan struct{}
}

func (l *lines) Write(p []byte) (int, error) {
	l.mu.Lock()
	l.all = append(l.all, string(p))
	close(l.more)
	l.more = make(chan struct{})
	l.mu.Unlock()
	return len(p), nil
}

// wait returns the first line holding every one of subs, or fails after
// bound.
func (l *lines) wait(t *testing.T, subs ...string) string {
	t.Helper()
	deadline := time.After(bound)
	seen := 0
	for {
		l.mu.Lock()
		for ; seen < len(l.all); seen++ {
			ok := true
			for _, s := range subs {
				ok = ok && strings.Contains(l.all[seen], s)
			}
			if ok {
				line := l.all[seen]
				l.mu.Unlock()
				return line
			}
		}
		more := l.more
		l.mu.Unlock()
		select {
		case <-more:
		case <-deadline:
			l.mu.Lock()
			t.Fatalf("no log line with %q within %v; the log:\n%s", subs, bound, strings.Join(l.all, ""))
		}
	}
}

// watchFor waits until the watch delivers an object for which ok holds.
func watchFor[T api.Object](t *testing.T, ctx context.Context, r *rest.Resources[T], what string, ok func(T) bool) {
	t.Helper()
	w, err := r.Watch(ctx, rest.WatchOptions{ListOptions: rest.ListOptions{ResourceVersion: "0", TimeoutSeconds: int64(bound / time.Second)}})
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

// waitCollected creates a ConfigMap owned by an object that never existed
// and waits until the garbage collector deletes it.
func waitCollected(t *testing.T, ctx context.Context, cms *rest.Resources[*api.RawObject]) {
	t.Helper()
	cm, err := decode.Raw().Decode([]byte(`{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"owned-by-nobody",
		"ownerReferences":[{"apiVersion":"v1","kind":"ConfigMap","name":"gone","uid":"5f1c7a64-0000-4000-8000-00000000000a"}]}}`))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := cms.Create(ctx, cm); err != nil {
		t.Fatal(err)
	}
	waitGone(t, ctx, cms, "owned-by-nobody")
}

// waitGone waits until the named object is deleted.
func waitGone[T api.Object](t *testing.T, ctx context.Context, r *rest.Resources[T], name string) {
	t.Helper()
	sel := rest.ListOptions{FieldSelector: "metadata.name=" + name}
	list, err := r.List(ctx, sel)
	if err != nil {
		t.Fatal(err)
	}
	if len(list.Items) == 0 {
		return
	}
	sel.ResourceVersion, sel.TimeoutSeconds = list.ResourceVersion, int64(bound/time.Second)
	w, err := r.Watch(ctx, rest.WatchOptions{ListOptions: sel})
	if err != nil {
		t.Fatal(err)
	}
	defer w.Close()
	for {
		ev, err := w.Next()
		if err != nil {
			t.Fatalf("waiting for %s to go: %v", name, err)
		}
		if ev.Type == rest.Deleted {
			return
		}
	}
}

// TestManagerRunsWithTheDeployRBAC applies deploy/rbac.yaml, runs the
// manager as the kcm ServiceAccount with a token from the TokenRequest
// API, and checks that every controller can do its work with exactly those
// rights: a namespace gets its default ServiceAccount and kube-root-ca.crt, a token Secret its token (and goes with
// its ServiceAccount), a ReplicaSet gets
// its pods, a StatefulSet its revision, claim, pod and status, a deleted namespace is emptied and goes, a ConfigMap whose
// owner does not exist is collected, a Service gets its Endpoints and they
// go with it, and its EndpointSlice; a user's Endpoints of a Service
// without a selector get a mirrored EndpointSlice and it goes with them;
// an unscheduled terminating pod is marked Failed by the pod garbage
// collector. Then the ClusterRole
// loses "create" on serviceaccounts: the serviceaccount controller's failure is a 403 that its log names and its
// error counter counts, and the manager keeps serving. Then "create" on
// replicasets goes too: a new Deployment shows the failure where
// Kubernetes shows it (Event and Progressing condition).
func TestManagerRunsWithTheDeployRBAC(t *testing.T) {
	cl := testenv.Shared(t)
	ctx, cancel := context.WithTimeout(context.Background(), 4*bound)
	defer cancel()
	admin, err := rest.NewClient(cl.Config())
	if err != nil {
		t.Fatal(err)
	}
	defer admin.CloseIdleConnections()
	docs := documents(t, "rbac.yaml")
	apply(t, ctx, admin, docs)

	cfg := cl.Config()
	kcmToken := serviceAccountToken(t, ctx, admin)
	cfg.Credentials = rest.StaticToken(kcmToken)
	// The secure port asks the apiserver as kcm's ServiceAccount too
	// (TokenReview, SubjectAccessReview, the client CA's ConfigMap): what
	// rbac.yaml's auth-delegator and authentication-reader bindings allow.
	kc, err := testenv.MarshalKubeconfig(cfg.Host, cfg.TLS.CAData, kcmToken)
	if err != nil {
		t.Fatal(err)
	}
	kcPath := filepath.Join(t.TempDir(), "kcm.kubeconfig")
	if err := os.WriteFile(kcPath, kc, 0o600); err != nil {
		t.Fatal(err)
	}
	opts := manager.NewOptions(manager.NewControllerDescriptors())
	opts.Auth.AuthenticationKubeconfig, opts.Auth.AuthorizationKubeconfig = kcPath, kcPath
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	log := &lines{more: make(chan struct{})}
	runCtx, stop := context.WithCancel(ctx)
	done := make(chan error, 1)
	// The serviceaccount-token controller runs with the key kube-apiserver verifies tokens with.
	if err := opts.Controllers.Flags["service-account-private-key-file"].Set(cl.ServiceAccountKeyFile()); err != nil {
		t.Fatal(err)
	}
	go func() {
		done <- manager.Run(runCtx, manager.Config{Options: opts,
			REST: cfg, Listener: ln, Identity: "rbac-test", Logger: zerolog.New(log)})
	}()
	defer func() {
		stop()
		if err := <-done; err != nil {
			t.Errorf("Run: %v", err)
		}
		if t.Failed() {
			log.mu.Lock()
			defer log.mu.Unlock()
			t.Logf("the manager's last log lines:\n%s", strings.Join(log.all[max(0, len(log.all)-30):], ""))
		}
	}()
	log.wait(t, "caches synced; starting controllers")

	// With the RBAC as shipped: a ServiceAccount, then pods.
	namespaces := rest.NewResources(admin, rest.Namespaces, decode.Typed[api.Namespace]())
	ns, err := namespaces.Create(ctx, &api.Namespace{ObjectMeta: api.ObjectMeta{Name: "rbac-ok"}})
	if err != nil {
		t.Fatal(err)
	}
	watchFor(t, ctx, rest.NewResources(admin, rest.ServiceAccounts, decode.Typed[api.ServiceAccount]()).InNamespace(ns.Name),
		"the default ServiceAccount", func(sa *api.ServiceAccount) bool { return sa.Name == "default" })
	// The root CA publisher: kube-root-ca.crt (create), with the CA of the manager's client.
	watchFor(t, ctx, rest.NewResources(admin, rest.ConfigMaps, decode.Typed[api.ConfigMap]()).InNamespace(ns.Name),
		"kube-root-ca.crt", func(cm *api.ConfigMap) bool {
			return cm.Name == "kube-root-ca.crt" && cm.Data["ca.crt"] == string(cfg.TLS.CAData)
		})
	// The serviceaccount-token controller: a token Secret is filled (get, update), and deleted with its
	// ServiceAccount (delete).
	if _, err := rest.NewResources(admin, rest.ServiceAccounts, decode.Typed[api.ServiceAccount]()).InNamespace(ns.Name).
		Create(ctx, &api.ServiceAccount{ObjectMeta: api.ObjectMeta{Name: "builder"}}); err != nil {
		t.Fatal(err)
	}
	secrets := rest.NewResources(admin, rest.Secrets, decode.Typed[api.Secret]()).InNamespace(ns.Name)
	if _, err := secrets.Create(ctx, &api.Secret{ObjectMeta: api.ObjectMeta{Name: "builder-token",
		Annotations: map[string]string{api.ServiceAccountNameKey: "builder"}}, Type: api.SecretTypeServiceAccountToken}); err != nil {
		t.Fatal(err)
	}
	watchFor(t, ctx, secrets, "the token in builder-token", func(s *api.Secret) bool { return s.Name == "builder-token" && len(s.Data["token"]) > 0 })
	if err := rest.NewResources(admin, rest.ServiceAccounts, decode.Typed[api.ServiceAccount]()).InNamespace(ns.Name).
		Delete(ctx, "builder", rest.DeleteOptions{}); err != nil {
		t.Fatal(err)
	}
	waitGone(t, ctx, secrets, "builder-token")

	rs, err := decode.Raw().Decode([]byte(`{"apiVersion":"apps/v1","kind":"ReplicaSet","metadata":{"name":"web"},
		"spec":{"replicas":2,"selector":{"matchLabels":{"app":"web"}},
		"template":{"metadata":{"labels":{"app":"web"}},"spec":{"containers":[{"name":"web","image":"web:1"}]}}}}`))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := rest.NewResources(admin, rest.ReplicaSets, decode.Raw()).InNamespace(ns.Name).Create(ctx, rs); err != nil {
		t.Fatal(err)
	}
	pods := rest.NewResources(admin, rest.Pods, decode.Typed[api.Pod]()).InNamespace(ns.Name)
	seen := map[string]bool{}
	watchFor(t, ctx, pods, "two pods of the ReplicaSet", func(p *api.Pod) bool {
		seen[p.Name] = true
		return len(seen) == 2
	})

	// The statefulset controller: a set's first ControllerRevision (owned
	// by the set: blockOwnerDeletion needs statefulsets/finalizers), the
	// claim of its pod, the pod (no node runs it here) and the status
	// naming the revision.
	sts, err := decode.Raw().Decode([]byte(`{"apiVersion":"apps/v1","kind":"StatefulSet","metadata":{"name":"db"},
		"spec":{"replicas":1,"serviceName":"db","selector":{"matchLabels":{"app":"db"}},
		"template":{"metadata":{"labels":{"app":"db"}},"spec":{"containers":[{"name":"db","image":"db:1"}]}},
		"volumeClaimTemplates":[{"metadata":{"name":"data"},"spec":{"accessModes":["ReadWriteOnce"],"resources":{"requests":{"storage":"1Gi"}}}}]}}`))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := rest.NewResources(admin, rest.StatefulSets, decode.Raw()).InNamespace(ns.Name).Create(ctx, sts); err != nil {
		t.Fatal(err)
	}
	watchFor(t, ctx, rest.NewResources(admin, rest.ControllerRevisions, decode.Typed[api.ControllerRevision]()).InNamespace(ns.Name),
		"the StatefulSet's ControllerRevision", func(r *api.ControllerRevision) bool {
			ref := r.ControllerRef()
			return ref != nil && ref.Kind == "StatefulSet" && ref.Name == "db"
		})
	watchFor(t, ctx, rest.NewResources(admin, rest.PersistentVolumeClaims, decode.Typed[api.PersistentVolumeClaim]()).InNamespace(ns.Name),
		"the claim data-db-0", func(c *api.PersistentVolumeClaim) bool { return c.Name == "data-db-0" })
	watchFor(t, ctx, pods, "the StatefulSet's pod db-0", func(p *api.Pod) bool {
		ref := p.ControllerRef()
		return p.Name == "db-0" && ref != nil && ref.Kind == "StatefulSet"
	})
	watchFor(t, ctx, rest.NewResources(admin, rest.StatefulSets, decode.Typed[api.StatefulSet]()).InNamespace(ns.Name),
		"the StatefulSet's status", func(s *api.StatefulSet) bool {
			return s.Status.ObservedGeneration == s.Generation && s.Status.Replicas == 1 && s.Status.UpdateRevision != ""
		})

	// A deleted namespace is emptied and finalized: the namespace
	// controller's list, deletecollection and finalize rights.
	doomed, err := namespaces.Create(ctx, &api.Namespace{ObjectMeta: api.ObjectMeta{Name: "rbac-doomed"}})
	if err != nil {
		t.Fatal(err)
	}
	cm, err := decode.Raw().Decode([]byte(`{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"c"},"data":{"k":"v"}}`))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := rest.NewResources(admin, rest.ConfigMaps, decode.Raw()).InNamespace(doomed.Name).Create(ctx, cm); err != nil {
		t.Fatal(err)
	}
	if err := namespaces.Delete(ctx, doomed.Name, rest.DeleteOptions{}); err != nil {
		t.Fatal(err)
	}
	waitGone(t, ctx, namespaces, doomed.Name)

	// The garbage collector: a ConfigMap whose owner does not exist is collected.
	waitCollected(t, ctx, rest.NewResources(admin, rest.ConfigMaps, decode.Raw()).InNamespace(ns.Name))

	// The endpoints controller: a Service gets its Endpoints (create), which
	// go with it (delete).
	services := rest.NewResources(admin, rest.Services, decode.Typed[api.Service]()).InNamespace(ns.Name)
	if _, err := services.Create(ctx, &api.Service{ObjectMeta: api.ObjectMeta{Name: "web"},
		Spec: api.ServiceSpec{Selector: map[string]string{"app": "web"}, Ports: []api.ServicePort{{Port: 80}}}}); err != nil {
		t.Fatal(err)
	}
	endpoints := rest.NewResources(admin, rest.Endpoints, decode.Typed[api.Endpoints]()).InNamespace(ns.Name)
	watchFor(t, ctx, endpoints, "the Service's Endpoints", func(e *api.Endpoints) bool { return e.Name == "web" })
	// The endpointslice controller: the Service gets an EndpointSlice owned
	// by it (create, with blockOwnerDeletion: services/finalizers).
	watchFor(t, ctx, rest.NewResources(admin, rest.EndpointSlices, decode.Typed[api.EndpointSlice]()).InNamespace(ns.Name),
		"the Service's EndpointSlice", func(s *api.EndpointSlice) bool {
			return s.Labels["kubernetes.io/service-name"] == "web" && len(s.OwnerReferences) == 1 && s.OwnerReferences[0].Name == "web"
		})
	if err := services.Delete(ctx, "web", rest.DeleteOptions{}); err != nil {
		t.Fatal(err)
	}
	waitGone(t, ctx, endpoints, "web")

	// The EndpointSlice mirroring controller: the Endpoints a user writes
	// for a Service without a selector get a slice (create, with
	// blockOwnerDeletion in its ownerReference), which goes with them
	// (delete).
	if _, err := services.Create(ctx, &api.Service{ObjectMeta: api.ObjectMeta{Name: "external"},
		Spec: api.ServiceSpec{Ports: []api.ServicePort{{Port: 80}}}}); err != nil {
		t.Fatal(err)
	}
	if _, err := endpoints.Create(ctx, &api.Endpoints{ObjectMeta: api.ObjectMeta{Name: "external"},
		Subsets: []api.EndpointSubset{{Addresses: []api.EndpointAddress{{IP: "192.168.0.1"}}, Ports: []api.EndpointPort{{Port: 80}}}}}); err != nil {
		t.Fatal(err)
	}
	endpointSlices := rest.NewResources(admin, rest.EndpointSlices, decode.Typed[api.EndpointSlice]()).InNamespace(ns.Name)
	var mirrored string
	watchFor(t, ctx, endpointSlices, "the mirrored EndpointSlice", func(s *api.EndpointSlice) bool {
		mirrored = s.Name
		return s.Labels["kubernetes.io/service-name"] == "external" && len(s.Endpoints) == 1
	})
	if err := endpoints.Delete(ctx, "external", rest.DeleteOptions{}); err != nil {
		t.Fatal(err)
	}
	waitGone(t, ctx, endpointSlices, mirrored)

	// The pod garbage collector: a terminating pod bound to no node is
	// marked Failed (patch on pods/status) and force-deleted (delete) at
	// its next pass, at most 20s away; a finalizer keeps it for the check.
	held, err := pods.Create(ctx, &api.Pod{ObjectMeta: api.ObjectMeta{Name: "unscheduled", Finalizers: []string{"kcm.test/hold"}},
		Spec: api.PodSpec{Containers: []api.Container{{Name: "c", Image: "c:1"}}}})
	if err != nil {
		t.Fatal(err)
	}
	if err := pods.Delete(ctx, held.Name, rest.DeleteOptions{}); err != nil {
		t.Fatal(err)
	}
	watchFor(t, ctx, pods, "the unscheduled terminating pod marked Failed by the pod garbage collector", func(p *api.Pod) bool {
		return p.Name == held.Name && p.DeletionTimestamp != nil && p.Status.Phase == api.PodFailed
	})
	if _, err := pods.Patch(ctx, held.Name, rest.MergePatch, []byte(`{"metadata":{"finalizers":null}}`), rest.PatchOptions{}); err != nil {
		t.Fatal(err)
	}
	// The resource quota controller: a quota gets its status (update on
	// resourcequotas/status), counting the namespace's pods from the
	// shared cache and its configmaps from a metadata monitor (list and
	// watch on every resource).
	quotas := rest.NewResources(admin, resourcequota.ResourceQuotas, decode.Typed[api.ResourceQuota]()).InNamespace(ns.Name)
	if _, err := quotas.Create(ctx, &api.ResourceQuota{ObjectMeta: api.ObjectMeta{Name: "quota"},
		Spec: api.ResourceQuotaSpec{Hard: api.ResourceList{"count/pods": "100", "configmaps": "100"}}}); err != nil {
		t.Fatal(err)
	}
	watchFor(t, ctx, quotas, "the quota's status", func(q *api.ResourceQuota) bool {
		return q.Name == "quota" && q.Status.Used["count/pods"] != "" && q.Status.Used["configmaps"] != ""
	})
	// The taint eviction controller: a pod on a node with a NoExecute taint
	// it does not tolerate gets the DisruptionTarget condition (patch on
	// pods/status) and is deleted (it stays, being deleted: no kubelet
	// runs here to finish it).
	nodes := rest.NewResources(admin, rest.Nodes, decode.Typed[api.Node]())
	if _, err := nodes.Create(ctx, &api.Node{ObjectMeta: api.ObjectMeta{Name: "rbac-tainted"},
		Spec: api.NodeSpec{Taints: []api.Taint{{Key: "kcm.test/rbac", Effect: api.TaintEffectNoExecute}}}}); err != nil {
		t.Fatal(err)
	}
	defer func() { _ = nodes.Delete(context.Background(), "rbac-tainted", rest.DeleteOptions{}) }()
	if _, err := pods.Create(ctx, &api.Pod{ObjectMeta: api.ObjectMeta{Name: "tainted"},
		Spec: api.PodSpec{NodeName: "rbac-tainted", Containers: []api.Container{{Name: "c", Image: "c:1"}}}}); err != nil {
		t.Fatal(err)
	}
	watchFor(t, ctx, pods, "the untolerating pod evicted with its DisruptionTarget condition", func(p *api.Pod) bool {
		return p.Name == "tainted" && p.DeletionTimestamp != nil &&
			slices.ContainsFunc(p.Status.Conditions, func(c api.PodCondition) bool {
				return c.Type == api.DisruptionTarget && c.Reason == "DeletionByTaintManager"
			})
	})

	// Without "create" on serviceaccounts: a clear 403, logged and counted.
	for _, d := range docs {
		if d["kind"] != "ClusterRole" {
			continue
		}
		for _, r := range d["rules"].([]any) {
			rule := r.(map[string]any)
			switch fmt.Sprint(rule["apiGroups"]) + fmt.Sprint(rule["resources"]) {
			case "[][serviceaccounts]":
				rule["verbs"] = []any{"get", "list", "watch"}
			case "[apps][replicasets]":
				rule["verbs"] = []any{"get", "list", "watch", "update", "patch", "delete"}
			}
		}
	}
	// Only the ClusterRole is applied again: apply re-creates what exists,
	// and a re-created ServiceAccount (a new UID) would void the token.
	var roles []map[string]any
	for _, d := range docs {
		if d["kind"] == "ClusterRole" {
			roles = append(roles, d)
		}
	}
	apply(t, ctx, admin, roles)
	if _, err := namespaces.Create(ctx, &api.Namespace{ObjectMeta: api.ObjectMeta{Name: "rbac-forbidden"}}); err != nil {
		t.Fatal(err)
	}
	line := log.wait(t, "serviceaccount-controller", "rbac-forbidden", "forbidden")
	if !strings.Contains(line, "cannot create resource") || !strings.Contains(line, "system:serviceaccount:kube-system:kcm") {
		t.Errorf("the 403 log line does not say who may not do what: %s", line)
	}
	// A scraper bound to rbac.yaml's kcm-metrics-reader reads /metrics;
	// without a token it is anonymous, and forbidden.
	client := &http.Client{Transport: &http.Transport{TLSClientConfig: &tls.Config{InsecureSkipVerify: true}}}
	defer client.CloseIdleConnections()
	anon, err := client.Get("https://" + ln.Addr().String() + "/metrics")
	if err != nil {
		t.Fatal(err)
	}
	anon.Body.Close()
	if anon.StatusCode != http.StatusForbidden {
		t.Errorf("/metrics without credentials: %d, want 403", anon.StatusCode)
	}
	scraperNS := cl.Namespace(t)
	scraper := cl.ServiceAccountToken(t, scraperNS, "scraper")
	apply(t, ctx, admin, []map[string]any{{"apiVersion": "rbac.authorization.k8s.io/v1", "kind": "ClusterRoleBinding",
		"metadata": map[string]any{"name": "kcm-metrics-reader-" + scraperNS},
		"roleRef":  map[string]any{"apiGroup": "rbac.authorization.k8s.io", "kind": "ClusterRole", "name": "kcm-metrics-reader"},
		"subjects": []any{map[string]any{"kind": "ServiceAccount", "name": "scraper", "namespace": scraperNS}}}})
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, "https://"+ln.Addr().String()+"/metrics", nil)
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Authorization", "Bearer "+scraper)
	resp, err := client.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	if resp.StatusCode != http.StatusOK {
		t.Errorf("/metrics as a kcm-metrics-reader: %d, want 200", resp.StatusCode)
	}
	body, err := io.ReadAll(resp.Body)
	resp.Body.Close()
	if err != nil {
		t.Fatal(err)
	}
	m := regexp.MustCompile(`controller_runtime_reconcile_errors_total\{controller="serviceaccount-controller"\} ([0-9]+)`).FindSubmatch(body)
	if m == nil || string(m[1]) == "0" {
		t.Errorf("/metrics counts no serviceaccount-controller error: %q", m)
	}
	if !regexp.MustCompile(`rest_client_requests_total\{code="403",host="[^"]+",method="POST"\} [1-9]`).Match(body) {
		t.Errorf("/metrics counts no 403 answer in rest_client_requests_total")
	}
	if !regexp.MustCompile(`endpoint_slice_controller_syncs\{result="success"\} [1-9]`).Match(body) {
		t.Errorf("/metrics counts no successful endpointslice-controller sync in endpoint_slice_controller_syncs")
	}
	// Without "create" on replicasets, a Deployment cannot get its
	// ReplicaSet: like kube-controller-manager's deployment controller, kcm's
	// records a ReplicaSetCreateError Warning and sets Progressing=False
	// with that reason (the Deployment has a progress deadline, 600 s by
	// default), and retries.
	dep, err := decode.Raw().Decode([]byte(`{"apiVersion":"apps/v1","kind":"Deployment","metadata":{"name":"blocked"},
		"spec":{"replicas":1,"selector":{"matchLabels":{"app":"blocked"}},
		"template":{"metadata":{"labels":{"app":"blocked"}},"spec":{"containers":[{"name":"web","image":"web:1"}]}}}}`))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := rest.NewResources(admin, rest.Deployments, decode.Raw()).InNamespace(ns.Name).Create(ctx, dep); err != nil {
		t.Fatal(err)
	}
	watchFor(t, ctx, rest.NewResources(admin, rest.Deployments, decode.Typed[api.Deployment]()).InNamespace(ns.Name),
		"Progressing=False ReplicaSetCreateError", func(d *api.Deployment) bool {
			for _, c := range d.Status.Conditions {
				if c.Type == api.DeploymentProgressing && c.Status == api.ConditionFalse && c.Reason == "ReplicaSetCreateError" {
					return strings.Contains(c.Message, "forbidden")
				}
			}
			return false
		})
	watchFor(t, ctx, rest.NewResources(admin, rest.Events, decode.Typed[api.CoreEvent]()).InNamespace(ns.Name),
		"a ReplicaSetCreateError Warning on the Deployment", func(e *api.CoreEvent) bool {
			return e.Reason == "ReplicaSetCreateError" && e.Type == api.EventTypeWarning &&
				e.InvolvedObject.Kind == "Deployment" && e.InvolvedObject.Name == "blocked"
		})

	resp, err = client.Get("https://" + ln.Addr().String() + "/healthz")
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		t.Errorf("/healthz = %d while one controller is forbidden, want 200 (the manager keeps serving)", resp.StatusCode)
	}
}
