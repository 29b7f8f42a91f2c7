// Package quota computes what a ResourceQuota's status.used reports: the
// usage of a namespace's objects under the quota's hard names, scopes and
// scope selector, as Kubernetes' quota evaluators compute it
// (pkg/quota/v1/evaluator/core and apiserver's quota/v1 and generic).
//
// # Where it sits
//
// The resourcequota controller (package ctrl/resourcequota) syncs a quota
// by calling CalculateUsage with the quota's spec and a Registry of
// evaluators, and writes the result, masked to the hard names, as
// status.used. Evaluators read the controller's informer caches through
// listers (PodLister, ServiceLister, PVCLister) and object counts
// (CountFunc); the controller also compares an object's old and new Usage
// to decide whether a change (a pod turning terminal) needs a sync.
//
//	quota spec ──▶ CalculateUsage ──▶ Registry.List() ──▶ Evaluator.UsageStats ──▶ listers (caches)
//	                     │
//	                     ▼
//	                status.used
//
// # Guarantees
//
//   - Pods count as Kubernetes counts them (PodCounts, PodUsage): count/pods
//     always; pods, requests and limits only for a pod that is neither
//     Succeeded nor Failed nor deleted past its grace period. Requests and
//     limits are the effective ones of 1.37: the larger of the spec's and
//     the status' allocated and actual resources, init containers' maximum
//     with sidecars, pod-level resources, the pod overhead.
//   - Every pod scope (Terminating, NotTerminating, BestEffort,
//     NotBestEffort, PriorityClass, CrossNamespacePodAffinity) and every
//     scope selector operator; the claims' VolumeAttributesClass scope;
//     objects of other evaluators match no scope, so a scoped quota counts
//     none of them.
//   - Quantities add exactly and print in apimachinery's canonical form
//     (package kube/api/resource); a sum takes the format of its first
//     non-zero term, as upstream.
//   - A Registry is safe for concurrent use; evaluators hold no state but
//     their listers.
//
// One concept per file: resources.go (the list helpers Add, Subtract,
// Mask, Equals, ResourceNames, IsZero), evaluator.go (Evaluator,
// GroupResource, UsageStatsOptions, the listers, the generic usage scan),
// objectcount.go (NewObjectCountEvaluator), pods.go (NewPodEvaluator,
// PodUsage, PodCounts, the pod scopes), podresources.go (a pod's
// effective requests and limits), services.go (NewServiceEvaluator),
// pvcs.go (NewPVCEvaluator), claims_dra.go (NewResourceClaimEvaluator,
// DRA's claims and devices per DeviceClass), scopes.go (scope requirements as label
// selectors), registry.go (Registry, NewRegistry, WithResourceClaims), calculate.go
// (CalculateUsage).
//
// # client-go names
//
// Evaluator ≈ k8s.io/apiserver/pkg/quota/v1.Evaluator; Registry ≈
// quota.Registry with install.NewQuotaConfigurationForControllers'
// evaluators; CalculateUsage ≈ quota.CalculateUsage; PodUsage ≈
// core.PodUsageFunc; PodCounts ≈ core.QuotaV1Pod.
package quota
