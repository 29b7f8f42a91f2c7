package store

import (
	"slices"

	"github.com/kcmlab/kcm/kube/api"
)

// IndexChanges lists the index entries a write moves, as the store's
// indexes ix see it: "+name:value" for each entry the new state adds,
// "-name:value" for each the old state loses, sorted. old is the state
// before the write (hadOld false: the key was absent), cur the state
// after it (hasCur false: a delete). A nil function under a reserved name
// is the built-in index, computed with its reference function. The pipeline
// view shows it for the Store stage; the store itself never calls it.
func IndexChanges[T api.Object](ix Indexers[T], old T, hadOld bool, cur T, hasCur bool) []string {
	var out []string
	for name, fn := range ix {
		if fn == nil {
			fn = builtinFunc[T](name)
			if fn == nil {
				continue
			}
		}
		var before, after []string
		if hadOld {
			before = fn(old)
		}
		if hasCur {
			after = fn(cur)
		}
		for _, v := range after {
			if !slices.Contains(before, v) {
				out = append(out, "+"+name+":"+v)
			}
		}
		for _, v := range before {
			if !slices.Contains(after, v) {
				out = append(out, "-"+name+":"+v)
			}
		}
	}
	slices.Sort(out)
	return slices.Compact(out)
}

// builtinFunc is the reference function of a built-in index name, nil for
// any other name.
func builtinFunc[T api.Object](name string) IndexFunc[T] {
	switch name {
	case IndexNamespace:
		return NamespaceIndexFunc[T]
	case IndexLabel:
		return LabelIndexFunc[T]
	case IndexOwner:
		return OwnerIndexFunc[T]
	}
	return nil
}
