package protowire

import (
	"hash/maphash"
	"sync/atomic"

	"github.com/kcmlab/kcm/kube/api"
)

// Sharing: the replicas of a workload carry the same labels, annotations
// and owner reference, byte for byte, and a Go map costs a few hundred
// bytes however small. An Object is immutable, so Objects whose metadata
// holds the same run of label (or annotation, or owner reference) fields
// may share one decoded map (or slice). recent remembers the last runs
// decoded, by their bytes, in a fixed-size lock-free table: pods listed
// one after another (a ReplicaSet's replicas sort together) find their
// siblings' map there. A collision costs a missed share, never a wrong
// one (the bytes are compared). The table holds at most recentSize
// entries, each the run's bytes and what was decoded from them (whose
// strings point into those bytes), so its memory is bounded however many
// objects are decoded — kcm's JSON side (kube/api/decode/intern.go) holds its
// maps weakly instead; a prototype keeps it simple.

// recentSize is the number of entries of the table.
const recentSize = 4096

// shared is one entry: a run of metadata fields and what they decode to.
type shared struct {
	num  int32  // the field number of the run
	enc  string // the run's bytes; m's and refs' strings point into it
	m    map[string]string
	refs []api.OwnerReference
}

var (
	recent     [recentSize]atomic.Pointer[shared]
	recentSeed = maphash.MakeSeed()
)

// run is where the fields of one number sit in a metadata message: from
// the first's start to the last's end, and whether nothing else lies in
// between (only then is the run's bytes a key).
type run struct {
	start, end int
	n          int
	broken     bool
}

// add notes a field of the run's number at [start,end); last is the end
// of the field read before it.
func (r *run) add(start, end, last int) {
	switch {
	case r.n == 0:
		r.start = start
	case last != r.end:
		r.broken = true
	}
	r.end = end
	r.n++
}

// shareable reports whether the run can be looked up by its bytes.
func (r *run) shareable() bool { return r.n > 0 && !r.broken }

// lookup returns the entry for the run b of field num, building it with
// build on a miss (from the entry's own copy of b, so that what it
// decodes points into that copy and not into an object's message).
func lookup(num int32, b []byte, build func(e *shared) error) (*shared, error) {
	slot := &recent[(maphash.Bytes(recentSeed, b)^uint64(num))%recentSize]
	if e := slot.Load(); e != nil && e.num == num && e.enc == string(b) {
		return e, nil
	}
	e := &shared{num: num, enc: string(b)}
	if err := build(e); err != nil {
		return nil, err
	}
	slot.Store(e)
	return e, nil
}

// sharedMap returns the map decoded from a run of map entries (labels or
// annotations).
func sharedMap(num int32, b []byte, n int) (map[string]string, error) {
	e, err := lookup(num, b, func(e *shared) error {
		e.m = make(map[string]string, n)
		return EachField(stringBytes(e.enc), func(f Field) error {
			mb, err := f.Message()
			if err != nil {
				return err
			}
			k, v, err := readMapEntry(mb, true)
			e.m[k] = v
			return err
		})
	})
	if err != nil {
		return nil, err
	}
	return e.m, nil
}

// sharedOwners returns the owner references decoded from a run of
// ownerReferences fields.
func sharedOwners(b []byte, n int) ([]api.OwnerReference, error) {
	e, err := lookup(metaOwnerReferences, b, func(e *shared) error {
		e.refs = make([]api.OwnerReference, 0, n)
		return EachField(stringBytes(e.enc), func(f Field) error {
			mb, err := f.Message()
			if err != nil {
				return err
			}
			ref, err := readOwnerReference(mb, true)
			e.refs = append(e.refs, ref)
			return err
		})
	})
	if err != nil {
		return nil, err
	}
	return e.refs[:len(e.refs):len(e.refs)], nil
}
