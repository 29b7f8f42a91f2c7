package manager

import (
	"context"
	"slices"
	"testing"

	"github.com/rs/zerolog"

	"github.com/kcmlab/kcm/ctrl"
	"github.com/kcmlab/kcm/ctrl/garbagecollector"
	"github.com/kcmlab/kcm/ctrl/nodelifecycle"
	"github.com/kcmlab/kcm/ctrl/resourcequota"
	"github.com/kcmlab/kcm/ctrl/serviceaccounttoken"
	"github.com/kcmlab/kcm/ctrl/tainteviction"
	"github.com/kcmlab/kcm/kube/rest"
)

// TestControllersWaitOnTheirRegistrations: every controller of the
// registry that runs a ctrl.Loop is wired with ctrl.Wire and waits for
// its own handler registrations — "<informer>/<controller>" — and nothing
// else (processor/doc.go: a controller waits on its own registrations).
// The garbage collector runs its own loops over per-resource monitors,
// which wait on their graph handler's registrations (tested in its
// package); the node lifecycle controller runs two loops and its periodic
// passes; the resource quota controller runs three loops over its
// handlers' registrations and its monitors (tested in its package). Their
// Run is checked to return on an ended context.
func TestControllersWaitOnTheirRegistrations(t *testing.T) {
	want := map[string][]string{
		"namespace-controller":      {"namespaces/namespace-controller"},
		"serviceaccount-controller": {"namespaces/serviceaccount-controller", "serviceaccounts/serviceaccount-controller"},
		"replicaset-controller":     {"replicasets.apps/replicaset-controller", "pods/replicaset-controller"},
		"deployment-controller": {"deployments.apps/deployment-controller", "replicasets.apps/deployment-controller",
			"pods/deployment-controller"},
		"statefulset-controller": {"statefulsets.apps/statefulset-controller", "pods/statefulset-controller",
			"persistentvolumeclaims", "controllerrevisions.apps"},
		"endpoints-controller": {"services/endpoints-controller", "pods/endpoints-controller", "endpoints/endpoints-controller"},
		"endpointslice-controller": {"services/endpointslice-controller", "pods/endpointslice-controller",
			"nodes/endpointslice-controller", "endpointslices.discovery.k8s.io/endpointslice-controller"},
		"endpointslice-mirroring-controller": {"endpoints/endpointslice-mirroring-controller",
			"endpointslices.discovery.k8s.io/endpointslice-mirroring-controller", "services/endpointslice-mirroring-controller"},
		// The pod garbage collector registers no handler: each pass reads
		// the whole caches, so it waits for the informers.
		"pod-garbage-collector-controller": {"pods", "nodes"},
		"taint-eviction-controller":        {"pods/taint-eviction-controller", "nodes/taint-eviction-controller"},
		"root-ca-certificate-publisher-controller": {"namespaces/root-ca-certificate-publisher-controller",
			"configmaps/root-ca-certificate-publisher-controller"},
		// A pass of the legacy token cleaner reads whole caches too.
		"legacy-serviceaccount-token-cleaner-controller": {"serviceaccounts", "secrets", "pods"},
	}
	client, err := rest.NewClient(&rest.Config{Host: "https://127.0.0.1:1"})
	if err != nil {
		t.Fatal(err)
	}
	cc, err := ctrl.CreateControllerContext(client, ctrl.Config{Logger: zerolog.Nop()})
	if err != nil {
		t.Fatal(err)
	}
	for _, d := range NewControllerDescriptors().All() {
		c, err := d.Constructor(context.Background(), cc, d.Name)
		if err != nil {
			t.Fatalf("%s: %v", d.Name, err)
		}
		if c == nil { // nothing to run: the token controller without --service-account-private-key-file
			if d.Name != serviceaccounttoken.Name {
				t.Errorf("%s: no controller", d.Name)
			}
			continue
		}
		loop, ok := c.(*ctrl.Loop)
		if r, runner := c.(*tainteviction.Runner); runner { // its loop, run with upstream's 8 workers
			loop, ok = r.Loop, true
		}
		if !ok {
			if d.Name != garbagecollector.Name && d.Name != nodelifecycle.Name && d.Name != resourcequota.Name {
				t.Errorf("%s runs a %T, not a wired ctrl.Loop", d.Name, c)
			}
			stopped, stop := context.WithCancel(context.Background())
			stop()
			if err := c.Run(stopped, 1); err != nil { // returns at once, its queues shut down
				t.Errorf("%s: Run on an ended context: %v", d.Name, err)
			}
			continue
		}
		loop.Queue().ShutDown()
		if got := loop.WaitsFor(); !slices.Equal(got, want[d.Name]) {
			t.Errorf("%s waits for %q, want %q", d.Name, got, want[d.Name])
		}
	}
}
