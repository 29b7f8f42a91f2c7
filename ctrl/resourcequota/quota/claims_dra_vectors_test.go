package quota_test

import "fmt"

// The vectors below are facts about kube-controller-manager v1.37.2's
// ResourceClaim evaluator (k8s.io/kubernetes pkg/quota/v1/evaluator/core
// resource_claims.go, installed by NewEvaluators with the shared informers
// of a fake clientset holding the DeviceClasses, pods and claims below, at
// the release's default feature gates: DynamicResourceAllocation and
// DRAExtendedResource on), printed by a throw-away module under /tmp. No
// Kubernetes code is in kcm: only its answers.

var draClasses = []string{
	`{"metadata":{"name":"gold","creationTimestamp":"2026-03-01T10:00:00Z"},"spec":{}}`,
	`{"metadata":{"name":"gpu","creationTimestamp":"2026-03-01T10:00:00Z"},"spec":{"extendedResourceName":"example.com/gpu"}}`,
	`{"metadata":{"name":"gpu-new","creationTimestamp":"2026-03-01T11:00:00Z"},"spec":{"extendedResourceName":"example.com/gpu"}}`,
	`{"metadata":{"name":"fast","creationTimestamp":"2026-03-01T10:00:00Z"},"spec":{"extendedResourceName":"example.com/fast"}}`,
}

var draPods = []string{
	`{"metadata":{"name":"p1","namespace":"ext","uid":"u1"},"spec":{"containers":[{"name":"c","image":"i","resources":{"requests":{"example.com/gpu":"1","deviceclass.resource.kubernetes.io/gold":"2"},"limits":{"example.com/gpu":"1","deviceclass.resource.kubernetes.io/gold":"2"}}}]},"status":{"phase":"Running"}}`,
	`{"metadata":{"name":"p2","namespace":"ext","uid":"u2"},"spec":{"containers":[{"name":"c","image":"i","resources":{"requests":{"example.com/gpu":"1"},"limits":{"example.com/gpu":"1"}}}]},"status":{"phase":"Running","extendedResourceClaimStatus":{"resourceClaimName":"c5","requestMappings":[]}}}`,
	`{"metadata":{"name":"p3","namespace":"ext","uid":"u3"},"spec":{"containers":[{"name":"c","image":"i","resources":{"requests":{"example.com/gpu":"1"},"limits":{"example.com/gpu":"1"}}}]},"status":{"phase":"Succeeded"}}`,
	`{"metadata":{"name":"p4","namespace":"ext","uid":"u4"},"spec":{"containers":[{"name":"c","image":"i","resources":{"requests":{"example.com/fast":"5"},"limits":{"example.com/fast":"5"}}}]},"status":{"phase":"Running"}}`,
}

const draAnn = `"annotations":{"resource.kubernetes.io/extended-resource-claim":"true"}`

func draOwner(kind, api, name, uid string) string {
	return fmt.Sprintf(`"ownerReferences":[{"apiVersion":%q,"kind":%q,"name":%q,"uid":%q,"controller":true}]`, api, kind, name, uid)
}

func draExact(name, class, mode string, count int) string {
	return fmt.Sprintf(`{"name":%q,"exactly":{"deviceClassName":%q,"allocationMode":%q,"count":%d}}`, name, class, mode, count)
}

var draClaims = []string{
	`{"metadata":{"name":"exact-2-gold","namespace":"ns"},"spec":{"devices":{"requests":[` + draExact("r", "gold", "ExactCount", 2) + `]}}}`,
	`{"metadata":{"name":"all-gold","namespace":"ns"},"spec":{"devices":{"requests":[` + draExact("r", "gold", "All", 0) + `]}}}`,
	`{"metadata":{"name":"unknown-mode","namespace":"ns"},"spec":{"devices":{"requests":[` + draExact("r", "gold", "Future", 4) + `]}}}`,
	`{"metadata":{"name":"exact-zero","namespace":"ns"},"spec":{"devices":{"requests":[` + draExact("r", "gold", "ExactCount", 0) + `]}}}`,
	`{"metadata":{"name":"first-available","namespace":"ns"},"spec":{"devices":{"requests":[{"name":"r","firstAvailable":[{"name":"a","deviceClassName":"gold","allocationMode":"ExactCount","count":1},{"name":"b","deviceClassName":"gold","allocationMode":"ExactCount","count":3},{"name":"c","deviceClassName":"silver","allocationMode":"All"},{"name":"d","deviceClassName":"gold","allocationMode":"ExactCount","count":2}]}]}}}`,
	`{"metadata":{"name":"first-unknown","namespace":"ns"},"spec":{"devices":{"requests":[{"name":"r","firstAvailable":[{"name":"a","deviceClassName":"gold","allocationMode":"Future","count":1},{"name":"b","deviceClassName":"silver","allocationMode":"ExactCount","count":0}]}]}}}`,
	`{"metadata":{"name":"multi","namespace":"ns"},"spec":{"devices":{"requests":[` + draExact("a", "gold", "ExactCount", 1) + `,` + draExact("b", "gold", "ExactCount", 2) + `,{"name":"c","firstAvailable":[{"name":"x","deviceClassName":"gpu","allocationMode":"ExactCount","count":1},{"name":"y","deviceClassName":"fast","allocationMode":"ExactCount","count":2}]}]}}}`,
	`{"metadata":{"name":"unknown-kind","namespace":"ns"},"spec":{"devices":{"requests":[{"name":"r"}]}}}`,
	`{"metadata":{"name":"empty-class","namespace":"ns"},"spec":{"devices":{"requests":[` + draExact("r", "", "ExactCount", 1) + `]}}}`,
	`{"metadata":{"name":"no-requests","namespace":"ns"},"spec":{"devices":{}}}`,
	`{"metadata":{"name":"c1","namespace":"ext","creationTimestamp":"2026-03-01T12:00:00Z",` + draAnn + `,` + draOwner("Pod", "v1", "p1", "u1") + `},"spec":{"devices":{"requests":[` + draExact("a", "gpu", "ExactCount", 2) + `,` + draExact("b", "gold", "ExactCount", 2) + `]}}}`,
	`{"metadata":{"name":"c2","namespace":"ext","creationTimestamp":"2026-03-01T12:00:01Z",` + draAnn + `,` + draOwner("Pod", "v1", "p1", "u1") + `},"spec":{"devices":{"requests":[` + draExact("a", "gpu", "ExactCount", 2) + `]}}}`,
	`{"metadata":{"name":"c3","namespace":"ext","creationTimestamp":"2026-03-01T11:00:00Z",` + draAnn + `,` + draOwner("Pod", "v1", "p1", "other") + `},"spec":{"devices":{"requests":[` + draExact("a", "gpu", "ExactCount", 2) + `]}}}`,
	`{"metadata":{"name":"c4","namespace":"ext","creationTimestamp":"2026-03-01T11:00:00Z",` + draAnn + `,` + draOwner("Pod", "v1", "p2", "u2") + `},"spec":{"devices":{"requests":[` + draExact("a", "gpu", "ExactCount", 2) + `]}}}`,
	`{"metadata":{"name":"c5","namespace":"ext","creationTimestamp":"2026-03-01T12:00:00Z",` + draAnn + `,` + draOwner("Pod", "v1", "p2", "u2") + `},"spec":{"devices":{"requests":[` + draExact("a", "gpu", "ExactCount", 2) + `]}}}`,
	`{"metadata":{"name":"c6","namespace":"ext",` + draAnn + `,` + draOwner("ReplicaSet", "apps/v1", "p1", "u1") + `},"spec":{"devices":{"requests":[` + draExact("a", "gpu", "ExactCount", 2) + `]}}}`,
	`{"metadata":{"name":"c7","namespace":"ext",` + draOwner("Pod", "v1", "p1", "u1") + `},"spec":{"devices":{"requests":[` + draExact("a", "gpu", "ExactCount", 2) + `]}}}`,
	`{"metadata":{"name":"c8","namespace":"ext",` + draAnn + `,` + draOwner("Pod", "v1", "gone", "ug") + `},"spec":{"devices":{"requests":[` + draExact("a", "gpu", "ExactCount", 2) + `]}}}`,
	`{"metadata":{"name":"c9","namespace":"ext",` + draAnn + `,` + draOwner("Pod", "v1", "p3", "u3") + `},"spec":{"devices":{"requests":[` + draExact("a", "gpu", "ExactCount", 2) + `]}}}`,
	`{"metadata":{"name":"c10b","namespace":"ext","creationTimestamp":"2026-03-01T12:00:00Z",` + draAnn + `,` + draOwner("Pod", "v1", "p4", "u4") + `},"spec":{"devices":{"requests":[` + draExact("a", "fast", "ExactCount", 3) + `]}}}`,
	`{"metadata":{"name":"c10a","namespace":"ext","creationTimestamp":"2026-03-01T12:00:00Z",` + draAnn + `,` + draOwner("Pod", "v1", "p4", "u4") + `},"spec":{"devices":{"requests":[` + draExact("a", "fast", "ExactCount", 3) + `,` + draExact("b", "fast", "ExactCount", 4) + `]}}}`,
	`{"metadata":{"name":"c11","namespace":"ext","creationTimestamp":"2026-03-01T12:00:00Z",` + draAnn + `,` + draOwner("Pod", "apps/v1", "p4", "u4") + `},"spec":{"devices":{"requests":[` + draExact("a", "fast", "ExactCount", 3) + `]}}}`,
}

// draUsage is each claim's Usage, in draClaims order ("namespace/name", list).
var draUsage = [][2]string{
	{"ns/exact-2-gold", "count/resourceclaims.resource.k8s.io=1,gold.deviceclass.resource.k8s.io/devices=2,requests.deviceclass.resource.kubernetes.io/gold=2"},
	{"ns/all-gold", "count/resourceclaims.resource.k8s.io=1,gold.deviceclass.resource.k8s.io/devices=32,requests.deviceclass.resource.kubernetes.io/gold=32"},
	{"ns/unknown-mode", "count/resourceclaims.resource.k8s.io=1,gold.deviceclass.resource.k8s.io/devices=0"},
	{"ns/exact-zero", "count/resourceclaims.resource.k8s.io=1,gold.deviceclass.resource.k8s.io/devices=0"},
	{"ns/first-available", "count/resourceclaims.resource.k8s.io=1,gold.deviceclass.resource.k8s.io/devices=3,requests.deviceclass.resource.kubernetes.io/gold=3,requests.deviceclass.resource.kubernetes.io/silver=32,silver.deviceclass.resource.k8s.io/devices=32"},
	{"ns/first-unknown", "count/resourceclaims.resource.k8s.io=1"},
	{"ns/multi", "count/resourceclaims.resource.k8s.io=1,fast.deviceclass.resource.k8s.io/devices=2,gold.deviceclass.resource.k8s.io/devices=3,gpu.deviceclass.resource.k8s.io/devices=1,requests.deviceclass.resource.kubernetes.io/fast=2,requests.deviceclass.resource.kubernetes.io/gold=3,requests.deviceclass.resource.kubernetes.io/gpu=1,requests.example.com/fast=2,requests.example.com/gpu=1"},
	{"ns/unknown-kind", "count/resourceclaims.resource.k8s.io=1"},
	{"ns/empty-class", ".deviceclass.resource.k8s.io/devices=1,count/resourceclaims.resource.k8s.io=1"},
	{"ns/no-requests", "count/resourceclaims.resource.k8s.io=1"},
	{"ext/c1", "count/resourceclaims.resource.k8s.io=1,gold.deviceclass.resource.k8s.io/devices=2,gpu.deviceclass.resource.k8s.io/devices=2,requests.deviceclass.resource.kubernetes.io/gpu=2,requests.example.com/gpu=1"},
	{"ext/c2", "count/resourceclaims.resource.k8s.io=1,gpu.deviceclass.resource.k8s.io/devices=2,requests.deviceclass.resource.kubernetes.io/gpu=2,requests.example.com/gpu=2"},
	{"ext/c3", "count/resourceclaims.resource.k8s.io=1,gpu.deviceclass.resource.k8s.io/devices=2,requests.deviceclass.resource.kubernetes.io/gpu=2,requests.example.com/gpu=2"},
	{"ext/c4", "count/resourceclaims.resource.k8s.io=1,gpu.deviceclass.resource.k8s.io/devices=2,requests.deviceclass.resource.kubernetes.io/gpu=2,requests.example.com/gpu=2"},
	{"ext/c5", "count/resourceclaims.resource.k8s.io=1,gpu.deviceclass.resource.k8s.io/devices=2,requests.deviceclass.resource.kubernetes.io/gpu=2,requests.example.com/gpu=1"},
	{"ext/c6", "count/resourceclaims.resource.k8s.io=1,gpu.deviceclass.resource.k8s.io/devices=2,requests.deviceclass.resource.kubernetes.io/gpu=2,requests.example.com/gpu=2"},
	{"ext/c7", "count/resourceclaims.resource.k8s.io=1,gpu.deviceclass.resource.k8s.io/devices=2,requests.deviceclass.resource.kubernetes.io/gpu=2,requests.example.com/gpu=2"},
	{"ext/c8", "count/resourceclaims.resource.k8s.io=1,gpu.deviceclass.resource.k8s.io/devices=2,requests.deviceclass.resource.kubernetes.io/gpu=2,requests.example.com/gpu=2"},
	{"ext/c9", "count/resourceclaims.resource.k8s.io=1,gpu.deviceclass.resource.k8s.io/devices=2,requests.deviceclass.resource.kubernetes.io/gpu=2,requests.example.com/gpu=2"},
	{"ext/c10b", "count/resourceclaims.resource.k8s.io=1,fast.deviceclass.resource.k8s.io/devices=3,requests.deviceclass.resource.kubernetes.io/fast=3,requests.example.com/fast=3"},
	{"ext/c10a", "count/resourceclaims.resource.k8s.io=1,fast.deviceclass.resource.k8s.io/devices=7,requests.deviceclass.resource.kubernetes.io/fast=7,requests.example.com/fast=2"},
	{"ext/c11", "count/resourceclaims.resource.k8s.io=1,fast.deviceclass.resource.k8s.io/devices=3,requests.deviceclass.resource.kubernetes.io/fast=3,requests.example.com/fast=3"},
}

// draNames are the quota names MatchingResources is given.
var draNames = []string{
	"count/resourceclaims.resource.k8s.io", "resourceclaims", "gold.deviceclass.resource.k8s.io/devices",
	"silver.deviceclass.resource.k8s.io/devices", ".deviceclass.resource.k8s.io/devices",
	"requests.deviceclass.resource.kubernetes.io/gold", "requests.deviceclass.resource.kubernetes.io/gpu",
	"requests.deviceclass.resource.kubernetes.io/nosuch", "requests.example.com/gpu", "requests.example.com/fast",
	"requests.example.com/other", "requests.cpu", "example.com/gpu", "count/pods", "requests.deviceclass.resource.kubernetes.io/fast",
	"limits.example.com/gpu", "deviceclass.resource.kubernetes.io/gold",
}

// draMatching is what MatchingResources returns of draNames, in order.
var draMatching = []string{"count/resourceclaims.resource.k8s.io", "gold.deviceclass.resource.k8s.io/devices", "silver.deviceclass.resource.k8s.io/devices", ".deviceclass.resource.k8s.io/devices", "requests.deviceclass.resource.kubernetes.io/gold", "requests.deviceclass.resource.kubernetes.io/gpu", "requests.example.com/gpu", "requests.example.com/fast", "requests.deviceclass.resource.kubernetes.io/fast"}

// draStats is UsageStats of the matching names per namespace and scopes.
var draStats = []struct{ namespace, scopes, used string }{
	{"ns", "", ".deviceclass.resource.k8s.io/devices=1,count/resourceclaims.resource.k8s.io=10,fast.deviceclass.resource.k8s.io/devices=2,gold.deviceclass.resource.k8s.io/devices=40,gpu.deviceclass.resource.k8s.io/devices=1,requests.deviceclass.resource.kubernetes.io/fast=2,requests.deviceclass.resource.kubernetes.io/gold=40,requests.deviceclass.resource.kubernetes.io/gpu=1,requests.deviceclass.resource.kubernetes.io/silver=32,requests.example.com/fast=2,requests.example.com/gpu=1,silver.deviceclass.resource.k8s.io/devices=32"},
	{"ns", "BestEffort", ".deviceclass.resource.k8s.io/devices=0,count/resourceclaims.resource.k8s.io=0,gold.deviceclass.resource.k8s.io/devices=0,requests.deviceclass.resource.kubernetes.io/fast=0,requests.deviceclass.resource.kubernetes.io/gold=0,requests.deviceclass.resource.kubernetes.io/gpu=0,requests.example.com/fast=0,requests.example.com/gpu=0,silver.deviceclass.resource.k8s.io/devices=0"},
	{"ext", "", ".deviceclass.resource.k8s.io/devices=0,count/resourceclaims.resource.k8s.io=12,fast.deviceclass.resource.k8s.io/devices=13,gold.deviceclass.resource.k8s.io/devices=2,gpu.deviceclass.resource.k8s.io/devices=18,requests.deviceclass.resource.kubernetes.io/fast=13,requests.deviceclass.resource.kubernetes.io/gold=0,requests.deviceclass.resource.kubernetes.io/gpu=18,requests.example.com/fast=8,requests.example.com/gpu=16,silver.deviceclass.resource.k8s.io/devices=0"},
	{"ext", "BestEffort", ".deviceclass.resource.k8s.io/devices=0,count/resourceclaims.resource.k8s.io=0,gold.deviceclass.resource.k8s.io/devices=0,requests.deviceclass.resource.kubernetes.io/fast=0,requests.deviceclass.resource.kubernetes.io/gold=0,requests.deviceclass.resource.kubernetes.io/gpu=0,requests.example.com/fast=0,requests.example.com/gpu=0,silver.deviceclass.resource.k8s.io/devices=0"},
	{"empty", "", ".deviceclass.resource.k8s.io/devices=0,count/resourceclaims.resource.k8s.io=0,gold.deviceclass.resource.k8s.io/devices=0,requests.deviceclass.resource.kubernetes.io/fast=0,requests.deviceclass.resource.kubernetes.io/gold=0,requests.deviceclass.resource.kubernetes.io/gpu=0,requests.example.com/fast=0,requests.example.com/gpu=0,silver.deviceclass.resource.k8s.io/devices=0"},
	{"empty", "BestEffort", ".deviceclass.resource.k8s.io/devices=0,count/resourceclaims.resource.k8s.io=0,gold.deviceclass.resource.k8s.io/devices=0,requests.deviceclass.resource.kubernetes.io/fast=0,requests.deviceclass.resource.kubernetes.io/gold=0,requests.deviceclass.resource.kubernetes.io/gpu=0,requests.example.com/fast=0,requests.example.com/gpu=0,silver.deviceclass.resource.k8s.io/devices=0"},
}
