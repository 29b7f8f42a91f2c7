//go:build !nocluster

package main

import (
	"context"
	"maps"
	"strings"
	"testing"
	"time"

	"github.com/rs/zerolog"

	"github.com/kcmlab/kcm/kube/api"
	"github.com/kcmlab/kcm/kube/api/decode"
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
	m, err := newDevManager(cl.Config(), cl.KubeconfigPath(), zerolog.Nop(), "")
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
	namespaces := rest.NewResources(c, rest.Namespaces, decode.Typed[api.Namespace]())
	ns, err := namespaces.Create(ctx, &api.Namespace{ObjectMeta: api.ObjectMeta{GenerateName: "kcm-dev-"}})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = namespaces.Delete(context.Background(), ns.Name, rest.DeleteOptions{}) })
	expectLine(t, ctx, tap, synced, "store", "add", ns.Name+"/default")
}

// TestDevRunsADeploymentOnNodes starts the cluster `kcm dev` starts
// (kube-scheduler and kwok with its three nodes in three zones) and the
// manager on it: a Deployment's pods are scheduled to the nodes, get IPs
// and become Running and Ready without anyone marking them, and the
// Deployment reports them ready and available. It runs a cluster of its
// own: the nodes would make the pods of this package's other tests run,
// which hold them Pending on purpose.
func TestDevRunsADeploymentOnNodes(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Minute) // a first build of kwok may happen
	defer cancel()
	began := time.Now()
	cl, err := testenv.Start(ctx, devClusterOptions(3, zerolog.Nop(), nil))
	if err != nil {
		t.Fatal(err)
	}
	defer cl.Stop()
	t.Logf("kcm dev's cluster with 3 nodes ready in %v", time.Since(began))
	c, err := rest.NewClient(cl.Config())
	if err != nil {
		t.Fatal(err)
	}
	defer c.CloseIdleConnections()

	nodes, err := rest.NewResources(c, rest.Nodes, decode.Typed[api.Node]()).List(ctx, rest.ListOptions{})
	if err != nil {
		t.Fatal(err)
	}
	zoneOf := map[string]string{}
	for _, n := range nodes.Items {
		zoneOf[n.Name] = n.Labels[testenv.LabelZone]
		ready := false
		for _, cond := range n.Status.Conditions {
			ready = ready || (cond.Type == "Ready" && cond.Status == "True")
		}
		if !ready {
			t.Errorf("node %s is not Ready: %+v", n.Name, n.Status.Conditions)
		}
	}
	if want := map[string]string{"node-1": "zone-a", "node-2": "zone-b", "node-3": "zone-c"}; !maps.Equal(zoneOf, want) {
		t.Errorf("nodes and zones %v, want %v", zoneOf, want)
	}

	m, err := newDevManager(cl.Config(), cl.KubeconfigPath(), zerolog.Nop(), "")
	if err != nil {
		t.Fatal(err)
	}
	runCtx, stop := context.WithCancel(ctx)
	done := make(chan error, 1)
	go func() { done <- runDevWorkload(runCtx, cl.Config(), devWorkload{Manager: m}, newLineTap()) }()
	defer func() {
		stop()
		if err := <-done; err != nil {
			t.Errorf("runDevWorkload = %v", err)
		}
	}()

	namespaces := rest.NewResources(c, rest.Namespaces, decode.Typed[api.Namespace]())
	ns, err := namespaces.Create(ctx, &api.Namespace{ObjectMeta: api.ObjectMeta{GenerateName: "kcm-dev-nodes-"}})
	if err != nil {
		t.Fatal(err)
	}
	dep, err := decode.Typed[api.Deployment]().Decode([]byte(`{"apiVersion":"apps/v1","kind":"Deployment","metadata":{"name":"web"},
		"spec":{"replicas":3,"selector":{"matchLabels":{"app":"web"}},
		"template":{"metadata":{"labels":{"app":"web"}},"spec":{"containers":[{"name":"web","image":"nginx"}]}}}}`))
	if err != nil {
		t.Fatal(err)
	}
	deployments := rest.NewResources(c, rest.Deployments, decode.Typed[api.Deployment]()).InNamespace(ns.Name)
	created, err := deployments.Create(ctx, dep)
	if err != nil {
		t.Fatal(err)
	}
	createdAt := time.Now()
	watchCtx, cancelWatch := context.WithTimeout(ctx, 2*time.Minute) // the pods are ready in well under a second
	defer cancelWatch()
	w, err := deployments.Watch(watchCtx, rest.WatchOptions{ListOptions: rest.ListOptions{ResourceVersion: created.ResourceVersion}})
	if err != nil {
		t.Fatal(err)
	}
	defer w.Close()
	var last api.DeploymentStatus
	for last.ReadyReplicas != 3 || last.AvailableReplicas != 3 || last.UpdatedReplicas != 3 {
		ev, err := w.Next()
		if err != nil {
			t.Fatalf("watching the Deployment (last status %+v): %v", last, err)
		}
		if ev.Type == rest.Modified {
			last = ev.Object.Status
		}
	}
	t.Logf("the Deployment's 3 pods were ready and available %v after it was created", time.Since(createdAt).Round(time.Millisecond))

	pods, err := rest.NewResources(c, rest.Pods, decode.Typed[api.Pod]()).InNamespace(ns.Name).List(ctx, rest.ListOptions{LabelSelector: "app=web"})
	if err != nil {
		t.Fatal(err)
	}
	if len(pods.Items) != 3 {
		t.Fatalf("%d pods, want 3", len(pods.Items))
	}
	for _, p := range pods.Items {
		ready := false
		for _, cond := range p.Status.Conditions {
			ready = ready || (cond.Type == api.PodReady && cond.Status == "True")
		}
		if _, onNode := zoneOf[p.Spec.NodeName]; !onNode || p.Status.Phase != api.PodRunning || !ready || p.Status.PodIP == "" {
			t.Errorf("pod %s: node %q phase %q ready %t IP %q; want Running and Ready with an IP on a kwok node",
				p.Name, p.Spec.NodeName, p.Status.Phase, ready, p.Status.PodIP)
		}
	}
}
