package informer

import (
	"cmp"
	"slices"

	"github.com/kcmlab/kcm/kube/api"
	"github.com/kcmlab/kcm/kube/rest"
	"github.com/kcmlab/kcm/processor"
)

// Metadata is an informer seen through its objects' metadata alone,
// whatever it decodes them into: what a controller that watches every
// resource there is (the garbage collector, the resource quota
// controller) needs of the informer of a resource that another
// controller already reads. Handlers registered here get each object as
// a RawObject holding its TypeMeta and ObjectMeta; reads count the cache
// by index. An informer of any representation (typed, raw or
// metadata-only) offers it through Metadata.
type Metadata interface {
	// Name is the informer's name (logs, WaitForCacheSync).
	Name() string
	// HasSynced is the informer's: its initial list was applied.
	HasSynced() bool
	// AddMetadataHandler registers h: it is told of every change as the
	// informer's own handlers are, with each object as its metadata: a
	// raw or metadata-only informer's cached RawObject itself; for a typed
	// one, a RawObject made for the call that holds no source (one built
	// in code: never write it back) and shares its maps and slices with
	// the cached object. Read-only, like everything an informer hands out.
	AddMetadataHandler(h processor.Handler[*api.RawObject], o processor.HandlerOptions) (*processor.Registration, error)
	// RemoveEventHandler unregisters a handler AddMetadataHandler added.
	RemoveEventHandler(r *processor.Registration) error
	// IndexLen is the number of cached objects under value in index
	// (store.IndexNamespace: a namespace's objects).
	IndexLen(index, value string) (int, error)
}

// Metadata returns the informer's metadata view.
func (i *Informer[T]) Metadata() Metadata { return metadataView[T]{i} }

// metadataView is Metadata over an Informer[T].
type metadataView[T api.Object] struct{ i *Informer[T] }

func (v metadataView[T]) Name() string    { return v.i.Name() }
func (v metadataView[T]) HasSynced() bool { return v.i.HasSynced() }

func (v metadataView[T]) AddMetadataHandler(h processor.Handler[*api.RawObject], o processor.HandlerOptions) (*processor.Registration, error) {
	if raw, ok := any(v.i).(*Informer[*api.RawObject]); ok {
		return raw.AddEventHandler(h, o) // already RawObjects: nothing to convert
	}
	return v.i.AddEventHandler(metadataHandler[T]{h}, o)
}

func (v metadataView[T]) RemoveEventHandler(r *processor.Registration) error {
	return v.i.RemoveEventHandler(r)
}

func (v metadataView[T]) IndexLen(index, value string) (int, error) {
	return v.i.store.IndexLen(index, value)
}

// metadataHandler hands h each object's metadata.
type metadataHandler[T api.Object] struct {
	h processor.Handler[*api.RawObject]
}

func (m metadataHandler[T]) OnAdd(obj T, isInitialList bool) {
	m.h.OnAdd(metadataOf(obj), isInitialList)
}
func (m metadataHandler[T]) OnUpdate(oldObj, newObj T) {
	m.h.OnUpdate(metadataOf(oldObj), metadataOf(newObj))
}
func (m metadataHandler[T]) OnDelete(obj T, finalStateUnknown bool) {
	m.h.OnDelete(metadataOf(obj), finalStateUnknown)
}

// metadataOf is obj's TypeMeta and ObjectMeta as a RawObject built in
// code. The fields are named one by one so that the object's source (its
// bytes, which are a whole Pod's or Deployment's, not a RawObject's) is
// left behind.
func metadataOf[T api.Object](obj T) *api.RawObject {
	m := obj.GetObjectMeta()
	return &api.RawObject{TypeMeta: *obj.GetTypeMeta(), ObjectMeta: api.ObjectMeta{
		Name:                       m.Name,
		GenerateName:               m.GenerateName,
		Namespace:                  m.Namespace,
		UID:                        m.UID,
		ResourceVersion:            m.ResourceVersion,
		Generation:                 m.Generation,
		CreationTimestamp:          m.CreationTimestamp,
		DeletionTimestamp:          m.DeletionTimestamp,
		DeletionGracePeriodSeconds: m.DeletionGracePeriodSeconds,
		Labels:                     m.Labels,
		Annotations:                m.Annotations,
		OwnerReferences:            m.OwnerReferences,
		Finalizers:                 m.Finalizers,
	}}
}

// Existing returns the metadata view of an informer the factory already
// made for exactly res, in whatever representation, and makes none: the
// informer kube-controller-manager's garbage collector and quota
// controller would take from its InformerFactory.ForResource, so that a
// resource a controller reads is listed and watched once, not once more
// for them. A factory limited to one namespace shares none (those
// controllers watch every namespace). Where there are several (typed,
// raw, metadata-only), the choice is fixed: the typed one first, by its
// Go type's name, then raw, then metadata.
//
// The view's informer runs when the factory runs: the caller must not
// run or stop it, only add and remove its handlers.
func (f *Factory) Existing(res rest.Resource) (Metadata, bool) {
	if f.o.Namespace != "" {
		return nil, false
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	var keys []factoryKey
	for key := range f.informers {
		if key.res == res {
			keys = append(keys, key)
		}
	}
	if len(keys) == 0 {
		return nil, false
	}
	rank := func(kind string) int {
		switch kind {
		case "metadata":
			return 2
		case "raw":
			return 1
		}
		return 0
	}
	best := slices.MinFunc(keys, func(a, b factoryKey) int {
		return cmp.Or(cmp.Compare(rank(a.kind), rank(b.kind)), cmp.Compare(a.kind, b.kind))
	})
	return f.informers[best].(metadataSource).Metadata(), true
}

// metadataSource is what every informer the factory makes offers.
type metadataSource interface{ Metadata() Metadata }
