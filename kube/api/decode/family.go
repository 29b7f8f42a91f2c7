package decode

import (
	"bytes"
	"runtime"
	"sync"
	"unsafe"
	"weak"

	"github.com/kcmlab/kcm/kube/api"
	"github.com/kcmlab/kcm/kube/api/internal/objsrc"
	"github.com/kcmlab/kcm/kube/internal/jsonx"
)

// Families: the objects a cache holds come in families — the pods of one
// ReplicaSet, the ReplicaSets of one Deployment, the Jobs of one CronJob —
// whose JSON is the same bytes but for a few dozen short values. A
// RawObject decoded for a cache (with managedFields stripped, as the
// informers decode them) whose metadata names a controller keeps its JSON
// as a delta (delta.go) against its family's base document: the JSON of
// the first member decoded, which that member keeps whole. Raw rebuilds
// the JSON from the two on each call.
//
// The base of a family is found by the controller's uid and the object's
// shape — the names of its top-level members, so that the Pods and the
// ControllerRevisions one DaemonSet controls are two families, not one
// whose base flips between kinds — in a table that holds it weakly: the family's members hold it, the table does not, so a
// base goes away with the last object written against it and its entry
// with it (runtime.AddCleanup) — the table never keeps a document alive.
// When a member differs too much from its base (after a rollout of a new
// template, or once updates have moved the family away from its first
// member: containers restarted, labels changed) the member becomes the
// family's new base, whole, and the members written against the old one
// keep it alive until they are replaced in turn.
//
// Objects without a controller, and objects not stripped (a GET, a
// write's answer), keep their JSON whole: a delta only pays where many
// objects share a base.

// familyBase is the document the members of a family are written
// against. Immutable.
type familyBase struct{ doc []byte }

// familyDoc is where a family member's JSON comes from: its base and its
// delta against it, or the base itself when enc is empty. Immutable.
type familyDoc struct {
	base *familyBase
	enc  string
}

// json returns the member's JSON: the base's bytes themselves for the
// member that is the base, else a new slice.
func (d *familyDoc) json() ([]byte, error) {
	if d.enc == "" {
		return d.base.doc, nil
	}
	return rebuildDelta(d.enc, d.base.doc)
}

// maxDeltaShare is the largest delta kept, as a share of the JSON's
// length (1/maxDeltaShare): a member whose delta is larger becomes its
// family's new base. The siblings of a ReplicaSet differ by a sixth or
// less of a pod's JSON; a pod two container restarts away from its base
// by a little more.
const maxDeltaShare = 3

// familyID names a family: its controller's uid and the shape of its
// members (see topShape).
type familyID struct {
	uid   string
	shape uint64
}

// families maps a family to its base, weakly.
var families = struct {
	sync.RWMutex
	m map[familyID]weak.Pointer[familyBase]
}{m: map[familyID]weak.Pointer[familyBase]{}}

// familyKey identifies an entry of families for the cleanup that removes
// it: the weak pointer tells the entry of a dead base from a newer one.
type familyKey struct {
	id familyID
	wp weak.Pointer[familyBase]
}

// topShape hashes the names of an object's top-level members, apiVersion
// and kind left out (list items carry neither, watch events both): a pod
// is metadata, spec and status; a ControllerRevision metadata, data and
// revision. FNV-1a, with a separator after each name.
func topShape(data []byte, top []jsonx.Member) uint64 {
	h := uint64(14695981039346656037)
	for _, m := range top {
		k := data[m.KeyStart:m.KeyEnd]
		if string(k) == "apiVersion" || string(k) == "kind" {
			continue
		}
		for _, c := range k {
			h = (h ^ uint64(c)) * 1099511628211
		}
		h = (h ^ '"') * 1099511628211
	}
	return h
}

// setFamilySource sets m's source to raw written against the base of its
// family — raw itself becoming the base when there is none yet or raw is
// too unlike it — and reports whether it did: false when m has no
// controller. raw is not kept (it may be a scratch buffer); shape is
// topShape of raw.
func setFamilySource(m *api.ObjectMeta, raw []byte, shape uint64) bool {
	ref := m.ControllerRef()
	if ref == nil || ref.UID == "" || len(raw) == 0 {
		return false
	}
	id := familyID{ref.UID, shape}
	families.RLock()
	base := families.m[id].Value()
	families.RUnlock()
	if base != nil {
		buf := getScratch()
		enc := appendDelta(scratchOf(buf), raw, base.doc)
		if len(enc) <= len(raw)/maxDeltaShare {
			*objsrc.Of(m) = familySource(&familyDoc{base: base, enc: string(enc)})
			*buf = enc[:0]
			putScratch(buf)
			return true
		}
		*buf = enc[:0]
		putScratch(buf)
	}
	base = &familyBase{doc: bytes.Clone(raw)}
	wp := weak.Make(base)
	families.Lock()
	families.m[id] = wp
	families.Unlock()
	runtime.AddCleanup(base, forgetFamily, familyKey{id, wp})
	*objsrc.Of(m) = familySource(&familyDoc{base: base})
	return true
}

// forgetFamily removes k's entry when it still names the base that went
// away (not a newer base of the same family).
func forgetFamily(k familyKey) {
	families.Lock()
	if families.m[k.id] == k.wp {
		delete(families.m, k.id)
	}
	families.Unlock()
}

// familySource returns the source of a family member: d, rebuilt by
// familyRebuilder.
func familySource(d *familyDoc) objsrc.Source {
	return objsrc.Rebuilt(unsafe.Pointer(d), &familyRebuilder)
}

// familyRebuilder rebuilds the JSON of every family member from its
// familyDoc; its address also tells the family form from the others.
var familyRebuilder = objsrc.MakeRebuilder(rebuildFamily, nil)

// rebuildFamily is familyDoc.json as a Rebuilder's function.
func rebuildFamily(_, d unsafe.Pointer) ([]byte, error) { return (*familyDoc)(d).json() }

// familyDocOf returns the familyDoc m's JSON is kept as, or nil when m
// is not a family member.
func familyDocOf(m *api.ObjectMeta) *familyDoc {
	if rb, p := objsrc.Of(m).Rebuilder(); rb == &familyRebuilder {
		return (*familyDoc)(p)
	}
	return nil
}

// Scratch buffers for the stripped JSON and the delta, which are copied
// into what an object keeps and then reused. Buffers larger than
// maxScratch (a huge object) are dropped rather than pooled.
const maxScratch = 64 << 10

var familyScratch = sync.Pool{New: func() any { b := make([]byte, 0, 8<<10); return &b }}

func getScratch() *[]byte { return familyScratch.Get().(*[]byte) }

func putScratch(b *[]byte) {
	if cap(*b) <= maxScratch {
		familyScratch.Put(b)
	}
}

// scratchOf returns *b emptied, or nil for a nil b.
func scratchOf(b *[]byte) []byte {
	if b == nil {
		return nil
	}
	return (*b)[:0]
}
