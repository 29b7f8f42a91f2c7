//go:build !nocluster

package main

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/rs/zerolog"

	"github.com/kcmlab/kcm/kube/api"
	"github.com/kcmlab/kcm/kube/rest"
	"github.com/kcmlab/kcm/testenv"
)

// TestDevRunsTheManager runs what `kcm dev` runs by default — the
// controller manager and a trace — on the shared real cluster: a namespace
// created without its default ServiceAccount gets one from the manager's
// serviceaccount controller, and the trace shows it arrive. Stopping
// returns nil.
func TestDevRunsTheManager(t *testing.T) {
	cl := testenv.Shared(t)
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	m, err := newDevManager(cl.Config(), zerolog.Nop(), "")
	if err != nil {
		t.Fatal(err)
	}
	var desc strings.Builder
	m.describe(&desc)
	if !strings.Contains(desc.String(), "serviceaccount-controller") || !strings.Contains(desc.String(), "kube-system/kube-controller-manager") {
		t.Errorf("describe = %q", desc.String())
	}
	tap := newLineTap()
	runCtx, stop := context.WithCancel(ctx)
	done := make(chan error, 1)
	go func() {
		done <- runDevWorkload(runCtx, cl.Config(), devWorkload{Trace: "sa", Manager: m}, tap)
	}()
	defer func() {
		stop()
		if err := <-done; err != nil {
			t.Errorf("runDevWorkload = %v", err)
		}
	}()
	synced := expectLine(t, ctx, tap, 0, "informer", "synced")

	c, err := rest.NewClient(cl.Config())
	if err != nil {
		t.Fatal(err)
	}
	defer c.CloseIdleConnections()
	namespaces := rest.NewResources(c, rest.Namespaces, api.Typed[api.Namespace]())
	ns, err := namespaces.Create(ctx, &api.Namespace{ObjectMeta: api.ObjectMeta{GenerateName: "kcm-dev-"}})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = namespaces.Delete(context.Background(), ns.Name, rest.DeleteOptions{}) })
	expectLine(t, ctx, tap, synced, "store", "add", ns.Name+"/default")
}
