package manager

import (
	"github.com/kcmlab/kcm/ctrl"
	"github.com/kcmlab/kcm/ctrl/deployment"
	"github.com/kcmlab/kcm/ctrl/endpoint"
	"github.com/kcmlab/kcm/ctrl/endpointslice"
	"github.com/kcmlab/kcm/ctrl/endpointslicemirroring"
	"github.com/kcmlab/kcm/ctrl/garbagecollector"
	"github.com/kcmlab/kcm/ctrl/legacysatokencleaner"
	"github.com/kcmlab/kcm/ctrl/namespace"
	"github.com/kcmlab/kcm/ctrl/nodelifecycle"
	"github.com/kcmlab/kcm/ctrl/podgc"
	"github.com/kcmlab/kcm/ctrl/replicaset"
	"github.com/kcmlab/kcm/ctrl/resourcequota"
	"github.com/kcmlab/kcm/ctrl/rootcacertpublisher"
	"github.com/kcmlab/kcm/ctrl/serviceaccount"
	"github.com/kcmlab/kcm/ctrl/serviceaccounttoken"
	"github.com/kcmlab/kcm/ctrl/statefulset"
	"github.com/kcmlab/kcm/ctrl/tainteviction"
)

// NewControllerDescriptors returns every controller the kcm binary knows,
// in start order (kube-controller-manager's NewControllerDescriptors).
// Adding a controller is one line here; --controllers, the
// --concurrent-<x>-syncs flags, --help, /healthz and start-up all read
// this list.
func NewControllerDescriptors() *ctrl.Descriptors {
	d, err := ctrl.NewDescriptors(
		serviceaccounttoken.Descriptor(), // kube-controller-manager starts it first
		namespace.Descriptor(),
		serviceaccount.Descriptor(),
		replicaset.Descriptor(),
		deployment.Descriptor(),
		statefulset.Descriptor(),
		endpoint.Descriptor(),
		endpointslice.Descriptor(),
		endpointslicemirroring.Descriptor(),
		podgc.Descriptor(),
		resourcequota.Descriptor(),
		garbagecollector.Descriptor(),
		nodelifecycle.Descriptor(),
		rootcacertpublisher.Descriptor(),
		legacysatokencleaner.Descriptor(),
		tainteviction.Descriptor(),
	)
	if err != nil {
		panic(err) // a programming error in this list; a test builds it
	}
	return d
}
