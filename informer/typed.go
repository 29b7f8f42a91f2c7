package informer

import (
	"github.com/kcmlab/kcm/kube/api"
	"github.com/kcmlab/kcm/kube/rest"
)

// Typed shortcuts for the kinds kcm's controllers read, so that controller
// code reads like client-go's: podLister.Pods(ns).Get(name).

// PodLister lists cached pods.
type PodLister struct{ Lister[*api.Pod] }

// Pods returns the lister of one namespace.
func (l PodLister) Pods(ns string) NamespaceLister[*api.Pod] { return l.Namespace(ns) }

// ReplicaSetLister lists cached ReplicaSets.
type ReplicaSetLister struct{ Lister[*api.ReplicaSet] }

// ReplicaSets returns the lister of one namespace.
func (l ReplicaSetLister) ReplicaSets(ns string) NamespaceLister[*api.ReplicaSet] {
	return l.Namespace(ns)
}

// DeploymentLister lists cached Deployments.
type DeploymentLister struct{ Lister[*api.Deployment] }

// Deployments returns the lister of one namespace.
func (l DeploymentLister) Deployments(ns string) NamespaceLister[*api.Deployment] {
	return l.Namespace(ns)
}

// ServiceAccountLister lists cached ServiceAccounts.
type ServiceAccountLister struct{ Lister[*api.ServiceAccount] }

// ServiceAccounts returns the lister of one namespace.
func (l ServiceAccountLister) ServiceAccounts(ns string) NamespaceLister[*api.ServiceAccount] {
	return l.Namespace(ns)
}

// ServiceLister lists cached Services.
type ServiceLister struct{ Lister[*api.Service] }

// Services returns the lister of one namespace.
func (l ServiceLister) Services(ns string) NamespaceLister[*api.Service] { return l.Namespace(ns) }

// EndpointsLister lists cached Endpoints.
type EndpointsLister struct{ Lister[*api.Endpoints] }

// Endpoints returns the lister of one namespace.
func (l EndpointsLister) Endpoints(ns string) NamespaceLister[*api.Endpoints] { return l.Namespace(ns) }

// EndpointSliceLister lists cached EndpointSlices.
type EndpointSliceLister struct{ Lister[*api.EndpointSlice] }

// EndpointSlices returns the lister of one namespace.
func (l EndpointSliceLister) EndpointSlices(ns string) NamespaceLister[*api.EndpointSlice] {
	return l.Namespace(ns)
}

// StatefulSetLister lists cached StatefulSets.
type StatefulSetLister struct{ Lister[*api.StatefulSet] }

// StatefulSets returns the lister of one namespace.
func (l StatefulSetLister) StatefulSets(ns string) NamespaceLister[*api.StatefulSet] {
	return l.Namespace(ns)
}

// ControllerRevisionLister lists cached ControllerRevisions.
type ControllerRevisionLister struct {
	Lister[*api.ControllerRevision]
}

// ControllerRevisions returns the lister of one namespace.
func (l ControllerRevisionLister) ControllerRevisions(ns string) NamespaceLister[*api.ControllerRevision] {
	return l.Namespace(ns)
}

// PersistentVolumeClaimLister lists cached PersistentVolumeClaims.
type PersistentVolumeClaimLister struct {
	Lister[*api.PersistentVolumeClaim]
}

// PersistentVolumeClaims returns the lister of one namespace.
func (l PersistentVolumeClaimLister) PersistentVolumeClaims(ns string) NamespaceLister[*api.PersistentVolumeClaim] {
	return l.Namespace(ns)
}

// NamespaceLister of cluster-scoped Namespaces is just Lister: Get(name), List(sel).

// PodsLister returns the typed lister of the factory's pod informer.
func PodsLister(f *Factory) PodLister { return PodLister{For[api.Pod](f, rest.Pods).Lister()} }

// ReplicaSetsLister returns the typed lister of the factory's ReplicaSet informer.
func ReplicaSetsLister(f *Factory) ReplicaSetLister {
	return ReplicaSetLister{For[api.ReplicaSet](f, rest.ReplicaSets).Lister()}
}

// DeploymentsLister returns the typed lister of the factory's Deployment informer.
func DeploymentsLister(f *Factory) DeploymentLister {
	return DeploymentLister{For[api.Deployment](f, rest.Deployments).Lister()}
}

// ServiceAccountsLister returns the typed lister of the factory's ServiceAccount informer.
func ServiceAccountsLister(f *Factory) ServiceAccountLister {
	return ServiceAccountLister{For[api.ServiceAccount](f, rest.ServiceAccounts).Lister()}
}

// ServicesLister returns the typed lister of the factory's Service informer.
func ServicesLister(f *Factory) ServiceLister {
	return ServiceLister{For[api.Service](f, rest.Services).Lister()}
}

// EndpointsListerOf returns the typed lister of the factory's Endpoints
// informer (Endpoints is its own plural, so the name differs from the
// others').
func EndpointsListerOf(f *Factory) EndpointsLister {
	return EndpointsLister{For[api.Endpoints](f, rest.Endpoints).Lister()}
}

// EndpointSlicesLister returns the typed lister of the factory's
// EndpointSlice informer.
func EndpointSlicesLister(f *Factory) EndpointSliceLister {
	return EndpointSliceLister{For[api.EndpointSlice](f, rest.EndpointSlices).Lister()}
}

// StatefulSetsLister returns the typed lister of the factory's StatefulSet
// informer.
func StatefulSetsLister(f *Factory) StatefulSetLister {
	return StatefulSetLister{For[api.StatefulSet](f, rest.StatefulSets).Lister()}
}

// ControllerRevisionsLister returns the typed lister of the factory's
// ControllerRevision informer.
func ControllerRevisionsLister(f *Factory) ControllerRevisionLister {
	return ControllerRevisionLister{For[api.ControllerRevision](f, rest.ControllerRevisions).Lister()}
}

// PersistentVolumeClaimsLister returns the typed lister of the factory's
// PersistentVolumeClaim informer.
func PersistentVolumeClaimsLister(f *Factory) PersistentVolumeClaimLister {
	return PersistentVolumeClaimLister{For[api.PersistentVolumeClaim](f, rest.PersistentVolumeClaims).Lister()}
}

// NamespacesLister returns the lister of the factory's Namespace informer.
func NamespacesLister(f *Factory) Lister[*api.Namespace] {
	return For[api.Namespace](f, rest.Namespaces).Lister()
}

// NodeLister lists cached Nodes (cluster-scoped: Get(name), List(sel)).
type NodeLister struct{ Lister[*api.Node] }

// NodesLister returns the typed lister of the factory's Node informer.
func NodesLister(f *Factory) NodeLister { return NodeLister{For[api.Node](f, rest.Nodes).Lister()} }

// LeaseLister lists cached coordination.k8s.io Leases (node heartbeats live
// in kube-node-lease).
type LeaseLister struct{ Lister[*api.Lease] }

// Leases returns the lister of one namespace.
func (l LeaseLister) Leases(ns string) NamespaceLister[*api.Lease] { return l.Namespace(ns) }

// LeasesLister returns the typed lister of the factory's Lease informer.
func LeasesLister(f *Factory) LeaseLister {
	return LeaseLister{For[api.Lease](f, rest.Leases).Lister()}
}
