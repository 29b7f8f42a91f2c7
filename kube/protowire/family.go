package protowire

import (
	"hash/maphash"
	"strings"
	"sync"
	"sync/atomic"
	"unique"
	"weak"

	"github.com/kcmlab/kcm/kube/api"
)

// Families (Options.FamilyDelta): the objects of a cache come in families
// — the pods of one ReplicaSet, the ReplicaSets of one Deployment — whose
// messages are the same bytes but for a few dozen short values. An Object
// whose metadata names a controller is kept as a delta (delta.go) against
// its family's base: the message of a member decoded before, which that
// member keeps whole. The base is found by the controller's uid and the
// object's kind in a fixed-size table that holds it weakly: members hold
// it, so it goes away with the last of them. A member whose delta is more
// than a third of its message becomes the family's new base. This is the
// scheme of kcm's JSON RawObject cache (kube/api/family.go) on protobuf.
//
// A member kept as a delta has no message of its own for its metadata
// strings to point into: its name, uid and resourceVersion are copied,
// its namespace and generateName interned (the family shares them).

// familyBase is the message the members of a family are written against.
// Immutable.
type familyBase struct{ doc []byte }

type familyEntry struct {
	uid, kind string
	base      weak.Pointer[familyBase]
}

const familySlots = 4096

var (
	families    [familySlots]atomic.Pointer[familyEntry]
	familySeed  = maphash.MakeSeed()
	deltaBuffer = sync.Pool{New: func() any { b := make([]byte, 0, 4096); return &b }}
)

// maxDeltaShare: a delta larger than 1/maxDeltaShare of its message makes
// the message its family's new base instead.
const maxDeltaShare = 3

// joinFamily keeps o's message (kept, which its metadata strings point
// into) as a delta against its family's base when it has a controller
// and the delta is small; else whole, as the family's new base when it
// has a controller.
func joinFamily(o *Object, kept []byte) {
	ref := o.ControllerRef()
	if ref == nil || ref.UID == "" {
		o.msg = kept
		return
	}
	slot := &families[maphash.String(familySeed, ref.UID)%familySlots]
	if e := slot.Load(); e != nil && e.uid == ref.UID && e.kind == o.Kind {
		if base := e.base.Value(); base != nil {
			bp := deltaBuffer.Get().(*[]byte)
			enc := appendDelta((*bp)[:0], kept, base.doc)
			if len(enc)*maxDeltaShare <= len(kept) {
				o.fam, o.delta = base, string(enc)
				ownStrings(&o.ObjectMeta)
				*bp = enc[:0]
				deltaBuffer.Put(bp)
				return
			}
			*bp = enc[:0]
			deltaBuffer.Put(bp)
		}
	}
	base := &familyBase{doc: kept}
	slot.Store(&familyEntry{uid: strings.Clone(ref.UID), kind: o.Kind, base: weak.Make(base)})
	o.fam = base // the base itself: Message returns base.doc
}

// ownStrings gives m's strings their own memory, where they pointed into
// a message that is not kept.
func ownStrings(m *api.ObjectMeta) {
	m.Name, m.UID, m.ResourceVersion = strings.Clone(m.Name), strings.Clone(m.UID), strings.Clone(m.ResourceVersion)
	m.Namespace, m.GenerateName = internString(m.Namespace), internString(m.GenerateName)
	if len(m.Finalizers) > 0 {
		fs := make([]string, len(m.Finalizers))
		for i, f := range m.Finalizers {
			fs[i] = internString(f)
		}
		m.Finalizers = fs
	}
}

func internString(s string) string {
	if s == "" {
		return s
	}
	return unique.Make(s).Value()
}
