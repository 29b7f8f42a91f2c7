//go:build !nocluster

package resourcequota

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

// TestResourceClaimsOnRealAPIServer is the e2e spec "ResourceQuota should
// create a ResourceQuota and capture the life of a ResourceClaim" and
// the DRAExtendedResource names, on kube-apiserver (which serves
// resource.k8s.io/v1, and whose quota admission charges a claim's
// creation but never gives usage back): a quota naming
// count/resourceclaims.resource.k8s.io, gold's devices and a class's
// devices and extended-resource names (the class's
// spec.extendedResourceName, read from the controller's typed DeviceClass
// cache) gets 0s; two claims created are counted; each claim deleted
// brings status.used down (replenishment on delete, recalculated from the
// typed claim cache).
func TestResourceClaimsOnRealAPIServer(t *testing.T) {
	cl := testenv.Shared(t)
	base, err := rest.NewClient(cl.ManagerConfig())
	if err != nil {
		t.Fatal(err)
	}
	defer base.CloseIdleConnections()
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	ns := cl.Namespace(t)

	class := "gpu-" + ns
	extended := "example.com/" + class
	classes := rest.NewResources(base, rest.DeviceClasses, decode.Typed[api.DeviceClass]())
	if _, err := classes.Create(ctx, &api.DeviceClass{ObjectMeta: api.ObjectMeta{Name: class},
		Spec: api.DeviceClassSpec{ExtendedResourceName: &extended}}); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = classes.Delete(context.Background(), class, rest.DeleteOptions{}) })

	d := Descriptor()
	// A full resync every second: the controller, like
	// kube-controller-manager, computes usage from caches that may be a
	// moment behind what quota admission has just charged (a sync retried
	// after a conflict, or two at start, can write such a count, and no
	// creation triggers another); the resync makes each step converge, so
	// the test checks the values and not that race. Replenishment on
	// delete and on a usage change is checked without a resync by the
	// unit tests (TestReplenish, TestReplenishmentHandlers).
	d.Constructor = Constructor(Options{DiscoveryPeriod: time.Second, SyncPeriod: time.Second})
	ctrltest.Start(t, ctx, base, d, 2)

	claims := rest.NewResources(base, rest.ResourceClaims, decode.Typed[api.ResourceClaim]()).InNamespace(ns)
	quotas := rest.NewResources(base, ResourceQuotas, decode.Typed[api.ResourceQuota]()).InNamespace(ns)
	count, gold := "count/resourceclaims.resource.k8s.io", "gold.deviceclass.resource.k8s.io/devices"
	devices, implicit, ext := class+".deviceclass.resource.k8s.io/devices",
		"requests.deviceclass.resource.kubernetes.io/"+class, "requests."+extended
	q, err := quotas.Create(ctx, &api.ResourceQuota{ObjectMeta: api.ObjectMeta{Name: "test-quota"},
		Spec: api.ResourceQuotaSpec{Hard: api.ResourceList{count: "10", gold: "10", devices: "10", implicit: "10", ext: "10"}}})
	if err != nil {
		t.Fatal(err)
	}
	want := api.ResourceList{count: "0", gold: "0", devices: "0", implicit: "0", ext: "0"}
	waitUsed(t, ctx, quotas, q.Name, want, "the first calculation")

	claim := func(name, class string, count int64) *api.ResourceClaim {
		r := api.DeviceRequest{Name: "req-0", Exactly: &api.ExactDeviceRequest{DeviceClassName: class}}
		if count > 0 {
			r.Exactly.AllocationMode, r.Exactly.Count = api.DeviceAllocationModeExactCount, count
		}
		return &api.ResourceClaim{ObjectMeta: api.ObjectMeta{Name: name},
			Spec: api.ResourceClaimSpec{Devices: api.DeviceClaim{Requests: []api.DeviceRequest{r}}}}
	}
	if _, err := claims.Create(ctx, claim("test-claim", "gold", 0)); err != nil { // the e2e spec's claim: 1 by default
		t.Fatal(err)
	}
	want[count], want[gold] = "1", "1"
	waitUsed(t, ctx, quotas, q.Name, want, "a gold claim created")

	if _, err := claims.Create(ctx, claim("gpu-claim", class, 2)); err != nil {
		t.Fatal(err)
	}
	want[count], want[devices], want[implicit], want[ext] = "2", "2", "2", "2"
	waitUsed(t, ctx, quotas, q.Name, want, "a claim of the extended-resource class created")

	if err := claims.Delete(ctx, "test-claim", rest.DeleteOptions{}); err != nil {
		t.Fatal(err)
	}
	want[count], want[gold] = "1", "0"
	waitUsed(t, ctx, quotas, q.Name, want, "the gold claim deleted")

	if err := claims.Delete(ctx, "gpu-claim", rest.DeleteOptions{}); err != nil {
		t.Fatal(err)
	}
	want[count], want[devices], want[implicit], want[ext] = "0", "0", "0", "0"
	waitUsed(t, ctx, quotas, q.Name, want, "the extended-resource claim deleted")
}
