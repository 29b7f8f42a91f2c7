package store

import (
	"maps"
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
			if hadOld && hasCur && builtinUnchanged(name, old.GetObjectMeta(), cur.GetObjectMeta()) {
				continue // the common update: nothing indexed moved, nothing allocated
			}
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

// builtinUnchanged reports whether the built-in index name files a and b
// under the same values (false for any other name).
func builtinUnchanged(name string, a, b *api.ObjectMeta) bool {
	switch name {
	case IndexNamespace:
		return a.Namespace == b.Namespace
	case IndexLabel:
		return maps.Equal(a.Labels, b.Labels)
	case IndexOwner:
		return slices.EqualFunc(a.OwnerReferences, b.OwnerReferences, func(x, y api.OwnerReference) bool { return x.UID == y.UID })
	}
	return false
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
