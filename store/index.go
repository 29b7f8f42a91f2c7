package store

import (
	"maps"
	"slices"
	"strings"

	"github.com/kcmlab/kcm/kube/api"
)

// IndexFunc computes the values an object is indexed under (client-go's
// IndexFunc). It must be a pure function of the object: the store calls it
// again on the cached (immutable) object to find what to remove. Duplicate
// values are allowed and count once. The returned slice is only read.
type IndexFunc[T api.Object] func(obj T) []string

// Indexers names the indexes a store maintains (client-go's Indexers).
//
// Under the reserved names IndexNamespace, IndexLabel and IndexOwner a nil
// func selects the store's built-in implementation, which yields exactly
// what NamespaceIndexFunc, LabelIndexFunc and OwnerIndexFunc return but
// compares, interns and rechecks values without allocating. A non-nil func
// under a reserved name is an ordinary user index. BuiltinIndexers builds
// the nil entries.
type Indexers[T api.Object] map[string]IndexFunc[T]

// Names of the built-in indexes.
const (
	// IndexNamespace indexes objects by metadata.namespace ("" for
	// cluster-scoped objects).
	IndexNamespace = "namespace"
	// IndexLabel indexes objects by each label as "key=value".
	IndexLabel = "label"
	// IndexOwner indexes objects by the UID of each ownerReference.
	IndexOwner = "owner"
)

// BuiltinIndexers selects the named built-in indexes (all three when no
// name is given) for Options.Indexers or AddIndexers. Add user indexes to
// the returned map as needed.
func BuiltinIndexers[T api.Object](names ...string) Indexers[T] {
	if len(names) == 0 {
		names = []string{IndexNamespace, IndexLabel, IndexOwner}
	}
	out := make(Indexers[T], len(names))
	for _, n := range names {
		out[n] = nil
	}
	return out
}

// NamespaceIndexFunc is the reference definition of IndexNamespace
// (client-go's MetaNamespaceIndexFunc).
func NamespaceIndexFunc[T api.Object](obj T) []string {
	return []string{obj.GetObjectMeta().Namespace}
}

// LabelIndexFunc is the reference definition of IndexLabel: one
// "key=value" per label.
func LabelIndexFunc[T api.Object](obj T) []string {
	labels := obj.GetObjectMeta().Labels
	out := make([]string, 0, len(labels))
	for k, v := range labels {
		out = append(out, k+"="+v)
	}
	return out
}

// OwnerIndexFunc is the reference definition of IndexOwner: the UID of
// every ownerReference.
func OwnerIndexFunc[T api.Object](obj T) []string {
	refs := obj.GetObjectMeta().OwnerReferences
	out := make([]string, 0, len(refs))
	for _, r := range refs {
		out = append(out, r.UID)
	}
	return out
}

// indexKind selects the implementation behind an index.
type indexKind uint8

const (
	kindFunc indexKind = iota
	kindNamespace
	kindLabel
	kindOwner
)

// indexDef is one index as configured: immutable once built.
type indexDef[T api.Object] struct {
	name string
	kind indexKind
	fn   IndexFunc[T] // set iff kind == kindFunc
}

// newIndexDef validates one Indexers entry.
func newIndexDef[T api.Object](name string, fn IndexFunc[T]) (*indexDef[T], error) {
	if fn != nil {
		return &indexDef[T]{name: name, kind: kindFunc, fn: fn}, nil
	}
	switch name {
	case IndexNamespace:
		return &indexDef[T]{name: name, kind: kindNamespace}, nil
	case IndexLabel:
		return &indexDef[T]{name: name, kind: kindLabel}, nil
	case IndexOwner:
		return &indexDef[T]{name: name, kind: kindOwner}, nil
	}
	return nil, wrapName(ErrNilIndexFunc, name)
}

// internKey identifies an index value before it is turned into the shared
// string: a is the value (or a label's key), b a label's value.
type internKey struct{ a, b string }

// keys appends obj's index values as intern keys, sorted (by a, then b)
// and without duplicates.
func (d *indexDef[T]) keys(dst []internKey, obj T) []internKey {
	m := obj.GetObjectMeta()
	start := len(dst)
	switch d.kind {
	case kindNamespace:
		return append(dst, internKey{a: m.Namespace})
	case kindLabel:
		for k, v := range m.Labels {
			dst = append(dst, internKey{a: k, b: v})
		}
	case kindOwner:
		for i := range m.OwnerReferences {
			dst = append(dst, internKey{a: m.OwnerReferences[i].UID})
		}
	default:
		for _, v := range d.fn(obj) {
			dst = append(dst, internKey{a: v})
		}
	}
	tail := dst[start:]
	slices.SortFunc(tail, cmpKey)
	return dst[:start+len(slices.Compact(tail))]
}

func cmpKey(x, y internKey) int {
	if c := strings.Compare(x.a, y.a); c != 0 {
		return c
	}
	return strings.Compare(x.b, y.b)
}

// forMissing calls f for each key of the sorted list a that the sorted
// list b lacks.
func forMissing(a, b []internKey, f func(internKey)) {
	j := 0
	for _, k := range a {
		for j < len(b) && cmpKey(b[j], k) < 0 {
			j++
		}
		if j == len(b) || b[j] != k {
			f(k)
		}
	}
}

// same reports whether old and new have the same index values, so that an
// update can leave the index untouched. Built-in kinds compare metadata
// directly; user funcs are evaluated on both (scratch holds the results).
func (d *indexDef[T]) same(old, new T, scratch []internKey) ([]internKey, bool) {
	om, nm := old.GetObjectMeta(), new.GetObjectMeta()
	switch d.kind {
	case kindNamespace:
		return scratch, om.Namespace == nm.Namespace
	case kindLabel:
		return scratch, maps.Equal(om.Labels, nm.Labels)
	case kindOwner:
		return scratch, slices.EqualFunc(om.OwnerReferences, nm.OwnerReferences,
			func(x, y api.OwnerReference) bool { return x.UID == y.UID })
	}
	scratch = d.keys(scratch[:0], old)
	n := len(scratch)
	scratch = d.keys(scratch, new)
	return scratch, slices.Equal(scratch[:n], scratch[n:])
}

// has reports whether obj is indexed under value: the reader's recheck for
// an object that changed after the snapshot it is reading.
func (d *indexDef[T]) has(obj T, value string) bool {
	m := obj.GetObjectMeta()
	switch d.kind {
	case kindNamespace:
		return m.Namespace == value
	case kindLabel:
		// Valid label keys never contain '=', but a value is found the way
		// LabelIndexFunc would produce it whatever the key holds.
		for i := 0; i < len(value); i++ {
			if value[i] != '=' {
				continue
			}
			if v, ok := m.Labels[value[:i]]; ok && v == value[i+1:] {
				return true
			}
		}
		return false
	case kindOwner:
		for i := range m.OwnerReferences {
			if m.OwnerReferences[i].UID == value {
				return true
			}
		}
		return false
	}
	return slices.Contains(d.fn(obj), value)
}

// interner hands out one shared copy of each index value and counts its
// users, so that index entries neither repeat a value's bytes nor keep an
// old object's strings alive. Writer-only.
type interner struct {
	join bool // values are a+"="+b (label index)
	// m maps a value's parts to its shared string and the number of
	// (object, value) pairs using it; a key's strings are substrings of
	// the shared string, never the caller's. Entries with n == 0 are
	// deleted.
	m map[internKey]interned
}

type interned struct {
	s string
	n int
}

func newInterner(join bool) *interner {
	return &interner{join: join, m: make(map[internKey]interned)}
}

// acquire returns the shared string for k and counts one more user.
func (in *interner) acquire(k internKey) string {
	r, ok := in.m[k]
	if !ok {
		if in.join {
			r.s = k.a + "=" + k.b
		} else {
			r.s = strings.Clone(k.a)
		}
	}
	r.n++
	// Store under a key made of the shared string: assigning with the
	// caller's key would replace the stored key's strings with the
	// caller's (Go updates string keys on assignment).
	in.m[in.canonical(k, r.s)] = r
	return r.s
}

// release drops one user of k and returns its shared string.
func (in *interner) release(k internKey) string {
	r := in.m[k]
	if r.n <= 1 {
		delete(in.m, k)
	} else {
		r.n--
		in.m[in.canonical(k, r.s)] = r
	}
	return r.s
}

// spelledBy reports whether one of ks gives the value v.
func (in *interner) spelledBy(v string, ks []internKey) bool {
	if !in.join {
		return false // a value is a single part: ks hold it iff k == v
	}
	for _, k := range ks {
		if len(k.a)+1+len(k.b) == len(v) && v[len(k.a)] == '=' && v[:len(k.a)] == k.a && v[len(k.a)+1:] == k.b {
			return true
		}
	}
	return false
}

// canonical returns k spelled with substrings of its shared string s.
func (in *interner) canonical(k internKey, s string) internKey {
	if in.join {
		return internKey{a: s[:len(k.a)], b: s[len(k.a)+1:]}
	}
	return internKey{a: s}
}
