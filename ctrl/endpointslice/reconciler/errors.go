package reconciler

import "errors"

// ErrStaleInformerCache: the controller's EndpointSlice cache has not yet
// seen this controller's own last writes for a Service (Tracker.StaleSlices),
// so a sync now would compute from outdated slices. The controller returns
// it instead of reconciling and is retried; it counts as "stale" in the
// syncs metric (upstream's StaleInformerCache error).
var ErrStaleInformerCache = errors.New("EndpointSlice informer cache is out of date")

// ErrNodeNotFound: a pod's node is not in the Node cache. The pod is left
// out of the slices (unless the Service publishes not-ready addresses) and
// the sync reports this error so that it is retried.
var ErrNodeNotFound = errors.New("node not found")
