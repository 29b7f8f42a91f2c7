package decode

import (
	"hash/maphash"
	"sync/atomic"
	"unique"
	"unsafe"
	"weak"

	"github.com/kcmlab/kcm/kube/api"
)

// Interning: a cache of a hundred thousand pods holds the same few hundred
// namespaces, label keys and values, annotation keys and owner references
// over and over. Decoding gives each object private copies; intern swaps
// them for one canonical copy per distinct string (Go's unique package,
// whose entries go away when no object uses them any more), so the cache
// pays for each distinct string once. Strings that are unique per object
// (name, uid, resourceVersion) are left alone: interning them saves
// nothing and costs a table entry.

// intern returns the canonical copy of s.
func intern(s string) string {
	if s == "" {
		return s
	}
	return unique.Make(s).Value()
}

// internMeta replaces the shared strings of m with canonical copies. Its
// labels and annotations are left alone: shareMap interns those, before a
// map can be shared, because a shared map must never be written again.
func internMeta(m *api.ObjectMeta) {
	m.Namespace = intern(m.Namespace)
	m.GenerateName = intern(m.GenerateName)
	for i := range m.OwnerReferences {
		r := &m.OwnerReferences[i]
		r.APIVersion, r.Kind, r.Name, r.UID = intern(r.APIVersion), intern(r.Kind), intern(r.Name), intern(r.UID)
	}
	for i, f := range m.Finalizers {
		m.Finalizers[i] = intern(f)
	}
}

// internMap replaces keys and values of m with canonical copies.
// Reassigning an existing key replaces the stored key too (string keys are
// updated on overwrite), so no entry is added or lost.
func internMap(m map[string]string) {
	for k, v := range m {
		m[intern(k)] = intern(v)
	}
}

// Sharing whole maps: the replicas of one workload carry identical labels
// and annotations, and a map costs a few hundred bytes however small. A
// RawObject is immutable once decoded, so RawObjects decoded from the same
// labels (or annotations) JSON may share one map. recentMaps remembers
// recently decoded maps by their JSON bytes in a fixed-size, lock-free
// table: objects listed one after another (the replicas of a ReplicaSet
// sort together) find their siblings' map there, memory stays bounded (the
// table, not the cache, decides how many entries it keeps), and a
// collision only costs a missed share. Typed objects never share: they are
// the ones callers copy and edit.
//
// The table holds its maps weakly, so that a map goes away with the last
// object using it: after every pod of a cluster was relabelled, the maps
// of the old labels are garbage, not the table's (an entry keeps only the
// JSON it was decoded from until it is reused).
//
// The table is set-associative — a JSON hashes to a set of recentMapWays
// entries, any of which may hold it — because updates arrive one object at
// a time in no useful order: when every pod is relabelled, the old and the
// new label sets of every ReplicaSet are in use at once, and in a table
// with one entry per hash two sets that collide would evict each other at
// every event, each eviction a private map.
const (
	recentMapSets = 2048
	recentMapWays = 4
)

type recentMap struct {
	json string                  // the JSON bytes the map was decoded from
	m    weak.Pointer[mapObject] // the map (see weakMap)
}

// mapObject stands for the runtime's object that a map value points to: a
// Go map is one pointer (checked below), and a weak pointer to that object
// lets the table hold a map without keeping it alive.
type mapObject struct{}

// A map value must be exactly one pointer for weakMap and strongMap.
var _ [1]struct{} = [unsafe.Sizeof(map[string]string(nil)) / unsafe.Sizeof(unsafe.Pointer(nil))]struct{}{}

func weakMap(m map[string]string) weak.Pointer[mapObject] {
	return weak.Make(*(**mapObject)(unsafe.Pointer(&m)))
}

// strongMap returns the map w points to, nil once it is gone.
func strongMap(w weak.Pointer[mapObject]) map[string]string {
	p := w.Value()
	if p == nil {
		return nil
	}
	return *(*map[string]string)(unsafe.Pointer(&p))
}

var (
	recentMaps    [recentMapSets * recentMapWays]atomic.Pointer[recentMap]
	recentMapSeed = maphash.MakeSeed()
	// recentMapTick picks the way a miss replaces when its set is full.
	recentMapTick atomic.Uint32
)

// shareMap returns a map equal to m, which was decoded from js: a
// previously decoded one when the table remembers js, else m itself,
// whose strings are interned and which the table now remembers. js ==
// nil: m cannot be shared; only its strings are interned.
func shareMap(js []byte, m map[string]string) map[string]string {
	if len(m) == 0 {
		return m
	}
	if js == nil {
		internMap(m)
		return m
	}
	set := recentMaps[(maphash.Bytes(recentMapSeed, js)%recentMapSets)*recentMapWays:][:recentMapWays]
	for w := range set {
		if e := set[w].Load(); e != nil && e.json == string(js) {
			if old := strongMap(e.m); old != nil {
				return old
			}
		}
	}
	// A miss: take an empty way, or one whose map is gone, else any.
	free := -1
	for w := range set {
		if e := set[w].Load(); e == nil || strongMap(e.m) == nil {
			free = w
			break
		}
	}
	if free < 0 {
		free = int(recentMapTick.Add(1) % recentMapWays)
	}
	internMap(m)
	set[free].Store(&recentMap{json: string(js), m: weakMap(m)})
	return m
}
