package resourcequota

import (
	"context"
	"errors"
	"slices"
	"testing"

	"github.com/rs/zerolog"

	"github.com/kcmlab/kcm/clock"
	"github.com/kcmlab/kcm/ctrl/resourcequota/quota"
	"github.com/kcmlab/kcm/kube/api"
)

// TestResourceClaimReplenishment: a claim deleted, or updated so that its
// usage changes (here the extended-resource annotation makes its owning
// pod's request of the class count instead of the claim's), signals a
// change of resourceclaims in its namespace, whose replenishment queues
// the quotas tracking a claim resource; an add or a label change does
// not.
func TestResourceClaimReplenishment(t *testing.T) {
	quotas := []*api.ResourceQuota{
		rq("claims", list("count/resourceclaims.resource.k8s.io", "10"), synced(list("count/resourceclaims.resource.k8s.io", "1"))),
		rq("gold", list("gold.deviceclass.resource.k8s.io/devices", "10"), synced(list("gold.deviceclass.resource.k8s.io/devices", "1"))),
		rq("pods", list("pods", "10"), synced(list("pods", "1"))),
	}
	f := newFixture(t, quotas, nil, nil)
	owner := pod("p", api.PodRunning)
	owner.Spec.Containers[0].Resources.Requests = api.ResourceList{"deviceclass.resource.kubernetes.io/gold": "1"}
	f.c.registry.Add(quota.NewResourceClaimEvaluator(
		func(string) ([]*api.ResourceClaim, error) { return nil, nil }, nil,
		func(string) ([]*api.Pod, error) { return []*api.Pod{owner}, nil }, f.clock))
	h := replenisher(f.c, resourceClaimsGR, f.c.resourceClaimChanged)

	yes := true
	claim := func(edit func(*api.ResourceClaim)) *api.ResourceClaim {
		c := &api.ResourceClaim{ObjectMeta: api.ObjectMeta{Namespace: "ns", Name: "c",
			OwnerReferences: []api.OwnerReference{{APIVersion: "v1", Kind: "Pod", Name: "p", UID: owner.UID, Controller: &yes}}},
			Spec: api.ResourceClaimSpec{Devices: api.DeviceClaim{Requests: []api.DeviceRequest{{Name: "r",
				Exactly: &api.ExactDeviceRequest{DeviceClassName: "gold", AllocationMode: api.DeviceAllocationModeExactCount, Count: 1}}}}}}
		if edit != nil {
			edit(c)
		}
		return c
	}
	annotated := claim(func(c *api.ResourceClaim) {
		c.Annotations = map[string]string{api.ExtendedResourceClaimAnnotation: "true"}
	})
	labelled := claim(func(c *api.ResourceClaim) { c.Labels = map[string]string{"a": "b"} })
	for _, tt := range []struct {
		name string
		do   func()
		want []string
	}{
		{"claim added", func() { h.OnAdd(claim(nil), false) }, nil},
		{"claim relabelled", func() { h.OnUpdate(claim(nil), labelled) }, nil},
		{"claim marked as the pod's extended-resource claim", func() { h.OnUpdate(claim(nil), annotated) }, []string{"ns/resourceclaims.resource.k8s.io"}},
		{"claim deleted", func() { h.OnDelete(claim(nil), false) }, []string{"ns/resourceclaims.resource.k8s.io"}},
	} {
		tt.do()
		if got := drain(t, f.c.changes.Queue()); !slices.Equal(got, tt.want) {
			t.Errorf("%s: changes %q, want %q", tt.name, got, tt.want)
		}
	}
	if _, err := f.c.replenish(context.Background(), "ns/resourceclaims.resource.k8s.io"); err != nil {
		t.Fatal(err)
	}
	got := drain(t, f.c.primary.Queue())
	slices.Sort(got)
	if want := []string{"ns/claims", "ns/gold"}; !slices.Equal(got, want) {
		t.Errorf("replenishment queued %q, want %q", got, want)
	}
}

// TestResourceClaimCachesNotSynced: until the claims and classes caches
// have synced, the claim lister fails with ErrNotSynced (the quota's sync
// is retried) instead of answering an empty namespace.
func TestResourceClaimCachesNotSynced(t *testing.T) {
	f := newFixture(t, nil, nil, nil)
	d, err := newDRACaches(f.api.Client(), clock.NewFake(t0), zerolog.Nop())
	if err != nil {
		t.Fatal(err)
	}
	if _, err := d.claimLister()("ns"); !errors.Is(err, ErrNotSynced) {
		t.Errorf("claims listed before any sync: err = %v, want ErrNotSynced", err)
	}
	if got := draOptions(listers{}); got != nil {
		t.Errorf("draOptions without listers = %d options", len(got))
	}
}
