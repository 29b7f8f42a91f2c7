//go:build !nocluster

package deploy_test

import (
	"context"
	"net"
	"os"
	"path/filepath"
	"testing"

	"github.com/rs/zerolog"

	"github.com/kcmlab/kcm/kube/api"
	"github.com/kcmlab/kcm/kube/api/decode"
	"github.com/kcmlab/kcm/kube/rest"
	"github.com/kcmlab/kcm/manager"
	"github.com/kcmlab/kcm/testenv"
)

// TestManagerRunsWithTheServiceAccountCredentialsRBAC applies
// deploy/rbac-service-account-credentials.yaml to a cluster of its own (no
// other test's grants to the kcm ServiceAccount), runs the manager as that
// ServiceAccount with --use-service-account-credentials, and checks that
// the shared informers sync and that the controllers, each as its own
// account under the cluster's bootstrap roles, do their work: a namespace
// gets its default ServiceAccount and kube-root-ca.crt, a ReplicaSet its
// pods, a ConfigMap whose owner does not exist is collected, a deleted
// namespace is emptied and goes; the serviceaccount-token controller,
// which keeps kcm's identity, fills a token Secret and deletes it with its
// account.
func TestManagerRunsWithTheServiceAccountCredentialsRBAC(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 4*bound)
	defer cancel()
	cl, err := testenv.Start(ctx, testenv.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer cl.Stop()
	admin, err := rest.NewClient(cl.Config())
	if err != nil {
		t.Fatal(err)
	}
	defer admin.CloseIdleConnections()
	apply(t, ctx, admin, documents(t, "rbac-service-account-credentials.yaml"))

	cfg := cl.Config()
	kcmToken := serviceAccountToken(t, ctx, admin)
	cfg.Credentials = rest.StaticToken(kcmToken)
	kc, err := testenv.MarshalKubeconfig(cfg.Host, cfg.TLS.CAData, kcmToken)
	if err != nil {
		t.Fatal(err)
	}
	kcPath := filepath.Join(t.TempDir(), "kcm.kubeconfig")
	if err := os.WriteFile(kcPath, kc, 0o600); err != nil {
		t.Fatal(err)
	}
	opts := manager.NewOptions(manager.NewControllerDescriptors())
	opts.UseServiceAccountCredentials = true
	opts.Auth.AuthenticationKubeconfig, opts.Auth.AuthorizationKubeconfig = kcPath, kcPath
	if err := opts.Controllers.Flags["service-account-private-key-file"].Set(cl.ServiceAccountKeyFile()); err != nil {
		t.Fatal(err)
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	log := &lines{more: make(chan struct{})}
	runCtx, stop := context.WithCancel(ctx)
	done := make(chan error, 1)
	go func() {
		done <- manager.Run(runCtx, manager.Config{Options: opts, REST: cfg, Listener: ln, Identity: "sa-credentials-test",
			Logger: zerolog.New(log)})
	}()
	defer func() {
		stop()
		if err := <-done; err != nil {
			t.Errorf("Run: %v", err)
		}
		if t.Failed() {
			log.mu.Lock()
			defer log.mu.Unlock()
			t.Logf("the manager's last log lines:\n%v", log.all[max(0, len(log.all)-30):])
		}
	}()
	log.wait(t, "caches synced; starting controllers")

	namespaces := rest.NewResources(admin, rest.Namespaces, decode.Typed[api.Namespace]())
	ns, err := namespaces.Create(ctx, &api.Namespace{ObjectMeta: api.ObjectMeta{Name: "sa-credentials"}})
	if err != nil {
		t.Fatal(err)
	}
	accounts := rest.NewResources(admin, rest.ServiceAccounts, decode.Typed[api.ServiceAccount]()).InNamespace(ns.Name)
	watchFor(t, ctx, accounts, "the default ServiceAccount", func(sa *api.ServiceAccount) bool { return sa.Name == "default" })
	watchFor(t, ctx, rest.NewResources(admin, rest.ConfigMaps, decode.Typed[api.ConfigMap]()).InNamespace(ns.Name),
		"kube-root-ca.crt", func(cm *api.ConfigMap) bool { return cm.Name == "kube-root-ca.crt" })

	// The serviceaccount-token controller, as kcm.
	if _, err := accounts.Create(ctx, &api.ServiceAccount{ObjectMeta: api.ObjectMeta{Name: "builder"}}); err != nil {
		t.Fatal(err)
	}
	secrets := rest.NewResources(admin, rest.Secrets, decode.Typed[api.Secret]()).InNamespace(ns.Name)
	if _, err := secrets.Create(ctx, &api.Secret{ObjectMeta: api.ObjectMeta{Name: "builder-token",
		Annotations: map[string]string{api.ServiceAccountNameKey: "builder"}}, Type: api.SecretTypeServiceAccountToken}); err != nil {
		t.Fatal(err)
	}
	watchFor(t, ctx, secrets, "the token in builder-token", func(s *api.Secret) bool { return s.Name == "builder-token" && len(s.Data["token"]) > 0 })
	if err := accounts.Delete(ctx, "builder", rest.DeleteOptions{}); err != nil {
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
	seen := map[string]bool{}
	watchFor(t, ctx, rest.NewResources(admin, rest.Pods, decode.Typed[api.Pod]()).InNamespace(ns.Name),
		"two pods of the ReplicaSet", func(p *api.Pod) bool {
			seen[p.Name] = true
			return len(seen) == 2
		})
	waitCollected(t, ctx, rest.NewResources(admin, rest.ConfigMaps, decode.Raw()).InNamespace(ns.Name))
	if err := namespaces.Delete(ctx, ns.Name, rest.DeleteOptions{}); err != nil {
		t.Fatal(err)
	}
	waitGone(t, ctx, namespaces, ns.Name)
}
