package rest

import (
	"net/url"
	"strings"
)

// Resource names one REST resource: its group, version and plural name, the
// Kind its objects carry and whether it lives in namespaces. It is all a
// Client needs to build request paths, for built-in kinds and CRDs alike.
type Resource struct {
	Group      string // "" for the core group
	Version    string // "v1"
	Resource   string // plural, lower case: "pods"
	Kind       string // "Pod"
	Namespaced bool
}

// Built-in resources used by kcm's controllers.
var (
	Pods                   = Resource{Version: "v1", Resource: "pods", Kind: "Pod", Namespaced: true}
	ConfigMaps             = Resource{Version: "v1", Resource: "configmaps", Kind: "ConfigMap", Namespaced: true}
	Secrets                = Resource{Version: "v1", Resource: "secrets", Kind: "Secret", Namespaced: true}
	Namespaces             = Resource{Version: "v1", Resource: "namespaces", Kind: "Namespace"}
	Nodes                  = Resource{Version: "v1", Resource: "nodes", Kind: "Node"}
	ServiceAccounts        = Resource{Version: "v1", Resource: "serviceaccounts", Kind: "ServiceAccount", Namespaced: true}
	Services               = Resource{Version: "v1", Resource: "services", Kind: "Service", Namespaced: true}
	Endpoints              = Resource{Version: "v1", Resource: "endpoints", Kind: "Endpoints", Namespaced: true}
	EndpointSlices         = Resource{Group: "discovery.k8s.io", Version: "v1", Resource: "endpointslices", Kind: "EndpointSlice", Namespaced: true}
	Events                 = Resource{Version: "v1", Resource: "events", Kind: "Event", Namespaced: true}
	ReplicaSets            = Resource{Group: "apps", Version: "v1", Resource: "replicasets", Kind: "ReplicaSet", Namespaced: true}
	Deployments            = Resource{Group: "apps", Version: "v1", Resource: "deployments", Kind: "Deployment", Namespaced: true}
	StatefulSets           = Resource{Group: "apps", Version: "v1", Resource: "statefulsets", Kind: "StatefulSet", Namespaced: true}
	ControllerRevisions    = Resource{Group: "apps", Version: "v1", Resource: "controllerrevisions", Kind: "ControllerRevision", Namespaced: true}
	PersistentVolumeClaims = Resource{Version: "v1", Resource: "persistentvolumeclaims", Kind: "PersistentVolumeClaim", Namespaced: true}
	Leases                 = Resource{Group: "coordination.k8s.io", Version: "v1", Resource: "leases", Kind: "Lease", Namespaced: true}
	CRDs                   = Resource{Group: "apiextensions.k8s.io", Version: "v1", Resource: "customresourcedefinitions", Kind: "CustomResourceDefinition"}
	ResourceClaims         = Resource{Group: "resource.k8s.io", Version: "v1", Resource: "resourceclaims", Kind: "ResourceClaim", Namespaced: true}
	DeviceClasses          = Resource{Group: "resource.k8s.io", Version: "v1", Resource: "deviceclasses", Kind: "DeviceClass"}
)

// GroupVersion is "group/version", or just "version" for the core group:
// the apiVersion objects of this resource carry.
func (r Resource) GroupVersion() string {
	if r.Group == "" {
		return r.Version
	}
	return r.Group + "/" + r.Version
}

// String is "resource.version.group" (kubectl's fully qualified form).
func (r Resource) String() string {
	if r.Group == "" {
		return r.Resource + "." + r.Version
	}
	return r.Resource + "." + r.Version + "." + r.Group
}

// Path returns the URL path of the collection (name == "") or of one object,
// plus optional subresources. For a namespaced resource an empty namespace
// means "all namespaces"; for a cluster-scoped one the namespace is ignored.
//
//	core, namespaced:   /api/v1/namespaces/{ns}/pods/{name}
//	group, namespaced:  /apis/apps/v1/namespaces/{ns}/replicasets
//	cluster-scoped:     /api/v1/namespaces/{name}/finalize
func (r Resource) Path(namespace, name string, subresource ...string) string {
	var b strings.Builder
	if r.Group == "" {
		b.WriteString("/api/")
	} else {
		b.WriteString("/apis/")
		b.WriteString(r.Group)
		b.WriteByte('/')
	}
	b.WriteString(r.Version)
	if r.Namespaced && namespace != "" {
		b.WriteString("/namespaces/")
		b.WriteString(url.PathEscape(namespace))
	}
	b.WriteByte('/')
	b.WriteString(r.Resource)
	if name != "" {
		b.WriteByte('/')
		b.WriteString(url.PathEscape(name))
	}
	for _, s := range subresource {
		b.WriteByte('/')
		b.WriteString(s)
	}
	return b.String()
}
