package quota_test

import (
	"errors"
	"slices"
	"strings"
	"testing"

	"github.com/kcmlab/kcm/clock"
	"github.com/kcmlab/kcm/ctrl/resourcequota/quota"
	"github.com/kcmlab/kcm/kube/api"
	"github.com/kcmlab/kcm/kube/api/resource"
)

// draWorld decodes the vectors' DeviceClasses, pods and claims and
// returns the ResourceClaim evaluator over them, and the claims.
func draWorld(t *testing.T) (quota.Evaluator, []*api.ResourceClaim) {
	t.Helper()
	var classes []*api.DeviceClass
	for _, js := range draClasses {
		classes = append(classes, decodeJSON[api.DeviceClass](t, js))
	}
	var pods []*api.Pod
	for _, js := range draPods {
		pods = append(pods, decodeJSON[api.Pod](t, js))
	}
	var claims []*api.ResourceClaim
	for _, js := range draClaims {
		claims = append(claims, decodeJSON[api.ResourceClaim](t, js))
	}
	e := quota.NewResourceClaimEvaluator(inNamespace(claims), func() ([]*api.DeviceClass, error) { return classes, nil },
		inNamespace(pods), clock.NewFake(t0))
	return e, claims
}

// inNamespace is a lister over objs.
func inNamespace[T api.Object](objs []T) func(string) ([]T, error) {
	return func(ns string) ([]T, error) {
		var out []T
		for _, o := range objs {
			if o.GetObjectMeta().Namespace == ns {
				out = append(out, o)
			}
		}
		return out, nil
	}
}

// TestResourceClaimUsage: each claim's usage is kube-controller-manager's
// (resource_claims.go Usage): 1 claim; per DeviceClass the ExactCount,
// AllocationResultsMaxSize (32) for All, nothing for an unknown mode or
// request kind, the most of a FirstAvailable request's subrequests (a
// class asked for 0 there gets no entry); the DRAExtendedResource names
// (requests.deviceclass.resource.kubernetes.io/<class>, and
// requests.<extendedResourceName> of the class), less the owning pod's
// usage for the pod's first extended-resource claim (or the one its
// status names), only when positive.
func TestResourceClaimUsage(t *testing.T) {
	e, claims := draWorld(t)
	if len(claims) != len(draUsage) {
		t.Fatalf("%d claims, %d vectors", len(claims), len(draUsage))
	}
	for i, c := range claims {
		if key := c.Namespace + "/" + c.Name; key != draUsage[i][0] {
			t.Fatalf("claim %d is %s, vector %s", i, key, draUsage[i][0])
		}
		u, err := e.Usage(c)
		if err != nil {
			t.Fatalf("%s: %v", c.Name, err)
		}
		equalLists(t, draUsage[i][0], u, rl(draUsage[i][1]))
	}
}

// TestResourceClaimMatchingResources: the evaluator computes the claim
// count, every <class>.deviceclass.resource.k8s.io/devices name, the
// implicit requests.deviceclass.resource.kubernetes.io/<class> names of
// existing classes and the requests.<extended resource> names a class
// maps; not the bare or limits. names, nor core ones.
func TestResourceClaimMatchingResources(t *testing.T) {
	e, _ := draWorld(t)
	if got := e.MatchingResources(draNames); !slices.Equal(got, draMatching) {
		t.Errorf("MatchingResources:\n got %q\nwant %q", got, draMatching)
	}
	if got := e.GroupResource(); got != (quota.GroupResource{Group: "resource.k8s.io", Resource: "resourceclaims"}) {
		t.Errorf("GroupResource = %v", got)
	}
}

// TestResourceClaimUsageStats: the namespace's sum, every asked name
// starting at 0; a quota with a scope counts no claim (MatchesNoScopeFunc).
func TestResourceClaimUsageStats(t *testing.T) {
	e, _ := draWorld(t)
	for _, v := range draStats {
		var scopes []string
		if v.scopes != "" {
			scopes = strings.Split(v.scopes, ",")
		}
		got, err := e.UsageStats(quota.UsageStatsOptions{Namespace: v.namespace, Scopes: scopes, Resources: draMatching})
		if err != nil {
			t.Fatal(err)
		}
		equalLists(t, v.namespace+" "+v.scopes, got, rl(v.used))
	}
}

// TestResourceClaimListErrors: a failed claim list fails UsageStats (the
// quota's sync is retried); a failed class list maps no extended
// resource; a failed pod list subtracts nothing.
func TestResourceClaimListErrors(t *testing.T) {
	boom := errors.New("boom")
	claim := decodeJSON[api.ResourceClaim](t, draClaims[len(draClaims)-2]) // ext/c10a, the pod's first claim
	e := quota.NewResourceClaimEvaluator(
		func(string) ([]*api.ResourceClaim, error) { return nil, boom },
		func() ([]*api.DeviceClass, error) { return nil, boom },
		func(string) ([]*api.Pod, error) { return nil, boom }, nil)
	if _, err := e.UsageStats(quota.UsageStatsOptions{Namespace: "ext", Resources: []string{"count/resourceclaims.resource.k8s.io"}}); !errors.Is(err, boom) {
		t.Errorf("UsageStats error = %v, want boom", err)
	}
	u, err := e.Usage(claim)
	if err != nil {
		t.Fatal(err)
	}
	equalLists(t, "c10a without classes", u, rl("count/resourceclaims.resource.k8s.io=1,fast.deviceclass.resource.k8s.io/devices=7,requests.deviceclass.resource.kubernetes.io/fast=7"))
	if got := e.MatchingResources([]string{"requests.example.com/fast", "requests.deviceclass.resource.kubernetes.io/fast"}); len(got) != 0 {
		t.Errorf("MatchingResources without classes = %q", got)
	}
}

// TestRegistryInstallsResourceClaims: NewRegistry installs the claim
// evaluator (DynamicResourceAllocation is GA) when given its listers, and
// CalculateUsage reports what the e2e spec "should create a ResourceQuota
// and capture the life of a ResourceClaim" waits for.
func TestRegistryInstallsResourceClaims(t *testing.T) {
	none := func(string) ([]*api.Pod, error) { return nil, nil }
	counts := func(quota.GroupResource) quota.CountFunc { return func(string) (int, error) { return 0, nil } }
	plain := quota.NewRegistry(none, nil, nil, counts, clock.NewFake(t0))
	if plain.Get(quota.ResourceClaimsResource) != nil {
		t.Error("claim evaluator installed without listers")
	}
	claim := decodeJSON[api.ResourceClaim](t, `{"metadata":{"name":"c","namespace":"ns"},"spec":{"devices":{"requests":[`+draExact("r", "gold", "ExactCount", 1)+`]}}}`)
	r := quota.NewRegistry(none, nil, nil, counts, clock.NewFake(t0), quota.WithResourceClaims(
		inNamespace([]*api.ResourceClaim{claim}), func() ([]*api.DeviceClass, error) { return nil, nil }))
	if r.Get(quota.ResourceClaimsResource) == nil {
		t.Fatal("claim evaluator not installed")
	}
	hard := resource.List{
		"count/resourceclaims.resource.k8s.io":     resource.MustParse("1"),
		"gold.deviceclass.resource.k8s.io/devices": resource.MustParse("1"),
	}
	used, err := quota.CalculateUsage("ns", nil, hard, r, nil)
	if err != nil {
		t.Fatal(err)
	}
	equalLists(t, "used", used, rl("count/resourceclaims.resource.k8s.io=1,gold.deviceclass.resource.k8s.io/devices=1"))
	if got := quota.DeviceClassDevicesName("gold"); got != "gold.deviceclass.resource.k8s.io/devices" {
		t.Errorf("DeviceClassDevicesName = %q", got)
	}
}
