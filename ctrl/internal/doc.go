// Package internal is the shelf of pieces that several controllers
// share but no user of kcm should import: the rules and data structures
// the endpoints, EndpointSlice and EndpointSlice mirroring controllers
// have in common, and the monitors the resource quota controller and the
// garbage collector both keep. In Kubernetes they live in
// k8s.io/endpointslice/util, pkg/api/v1/endpoints,
// pkg/controller/util/endpoint, and in the two controllers' own packages
// over the shared metadata informer factory; here each is a package of
// its own, so that a controller imports exactly the rule it needs and no
// controller imports another (TestLayering).
//
//	ctrl/endpoint ──────────────┐
//	ctrl/endpointslice/... ─────┼──▶ ctrl/internal/<piece>
//	ctrl/endpointslicemirroring ┘
//	ctrl/resourcequota ─────────┬──▶ ctrl/internal/monitorset
//	ctrl/garbagecollector ──────┘
//
// The pieces, in the order a reader meets them:
//
//	podaddr          which pods are endpoints, their ports and hostnames
//	podservices      which Services a pod change concerns
//	triggertime      the last-change-trigger-time annotation
//	hashorder        Kubernetes' hash order (spew-compatible texts)
//	endpointsubsets  an Endpoints object's subsets, repacked and sorted
//	endpointset      endpoint and port-set identities
//	slicetrack       the EndpointSlices a controller wrote (stale-cache check)
//	endpointlabels   the shared label and annotation keys
//	monitorset       one metadata informer per discovered resource (quota, GC)
//
// Guarantee: each endpoint piece is a pure function or a small
// lock-guarded map; none starts a goroutine or calls the API. monitorset
// is the exception by nature: its monitors list and watch, each under a
// context of its own, and StopAll waits for every one.
package internal
