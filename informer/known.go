package informer

import (
	"github.com/kcmlab/kcm/kube/api"
	"github.com/kcmlab/kcm/store"
)

// knownObjects is the FIFO's view of the cache (deltafifo.KnownObjects,
// client-go's KeyListerGetter): the keys the apply loop has applied and
// their objects, read through the store's read-only View.
type knownObjects[T api.Object] struct {
	v store.View[T]
}

// ListKeys returns every cached key.
func (k knownObjects[T]) ListKeys() []string { return k.v.ListKeys() }

// GetByKey returns the cached object under key.
func (k knownObjects[T]) GetByKey(key string) (T, bool) { return k.v.Get(key) }
