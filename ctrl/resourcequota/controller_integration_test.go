//go:build !nocluster

package resourcequota

import (
	"context"
	"fmt"
	"maps"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/kcmlab/kcm/internal/testing/ctrltest"
	"github.com/kcmlab/kcm/kube/api"
	"github.com/kcmlab/kcm/kube/api/decode"
	"github.com/kcmlab/kcm/kube/rest"
	"github.com/kcmlab/kcm/testenv"
)

// TestOnRealAPIServer runs the controller as the manager does (its
// descriptor's constructor on a ControllerContext, the factory started),
// with a short discovery period, against kube-apiserver — whose
// ResourceQuota admission charges creations but never gives usage back —
// and checks status.used: the counts of pods, services, configmaps,
// quotas and the custom resources of a CRD installed after the
// controller started (count/<resource>.<group>, through discovery and a
// metadata monitor); then that deleting a pod, turning one Succeeded,
// deleting a custom resource and a configmap each bring status.used down.
func TestOnRealAPIServer(t *testing.T) {
	cl := testenv.Shared(t)
	base, err := rest.NewClient(cl.ManagerConfig())
	if err != nil {
		t.Fatal(err)
	}
	defer base.CloseIdleConnections()
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	ns := cl.Namespace(t)

	d := Descriptor()
	// A full resync every second: the controller, like
	// kube-controller-manager, computes usage from caches that may be a
	// moment behind what quota admission has just charged (a sync retried
	// after a conflict, or two at start, can write such a count, and no
	// creation triggers another); the resync makes each step converge, so
	// the test checks the values and not that race. Replenishment on
	// delete and on a usage change is checked without a resync by the
	// unit tests (TestReplenish, TestReplenishmentHandlers).
	d.Constructor = Constructor(Options{DiscoveryPeriod: 200 * time.Millisecond, SyncPeriod: time.Second})
	ctrltest.Start(t, ctx, base, d, 2)

	// The CRD comes after the controller started: only a discovery resync
	// makes its resource countable.
	widgets := testenv.InstallCRD(t, ctx, base, strings.ToLower(ns)+".rq.kcm.test", "Widget")
	countWidgets := "count/" + widgets.Resource + "." + widgets.Group

	pods := rest.NewResources(base, rest.Pods, decode.Typed[api.Pod]()).InNamespace(ns)
	configmaps := rest.NewResources(base, rest.ConfigMaps, decode.Typed[api.ConfigMap]()).InNamespace(ns)
	services := rest.NewResources(base, rest.Services, decode.Typed[api.Service]()).InNamespace(ns)
	crs := rest.NewResources(base, widgets, decode.Raw()).InNamespace(ns)
	quotas := rest.NewResources(base, ResourceQuotas, decode.Typed[api.ResourceQuota]()).InNamespace(ns)
	for i := range 2 {
		if _, err := pods.Create(ctx, &api.Pod{ObjectMeta: api.ObjectMeta{Name: fmt.Sprintf("pod-%d", i)},
			Spec: api.PodSpec{Containers: []api.Container{{Name: "c", Image: "registry.k8s.io/pause:3.10"}}}}); err != nil {
			t.Fatal(err)
		}
		if _, err := configmaps.Create(ctx, &api.ConfigMap{ObjectMeta: api.ObjectMeta{Name: fmt.Sprintf("cm-%d", i)}}); err != nil {
			t.Fatal(err)
		}
		w, err := api.NewRawObject(map[string]any{"apiVersion": widgets.GroupVersion(), "kind": widgets.Kind,
			"metadata": map[string]any{"name": fmt.Sprintf("widget-%d", i)}})
		if err != nil {
			t.Fatal(err)
		}
		if _, err := crs.Create(ctx, w); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := services.Create(ctx, &api.Service{ObjectMeta: api.ObjectMeta{Name: "svc"},
		Spec: api.ServiceSpec{Ports: []api.ServicePort{{Port: 80}}}}); err != nil {
		t.Fatal(err)
	}
	cms, err := configmaps.List(ctx, rest.ListOptions{}) // and whatever else made some (kube-root-ca.crt)
	if err != nil {
		t.Fatal(err)
	}
	nCM := len(cms.Items)

	q, err := quotas.Create(ctx, &api.ResourceQuota{ObjectMeta: api.ObjectMeta{Name: "quota"},
		Spec: api.ResourceQuotaSpec{Hard: api.ResourceList{
			"pods": "10", "count/pods": "10", "services": "5", "configmaps": "20", "resourcequotas": "2", countWidgets: "10",
		}}})
	if err != nil {
		t.Fatal(err)
	}
	want := api.ResourceList{"pods": "2", "count/pods": "2", "services": "1", "configmaps": strconv.Itoa(nCM),
		"resourcequotas": "1", countWidgets: "2"}
	waitUsed(t, ctx, quotas, q.Name, want, "the first calculation")

	zero := int64(0)
	if err := pods.Delete(ctx, "pod-0", rest.DeleteOptions{GracePeriodSeconds: &zero}); err != nil {
		t.Fatal(err)
	}
	want["pods"], want["count/pods"] = "1", "1"
	waitUsed(t, ctx, quotas, q.Name, want, "a pod deleted")

	p1, err := pods.Get(ctx, "pod-1")
	if err != nil {
		t.Fatal(err)
	}
	done, err := api.DeepCopy(p1)
	if err != nil {
		t.Fatal(err)
	}
	done.Status.Phase = api.PodSucceeded
	if _, err := pods.UpdateStatus(ctx, done); err != nil {
		t.Fatal(err)
	}
	want["pods"] = "0" // terminal: no longer a pod for quota, still an object
	waitUsed(t, ctx, quotas, q.Name, want, "a pod Succeeded")

	if err := crs.Delete(ctx, "widget-0", rest.DeleteOptions{}); err != nil {
		t.Fatal(err)
	}
	want[countWidgets] = "1"
	waitUsed(t, ctx, quotas, q.Name, want, "a custom resource deleted")

	if err := configmaps.Delete(ctx, "cm-0", rest.DeleteOptions{}); err != nil {
		t.Fatal(err)
	}
	want["configmaps"] = strconv.Itoa(nCM - 1)
	waitUsed(t, ctx, quotas, q.Name, want, "a configmap deleted")
}

// waitUsed waits, reading the quota and then watching it, until its
// status.hard is its spec.hard and its status.used is want.
func waitUsed(t *testing.T, ctx context.Context, quotas *rest.Resources[*api.ResourceQuota], name string, want api.ResourceList, what string) {
	t.Helper()
	ok := func(q *api.ResourceQuota) bool {
		return maps.Equal(q.Status.Hard, q.Spec.Hard) && maps.Equal(q.Status.Used, want)
	}
	q, err := quotas.Get(ctx, name)
	if err != nil {
		t.Fatal(err)
	}
	if ok(q) {
		return
	}
	last := q
	w, err := quotas.Watch(ctx, rest.WatchOptions{ListOptions: rest.ListOptions{
		FieldSelector: "metadata.name=" + name, ResourceVersion: q.ResourceVersion, TimeoutSeconds: 110}})
	if err != nil {
		t.Fatal(err)
	}
	defer w.Close()
	for {
		ev, err := w.Next()
		if err != nil {
			t.Fatalf("%s: waiting for status.used %v, last %v (hard %v): %v", what, want, last.Status.Used, last.Status.Hard, err)
		}
		if ev.Type != rest.Modified && ev.Type != rest.Added {
			continue
		}
		if last = ev.Object; ok(last) {
			return
		}
	}
}
