//go:build !nocluster

package serviceaccounttoken

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/rs/zerolog"
	"github.com/spf13/pflag"

	"github.com/kcmlab/kcm/ctrl"
	"github.com/kcmlab/kcm/kube/api"
	"github.com/kcmlab/kcm/kube/api/decode"
	"github.com/kcmlab/kcm/kube/rest"
	"github.com/kcmlab/kcm/testenv"
)

// TestTokenAuthenticatesOnRealAPIServer runs the controller as the manager
// does — from its descriptor, with --service-account-private-key-file set
// to the key kube-apiserver verifies tokens with (testenv's
// ServiceAccountKeyFile) — and checks on kube-apiserver that a token
// Secret is filled (token, ca.crt = the apiserver CA kcm trusts,
// namespace, the account's UID annotation), that the token authenticates
// a request as the ServiceAccount (a SelfSubjectReview answers its user
// name, UID and groups), and that deleting the account deletes the
// Secret.
func TestTokenAuthenticatesOnRealAPIServer(t *testing.T) {
	cl := testenv.Shared(t)
	cfg := cl.ManagerConfig()
	base, err := rest.NewClient(cfg)
	if err != nil {
		t.Fatal(err)
	}
	defer base.CloseIdleConnections()
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()

	ds, err := ctrl.NewDescriptors(Descriptor())
	if err != nil {
		t.Fatal(err)
	}
	o := ds.NewOptions()
	fs := pflag.NewFlagSet("kcm", pflag.ContinueOnError)
	ds.AddFlags(fs, o)
	if err := fs.Parse([]string{"--service-account-private-key-file=" + cl.ServiceAccountKeyFile()}); err != nil {
		t.Fatal(err)
	}
	cc, err := ctrl.CreateControllerContext(base, ctrl.Config{Version: "vtest", Options: o, Logger: zerolog.Nop(), APIServerCAData: cfg.TLS.CAData})
	if err != nil {
		t.Fatal(err)
	}
	c, err := Descriptor().Constructor(ctx, cc, Name)
	if err != nil || c == nil {
		t.Fatalf("building the controller: %v, %v", c, err)
	}
	runCtx, stop := context.WithCancel(ctx)
	done := make(chan error, 1)
	cc.InformerFactory.Start(runCtx)
	go func() { done <- c.Run(runCtx, DefaultConcurrency) }()
	defer func() {
		stop()
		if err := <-done; err != nil {
			t.Errorf("Run: %v", err)
		}
		cc.InformerFactory.Shutdown()
	}()

	ns := cl.Namespace(t)
	accounts := rest.NewResources(base, rest.ServiceAccounts, decode.Typed[api.ServiceAccount]()).InNamespace(ns)
	secrets := rest.NewResources(base, rest.Secrets, decode.Typed[api.Secret]()).InNamespace(ns)
	sa, err := accounts.Create(ctx, &api.ServiceAccount{ObjectMeta: api.ObjectMeta{Name: "builder"}})
	if err != nil {
		t.Fatal(err)
	}
	created, err := secrets.Create(ctx, &api.Secret{ObjectMeta: api.ObjectMeta{Name: "builder-token",
		Annotations: map[string]string{api.ServiceAccountNameKey: "builder"}}, Type: api.SecretTypeServiceAccountToken})
	if err != nil {
		t.Fatal(err)
	}
	w, err := secrets.Watch(ctx, rest.WatchOptions{ListOptions: rest.ListOptions{FieldSelector: "metadata.name=builder-token",
		ResourceVersion: created.ResourceVersion, TimeoutSeconds: 110}})
	if err != nil {
		t.Fatal(err)
	}
	defer w.Close()
	var filled *api.Secret
	for filled == nil {
		ev, err := w.Next()
		if err != nil {
			t.Fatalf("waiting for the token: %v", err)
		}
		if ev.Type == rest.Modified && len(ev.Object.Data[api.ServiceAccountTokenKey]) > 0 {
			filled = ev.Object
		}
	}
	if string(filled.Data["namespace"]) != ns || string(filled.Data["ca.crt"]) != string(cfg.TLS.CAData) ||
		filled.Annotations[api.ServiceAccountUIDKey] != sa.UID {
		t.Fatalf("filled secret: namespace %q, ca.crt %d bytes (want %d), annotations %v", filled.Data["namespace"],
			len(filled.Data["ca.crt"]), len(cfg.TLS.CAData), filled.Annotations)
	}

	// The token authenticates as the account.
	asAccount, err := rest.NewClient(&rest.Config{Host: cfg.Host, TLS: cfg.TLS,
		Credentials: rest.StaticToken(string(filled.Data[api.ServiceAccountTokenKey]))})
	if err != nil {
		t.Fatal(err)
	}
	defer asAccount.CloseIdleConnections()
	reviews := rest.NewResources(asAccount, rest.Resource{Group: "authentication.k8s.io", Version: "v1",
		Resource: "selfsubjectreviews", Kind: "SelfSubjectReview"}, decode.Raw())
	review, err := api.NewRawObject(map[string]any{"apiVersion": "authentication.k8s.io/v1", "kind": "SelfSubjectReview"})
	if err != nil {
		t.Fatal(err)
	}
	got, err := reviews.Create(ctx, review)
	if err != nil {
		t.Fatalf("SelfSubjectReview with the token: %v", err)
	}
	user, _, _ := got.NestedField("status", "userInfo")
	u, _ := user.(map[string]any)
	if u["username"] != "system:serviceaccount:"+ns+":builder" || u["uid"] != sa.UID ||
		fmt.Sprint(u["groups"]) != fmt.Sprintf("[system:serviceaccounts system:serviceaccounts:%s system:authenticated]", ns) {
		t.Fatalf("authenticated as %v", u)
	}

	// Deleting the account deletes its token.
	if err := accounts.Delete(ctx, "builder", rest.DeleteOptions{}); err != nil {
		t.Fatal(err)
	}
	for {
		ev, err := w.Next()
		if err != nil {
			t.Fatalf("waiting for the token's deletion: %v", err)
		}
		if ev.Type == rest.Deleted {
			break
		}
	}
}
