package protowire

import (
	"bytes"
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
// scheme of kcm's JSON RawObject cache (kube/api/decode/family.go) on protobuf.
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

// decodeFamily is DecodeMessage with FamilyDelta (see keepFamily).
func decodeFamily(tm api.TypeMeta, msg []byte, drop bool) (*Object, error) {
	o := &Object{TypeMeta: tm}
	kept, fam, delta, err := keepFamily(tm.Kind, msg, drop, &o.ObjectMeta)
	if err != nil {
		return nil, err
	}
	o.msg, o.fam, o.delta = kept, fam, delta
	return o, nil
}

// keepFamily reads msg's metadata into m and keeps the message: as a
// delta against its family's base (fam, delta), as its family's new base
// (fam, delta ""), or whole outside any family (kept). The message is cut
// (managedFields) into a scratch buffer and its metadata read from
// there; a member kept as a delta then gives its strings their own
// memory and never copies the message. One kept whole — its family's new
// base, or an object without a controller — is copied out of the scratch
// buffer and its metadata read again from the copy, so that its strings
// point into what it keeps.
func keepFamily(kind string, msg []byte, drop bool, m *api.ObjectMeta) (kept []byte, fam *familyBase, delta string, err error) {
	sp := deltaBuffer.Get().(*[]byte)
	defer deltaBuffer.Put(sp)
	scratch, err := keep(*sp, msg, drop)
	if err != nil {
		return nil, nil, "", err
	}
	*sp = scratch[:0]
	private, err := scanObjectMetaPrivate(scratch, m, true)
	if err != nil {
		return nil, nil, "", err
	}
	ref := m.ControllerRef()
	var slot *atomic.Pointer[familyEntry]
	if ref != nil && ref.UID != "" && !private {
		// Only an object whose maps and owner references are shared can
		// be a delta: what it decoded field by field points into scratch.
		slot = &families[maphash.String(familySeed, ref.UID)%familySlots]
		if e := slot.Load(); e != nil && e.uid == ref.UID && e.kind == kind {
			if base := e.base.Value(); base != nil {
				ep := deltaBuffer.Get().(*[]byte)
				enc := appendDelta((*ep)[:0], scratch, base.doc)
				small := len(enc)*maxDeltaShare <= len(scratch)
				if small {
					fam, delta = base, string(enc)
					ownStrings(m)
				}
				*ep = enc[:0]
				deltaBuffer.Put(ep)
				if small {
					return nil, fam, delta, nil
				}
			}
		}
	}
	kept = bytes.Clone(scratch)
	uid := ""
	if slot != nil {
		uid = strings.Clone(ref.UID)
	}
	*m = api.ObjectMeta{}
	if err := scanObjectMeta(kept, m, true); err != nil {
		return nil, nil, "", err
	}
	if slot == nil {
		return kept, nil, "", nil
	}
	base := &familyBase{doc: kept}
	slot.Store(&familyEntry{uid: uid, kind: kind, base: weak.Make(base)})
	return nil, base, "", nil // the base itself: its message is base.doc
}

// Member is where the message of an object kept in a family comes from
// (KeepFamily): its family's base and its delta against it, or the base
// itself. It holds the base, so that the family's table finds it while
// any member lives. Immutable.
type Member struct {
	fam   *familyBase
	delta string
}

// Message returns the member's message: the base's bytes for the member
// that is the base, else a new slice rebuilt from the delta. It must not
// be modified.
func (m *Member) Message() ([]byte, error) {
	if m.delta == "" {
		return m.fam.doc, nil
	}
	return applyDelta(m.delta, m.fam.doc)
}

// IsDelta reports whether the member is kept as a delta (not the base).
func (m *Member) IsDelta() bool { return m.delta != "" }

// KeepFamily is Keep with FamilyDelta, into parts a caller holds: it reads
// msg's ObjectMeta into m and keeps the message, without
// metadata.managedFields when drop is set, either whole (kept, for an
// object without a controller, or one that is not a family's member) or
// in its family (a Member: the family's new base, or a delta against it).
// kind is the object's kind: families are per controller and kind. A
// member's strings point into its base's message or have memory of their
// own; msg stays the caller's.
func KeepFamily(kind string, msg []byte, drop bool, m *api.ObjectMeta) ([]byte, *Member, error) {
	kept, fam, delta, err := keepFamily(kind, msg, drop, m)
	if err != nil || fam == nil {
		return kept, nil, err
	}
	return nil, &Member{fam: fam, delta: delta}, nil
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
