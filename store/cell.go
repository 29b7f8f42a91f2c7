package store

import (
	"fmt"
	"reflect"
	"sync/atomic"
	"unsafe"

	"github.com/kcmlab/kcm/kube/api"
)

// cell is the place of one stored key. Index entries and the item table
// point at the same cell, so a reader walking an index reaches the key's
// current object without looking the key up.
//
// The object is held as its pointer, stored and loaded atomically, beside
// gen, the generation of the last write that changed the key's index values
// (or added the key): an update stores no new allocation, and a reader
// reaches the object with one load. The pair is not one atomic value, so
// the order matters: a write that changes index values stores gen first,
// then the object; a reader loads the object first, then gen. A reader
// that sees the new object therefore sees the new gen (and rechecks the
// object against the index it walks); one that sees the old object with
// the new gen rechecks the old object, which is the current one as far as
// the index trees it loaded go (they are published after the object). A
// snapshot with gen >= cell.gen indexes the key exactly as the object's
// values say.
type cell[T api.Object] struct {
	// key is the stored key (the string KeyFunc returned).
	key string
	// obj points at the current object; nil once the key is deleted (a
	// deleted cell is never refilled: a key added again gets a new cell).
	obj unsafe.Pointer
	gen atomic.Uint64
}

// load returns the cell's object, or false once the key is deleted.
func (c *cell[T]) load() (T, bool) {
	p := c.ptr()
	if p == nil {
		var zero T
		return zero, false
	}
	return objOf[T](p), true
}

// ptr returns the object's pointer (nil once the key is deleted).
func (c *cell[T]) ptr() unsafe.Pointer { return atomic.LoadPointer(&c.obj) }

// live reports whether the key is stored.
func (c *cell[T]) live() bool { return c.ptr() != nil }

// store makes obj the cell's object. Writer-only.
func (c *cell[T]) store(obj T) { atomic.StorePointer(&c.obj, *(*unsafe.Pointer)(unsafe.Pointer(&obj))) }

// empty marks the key deleted. Writer-only.
func (c *cell[T]) empty() { atomic.StorePointer(&c.obj, nil) }

// objOf turns a pointer stored by cell.store back into the T it came from
// (T is a pointer type, so both are one pointer word).
func objOf[T any](p unsafe.Pointer) T { return *(*T)(unsafe.Pointer(&p)) }

// mustBePointer panics unless T is a pointer type, the one shape a cell
// can hold as a single atomic word. Every api.Object kcm caches is one
// (*api.Pod, *api.RawObject, ...).
func mustBePointer[T any]() {
	if t := reflect.TypeFor[T](); t.Kind() != reflect.Pointer {
		panic(fmt.Sprintf("store: object type %v is not a pointer type", t))
	}
}
