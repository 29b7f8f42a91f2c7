package api

import "reflect"

// kinds are the Kinds of the typed structs this package models, by Go
// type: the kind field their objects carry. A struct's Go name is its
// kind but for CoreEvent (Event is the name of a watch event here).
var kinds = map[reflect.Type]string{
	reflect.TypeFor[Pod]():                   "Pod",
	reflect.TypeFor[Namespace]():             "Namespace",
	reflect.TypeFor[ServiceAccount]():        "ServiceAccount",
	reflect.TypeFor[ConfigMap]():             "ConfigMap",
	reflect.TypeFor[Node]():                  "Node",
	reflect.TypeFor[Service]():               "Service",
	reflect.TypeFor[Endpoints]():             "Endpoints",
	reflect.TypeFor[EndpointSlice]():         "EndpointSlice",
	reflect.TypeFor[CoreEvent]():             "Event",
	reflect.TypeFor[ReplicaSet]():            "ReplicaSet",
	reflect.TypeFor[Deployment]():            "Deployment",
	reflect.TypeFor[StatefulSet]():           "StatefulSet",
	reflect.TypeFor[ControllerRevision]():    "ControllerRevision",
	reflect.TypeFor[PersistentVolumeClaim](): "PersistentVolumeClaim",
	reflect.TypeFor[Lease]():                 "Lease",
	reflect.TypeFor[ResourceQuota]():         "ResourceQuota",
}

// KindOf returns the Kind of the objects the typed struct S models: "Pod"
// for Pod, "Event" for CoreEvent. A struct this package does not define (a
// CRD's, written by a user of kcm) is taken to be named after its kind, as
// Kubernetes' generated types are. Informers use it to refuse a struct
// given a resource of another kind (informer.CheckKind).
func KindOf[S any]() string {
	t := reflect.TypeFor[S]()
	if k, ok := kinds[t]; ok {
		return k
	}
	return t.Name()
}
