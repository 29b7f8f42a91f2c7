//go:build !nocluster

package serviceaccount

import (
	"context"
	"testing"
	"time"

	"github.com/kcmlab/kcm/internal/testing/ctrltest"
	"github.com/kcmlab/kcm/kube/api"
	"github.com/kcmlab/kcm/kube/api/decode"
	"github.com/kcmlab/kcm/kube/rest"
	"github.com/kcmlab/kcm/testenv"
)

// TestOnRealAPIServer runs the controller the way the manager will — built
// by its descriptor from a ControllerContext, the factory started, the
// loop run — and checks on kube-apiserver that a new namespace gets its
// "default" ServiceAccount and that a deleted one comes back.
func TestOnRealAPIServer(t *testing.T) {
	cl := testenv.Shared(t)
	base, err := rest.NewClient(cl.ManagerConfig())
	if err != nil {
		t.Fatal(err)
	}
	defer base.CloseIdleConnections()
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()

	ctrltest.Start(t, ctx, base, Descriptor(), 1)

	// A namespace made without its account (testenv's Namespace would
	// create one).
	namespaces := rest.NewResources(base, rest.Namespaces, decode.Typed[api.Namespace]())
	ns, err := namespaces.Create(ctx, &api.Namespace{ObjectMeta: api.ObjectMeta{GenerateName: "sa-controller-"}})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		_ = namespaces.Delete(context.Background(), ns.Name, rest.DeleteOptions{})
	})
	accounts := rest.NewResources(base, rest.ServiceAccounts, decode.Typed[api.ServiceAccount]()).InNamespace(ns.Name)
	w, err := accounts.Watch(ctx, rest.WatchOptions{ListOptions: rest.ListOptions{ResourceVersion: ns.ResourceVersion, TimeoutSeconds: 110}})
	if err != nil {
		t.Fatal(err)
	}
	defer w.Close()
	waitFor := func(want rest.EventType) *api.ServiceAccount {
		t.Helper()
		for {
			ev, err := w.Next()
			if err != nil {
				t.Fatalf("waiting for %s of default: %v", want, err)
			}
			if ev.Type == want && ev.Object.Name == DefaultServiceAccount {
				return ev.Object
			}
		}
	}
	first := waitFor(rest.Added)
	if err := accounts.Delete(ctx, DefaultServiceAccount, rest.DeleteOptions{}); err != nil {
		t.Fatal(err)
	}
	waitFor(rest.Deleted)
	again := waitFor(rest.Added)
	if again.UID == first.UID {
		t.Fatal("the re-created account has the deleted one's UID")
	}
}
