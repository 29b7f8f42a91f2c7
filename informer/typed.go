package informer

import "github.com/kcmlab/kcm/kube"

// Typed shortcuts for the kinds kcm's controllers read, so that controller
// code reads like client-go's: podLister.Pods(ns).Get(name).

// PodLister lists cached pods.
type PodLister struct{ Lister[*kube.Pod] }

// Pods returns the lister of one namespace.
func (l PodLister) Pods(ns string) NamespaceLister[*kube.Pod] { return l.Namespace(ns) }

// ReplicaSetLister lists cached ReplicaSets.
type ReplicaSetLister struct{ Lister[*kube.ReplicaSet] }

// ReplicaSets returns the lister of one namespace.
func (l ReplicaSetLister) ReplicaSets(ns string) NamespaceLister[*kube.ReplicaSet] {
	return l.Namespace(ns)
}

// DeploymentLister lists cached Deployments.
type DeploymentLister struct{ Lister[*kube.Deployment] }

// Deployments returns the lister of one namespace.
func (l DeploymentLister) Deployments(ns string) NamespaceLister[*kube.Deployment] {
	return l.Namespace(ns)
}

// ServiceAccountLister lists cached ServiceAccounts.
type ServiceAccountLister struct{ Lister[*kube.ServiceAccount] }

// ServiceAccounts returns the lister of one namespace.
func (l ServiceAccountLister) ServiceAccounts(ns string) NamespaceLister[*kube.ServiceAccount] {
	return l.Namespace(ns)
}

// NamespaceLister of cluster-scoped Namespaces is just Lister: Get(name), List(sel).

// PodsLister returns the typed lister of the factory's pod informer.
func PodsLister(f *Factory) PodLister { return PodLister{For[kube.Pod](f, kube.Pods).Lister()} }

// ReplicaSetsLister returns the typed lister of the factory's ReplicaSet informer.
func ReplicaSetsLister(f *Factory) ReplicaSetLister {
	return ReplicaSetLister{For[kube.ReplicaSet](f, kube.ReplicaSets).Lister()}
}

// DeploymentsLister returns the typed lister of the factory's Deployment informer.
func DeploymentsLister(f *Factory) DeploymentLister {
	return DeploymentLister{For[kube.Deployment](f, kube.Deployments).Lister()}
}

// ServiceAccountsLister returns the typed lister of the factory's ServiceAccount informer.
func ServiceAccountsLister(f *Factory) ServiceAccountLister {
	return ServiceAccountLister{For[kube.ServiceAccount](f, kube.ServiceAccounts).Lister()}
}

// NamespacesLister returns the lister of the factory's Namespace informer.
func NamespacesLister(f *Factory) Lister[*kube.Namespace] {
	return For[kube.Namespace](f, kube.Namespaces).Lister()
}
