package reconciler

import "github.com/kcmlab/kcm/ctrl/internal/slicetrack"

// Tracker is the record of the slices this controller wrote
// (k8s.io/endpointslice/util's EndpointSliceTracker); it lives in
// ctrl/internal/slicetrack, shared with the EndpointSlice mirroring
// controller. Config.Tracker takes one, and the controller's handlers
// share it with the reconciler.
type Tracker = slicetrack.Tracker

// NewTracker returns an empty Tracker.
func NewTracker() *Tracker { return slicetrack.New() }
