package ctrl

import (
	"github.com/kcmlab/kcm/informer"
	"github.com/kcmlab/kcm/kube/api"
	"github.com/kcmlab/kcm/kube/rest"
)

// Owners finds in a controller's cache the object that controls another:
// the owner a controller reference names (the resolveControllerRef that
// every Kubernetes controller with owned objects repeats). Handlers use it
// to turn an event about an owned object (a pod, a ReplicaSet) into its
// owner's key, and only when the cache holds that very owner:
//
//	pod ──ControllerRef()──▶ {Kind: ReplicaSet, Name: web, UID: u1}
//	        Owners[*ReplicaSet]{Kind: "ReplicaSet"}.Resolve ──▶ cached ns/web with UID u1, or none
//
// A reference to another kind, or to a name the cache holds under another
// UID (the owner was deleted and made again), resolves to none. The owner
// is looked up in the owned object's namespace: Kubernetes allows no
// cross-namespace owner, and a cluster-scoped owner is found under "".
type Owners[T api.Object] struct {
	// Kind is the owners' kind, as references spell it ("ReplicaSet").
	Kind string
	// Lister reads the owners' cache.
	Lister informer.Lister[T]
}

// OwnersOf returns the Owners of res's kind in l.
func OwnersOf[T api.Object](res rest.Resource, l informer.Lister[T]) Owners[T] {
	return Owners[T]{Kind: res.Kind, Lister: l}
}

// Resolve returns the cached owner ref names in namespace ns, or false
// when ref is nil, names another kind, or names an object the cache does
// not hold under ref's UID.
func (o Owners[T]) Resolve(ns string, ref *api.OwnerReference) (T, bool) {
	var zero T
	if ref == nil || ref.Kind != o.Kind {
		return zero, false
	}
	owner, err := o.Lister.Namespace(ns).Get(ref.Name)
	if err != nil || owner.GetObjectMeta().UID != ref.UID {
		return zero, false
	}
	return owner, true
}

// ControllerOf returns the cached owner that controls obj (its controller
// reference resolved), or false.
func (o Owners[T]) ControllerOf(obj api.Object) (T, bool) {
	m := obj.GetObjectMeta()
	return o.Resolve(m.Namespace, m.ControllerRef())
}

// Adder is the part of a queue that EnqueueController uses.
type Adder interface{ Add(key string) }

// EnqueueController adds the key of obj's controller to q ("enqueue the
// controller of this object"), when it resolves, and reports whether it
// did.
func (o Owners[T]) EnqueueController(q Adder, obj api.Object) bool {
	owner, ok := o.ControllerOf(obj)
	if ok {
		q.Add(owner.GetObjectMeta().Key())
	}
	return ok
}
