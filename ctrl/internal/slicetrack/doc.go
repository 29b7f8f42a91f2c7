// Package slicetrack remembers the EndpointSlices a controller wrote
// itself, so that it can tell its own echoes from other writers' changes
// and refuse to sync from a cache that has not seen its writes. The
// EndpointSlice controller (through its reconciler) and the EndpointSlice
// mirroring controller each keep one Tracker.
//
//	write (create/update) ──Update──▶ uid → generation, per Service
//	delete                ──ExpectDeletion──▶ uid → deletion expected
//	slice event ──ShouldSync / HandleDeletion──▶ sync the Service, or not (an echo)
//	sync(svc, listed slices) ──StaleSlices──▶ ErrStaleInformerCache: retry later
//
// A slice belongs to the Service its kubernetes.io/service-name label
// names (endpointlabels.LabelServiceName).
//
// # Guarantees
//
// A Tracker is safe for concurrent use by every worker and handler. A
// Service the Tracker has never seen is never stale; DeleteService
// forgets a Service entirely.
//
// # Kubernetes counterpart
//
// k8s.io/endpointslice/util EndpointSliceTracker (NewEndpointSliceTracker,
// Has, ShouldSync, StaleSlices, Update, ExpectDeletion, HandleDeletion,
// DeleteService) and k8s.io/endpointslice's StaleInformerCache error.
//
// One concept per file: tracker.go.
package slicetrack
