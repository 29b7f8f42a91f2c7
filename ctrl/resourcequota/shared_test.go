package resourcequota

import (
	"context"
	"net/http/httptest"
	"testing"

	"github.com/rs/zerolog"

	"github.com/kcmlab/kcm/ctrl"
	"github.com/kcmlab/kcm/ctrl/resourcequota/quota"
	"github.com/kcmlab/kcm/informer"
	"github.com/kcmlab/kcm/kube/rest"
)

// TestMonitorsShareTheFactory: built by its constructor, the controller's
// monitor of a quotable resource that another controller reads through
// the shared informer factory (configmaps, here) counts in that informer,
// as kube-controller-manager's QuotaMonitor takes its informers from the
// InformerFactory; one nobody else reads (secrets) gets a monitor of its
// own; the controller adds no informer to the factory for them.
func TestMonitorsShareTheFactory(t *testing.T) {
	srv := httptest.NewServer(&discoveryServer{})
	defer srv.Close()
	client, err := rest.NewClient(&rest.Config{Host: srv.URL}, rest.WithRetryPolicy(rest.RetryPolicy{MaxAttempts: 1}))
	if err != nil {
		t.Fatal(err)
	}
	defer client.CloseIdleConnections()
	cc, err := ctrl.CreateControllerContext(client, ctrl.Config{Logger: zerolog.Nop()})
	if err != nil {
		t.Fatal(err)
	}
	informer.ForRaw(cc.InformerFactory, rest.ConfigMaps) // another controller's
	c, err := New(context.Background(), cc, Name)
	if err != nil {
		t.Fatal(err)
	}
	qc := c.(*Controller)
	defer qc.monitors.StopAll()
	for _, l := range []*ctrl.Loop{qc.primary, qc.priority, qc.changes} {
		defer l.Queue().ShutDown()
	}

	qc.resyncDiscovery(context.Background(), nil, false)
	configmaps, _ := qc.monitors.Lookup(quota.GroupResource{Resource: "configmaps"})
	secrets, _ := qc.monitors.Lookup(quota.GroupResource{Resource: "secrets"})
	if configmaps == nil || secrets == nil {
		t.Fatalf("monitors: configmaps %v, secrets %v; want both", configmaps != nil, secrets != nil)
	}
	if !configmaps.Shared() {
		t.Error("the configmaps monitor lists and watches configmaps itself although the factory has a configmaps informer")
	}
	if secrets.Shared() {
		t.Error("the secrets monitor is shared although no controller asked the factory for secrets")
	}
	if _, ok := cc.InformerFactory.Existing(rest.Secrets); ok {
		t.Error("the controller made a secrets informer in the shared factory")
	}
}
