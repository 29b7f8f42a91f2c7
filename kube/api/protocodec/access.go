package protocodec

import (
	"reflect"
	"slices"

	"github.com/kcmlab/kcm/kube/api"
)

// Typed access to the values reflection walks, without boxing them in
// interfaces: every value the codec touches is addressable (Marshal and
// MarshalMerge copy a struct given by value once), so the special types
// and the maps are reached through their address.

// addressable returns v, or an addressable copy of it.
func addressable(v reflect.Value) reflect.Value {
	if v.CanAddr() {
		return v
	}
	c := reflect.New(v.Type()).Elem()
	c.Set(v)
	return c
}

func timeAt(v reflect.Value) *api.Time { return (*api.Time)(v.Addr().UnsafePointer()) }

func microTimeAt(v reflect.Value) *api.MicroTime {
	return (*api.MicroTime)(v.Addr().UnsafePointer())
}

func intOrStringAt(v reflect.Value) *api.IntOrString {
	return (*api.IntOrString)(v.Addr().UnsafePointer())
}

func rawExtAt(v reflect.Value) *api.RawExtension {
	return (*api.RawExtension)(v.Addr().UnsafePointer())
}

// stringMap is a map field whose values are strings (kString, kQuantity),
// as map[string]string: its key and value kinds are string (compileField),
// so its memory is that of a map[string]string.
func stringMap(v reflect.Value) *map[string]string {
	return (*map[string]string)(v.Addr().UnsafePointer())
}

// bytesMap is a map field whose values are []byte (kBytes).
func bytesMap(v reflect.Value) *map[string][]byte {
	return (*map[string][]byte)(v.Addr().UnsafePointer())
}

// sortedKeys returns m's keys in order.
func sortedKeys[V any](m map[string]V) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	return keys
}
