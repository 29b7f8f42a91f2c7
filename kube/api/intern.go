package api

import (
	"hash/maphash"
	"sync/atomic"
	"unique"
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
func internMeta(m *ObjectMeta) {
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
// table, not the cache, decides how many maps it keeps), and a collision
// only costs a missed share. Typed objects never share: they are the ones
// callers copy and edit.
const recentMapSlots = 4096

type recentMap struct {
	json string // the JSON bytes the map was decoded from
	m    map[string]string
}

var (
	recentMaps    [recentMapSlots]atomic.Pointer[recentMap]
	recentMapSeed = maphash.MakeSeed()
)

// shareMap returns a map equal to m, which was decoded from js: a
// previously decoded one when the table remembers js, else m itself, whose
// strings are interned and which the table now remembers. js == nil: m
// cannot be shared; only its strings are interned.
func shareMap(js []byte, m map[string]string) map[string]string {
	if len(m) == 0 {
		return m
	}
	if js == nil {
		internMap(m)
		return m
	}
	slot := &recentMaps[maphash.Bytes(recentMapSeed, js)%recentMapSlots]
	if e := slot.Load(); e != nil && e.json == string(js) {
		return e.m
	}
	internMap(m)
	slot.Store(&recentMap{json: string(js), m: m})
	return m
}
