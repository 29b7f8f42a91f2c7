package garbagecollector

import (
	"context"
	"testing"

	"github.com/rs/zerolog"

	"github.com/kcmlab/kcm/ctrl"
	"github.com/kcmlab/kcm/informer"
	"github.com/kcmlab/kcm/kube/api"
	"github.com/kcmlab/kcm/kube/rest"
)

// TestMonitorsShareTheFactory: built by its constructor, the collector's
// monitor of a resource another controller reads through the shared
// informer factory (pods, here) feeds the graph from that informer, as
// kube-controller-manager's GraphBuilder takes its informers from the
// InformerFactory; a resource nobody else reads (deployments) gets a
// metadata-only monitor of its own; and the collector makes no informer
// in the factory.
func TestMonitorsShareTheFactory(t *testing.T) {
	d := &discoveryServer{
		core: resourceList("v1", apiResource("pods", "Pod", true, "delete", "get", "list", "watch")),
		groups: map[string]string{
			"apps/v1": resourceList("apps/v1", apiResource("deployments", "Deployment", true, "delete", "get", "list", "watch")),
		},
		failed: map[string]bool{},
	}
	cc, err := ctrl.CreateControllerContext(d.client(t), ctrl.Config{Logger: zerolog.Nop()})
	if err != nil {
		t.Fatal(err)
	}
	informer.For[api.Pod](cc.InformerFactory, rest.Pods) // another controller's
	c, err := New(context.Background(), cc, Name)
	if err != nil {
		t.Fatal(err)
	}
	gc := c.(*GarbageCollector)
	defer gc.monitors.StopAll()
	defer gc.deleteLoop.Queue().ShutDown()
	defer gc.orphanLoop.Queue().ShutDown()

	gc.resync(context.Background(), nil)
	pods, _ := gc.monitors.Lookup(rest.Pods)
	deployments, _ := gc.monitors.Lookup(rest.Deployments)
	if pods == nil || deployments == nil {
		t.Fatalf("monitors: pods %v, deployments %v; want both", pods != nil, deployments != nil)
	}
	if !pods.Shared() {
		t.Error("the pods monitor lists and watches pods itself although the factory has a pods informer")
	}
	if deployments.Shared() {
		t.Error("the deployments monitor is shared although no controller asked the factory for deployments")
	}
	if _, ok := cc.InformerFactory.Existing(rest.Deployments); ok {
		t.Error("the collector made a deployments informer in the shared factory")
	}
}
