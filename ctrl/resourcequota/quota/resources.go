package quota

import (
	"maps"
	"slices"

	"github.com/kcmlab/kcm/kube/api/resource"
)

// This file holds the arithmetic on resource lists that quota needs
// (Kubernetes' quota/v1 resources.go): a key present on one side only is
// copied, string form and all; a key on both sides is computed, so its
// string is canonical.

// Add returns a+b key by key.
func Add(a, b resource.List) resource.List {
	out := make(resource.List, len(a)+len(b))
	for k, v := range a {
		if o, ok := b[k]; ok {
			v = v.Add(o)
		}
		out[k] = v
	}
	for k, v := range b {
		if _, ok := out[k]; !ok {
			out[k] = v
		}
	}
	return out
}

// Subtract returns a-b key by key; a key only b has is negated.
func Subtract(a, b resource.List) resource.List {
	out := make(resource.List, len(a)+len(b))
	for k, v := range a {
		if o, ok := b[k]; ok {
			v = v.Sub(o)
		}
		out[k] = v
	}
	for k, v := range b {
		if _, ok := out[k]; !ok {
			out[k] = resource.Quantity{}.Sub(v)
		}
	}
	return out
}

// Mask returns the entries of l whose names are in names.
func Mask(l resource.List, names []string) resource.List {
	out := make(resource.List, len(names))
	for _, n := range names {
		if v, ok := l[n]; ok {
			out[n] = v
		}
	}
	return out
}

// Equals reports whether a and b have the same names with equal
// quantities (formats do not matter).
func Equals(a, b resource.List) bool {
	if len(a) != len(b) {
		return false
	}
	for k, v := range a {
		o, ok := b[k]
		if !ok || v.Cmp(o) != 0 {
			return false
		}
	}
	return true
}

// ResourceNames returns the names of l, sorted.
func ResourceNames(l resource.List) []string {
	return slices.Sorted(maps.Keys(l))
}

// IsZero reports whether every quantity of l is zero (an empty l is).
func IsZero(l resource.List) bool {
	for _, v := range l {
		if !v.IsZero() {
			return false
		}
	}
	return true
}

// intersection returns the names of a that b has, sorted, each once.
func intersection(a, b []string) []string {
	out := make([]string, 0, len(a))
	for _, n := range a {
		if slices.Contains(b, n) && !slices.Contains(out, n) {
			out = append(out, n)
		}
	}
	slices.Sort(out)
	return out
}

// difference returns the names of a that b lacks, sorted, each once.
func difference(a, b []string) []string {
	out := make([]string, 0, len(a))
	for _, n := range a {
		if !slices.Contains(b, n) && !slices.Contains(out, n) {
			out = append(out, n)
		}
	}
	slices.Sort(out)
	return out
}
