package protowire

import (
	"fmt"

	"github.com/kcmlab/kcm/kube/api"
)

// Object is an object kept as its protobuf message, with its type and
// metadata read out: the protobuf counterpart of kcm's api.RawObject. It
// implements api.Object, so caches, indexes and queues can hold it.
//
// An Object owns its message (a copy of what it was decoded from, made
// once, to size) and is immutable: its metadata strings share the
// message's memory, and its owner references share two bools.
// api.ObjectMeta.Raw is nil for an Object: its bytes are protobuf, and
// Message returns them.
type Object struct {
	api.TypeMeta
	api.ObjectMeta
	// msg is the kept message; nil when fam is set: then the message is
	// fam.doc (this object is its family's base, delta == "") or delta
	// applied to it (family.go).
	msg   []byte
	fam   *familyBase
	delta string
}

// Message returns the object's protobuf message, without the envelope
// (what a list item is). It must not be modified. For an object kept as
// a delta against its family's base it is rebuilt on each call (see
// MessageErr); the rebuild cannot fail for deltas this package wrote, and
// Message returns nil if it ever did.
func (o *Object) Message() []byte {
	b, _ := o.MessageErr()
	return b
}

// MessageErr is Message with the rebuild's error.
func (o *Object) MessageErr() ([]byte, error) {
	switch {
	case o.fam == nil:
		return o.msg, nil
	case o.delta == "":
		return o.fam.doc, nil
	}
	return applyDelta(o.delta, o.fam.doc)
}

// IsDelta reports whether o is kept as a delta against its family's base.
func (o *Object) IsDelta() bool { return o.delta != "" }

// AppendEnveloped appends the object as kube-apiserver writes one object:
// Magic and a runtime.Unknown holding its type and message.
func (o *Object) AppendEnveloped(b []byte) ([]byte, error) {
	msg, err := o.MessageErr()
	if err != nil {
		return b, err
	}
	return Wrap(b, o.APIVersion, o.Kind, msg), nil
}

// Options say how objects are decoded.
type Options struct {
	// DropManagedFields cuts metadata.managedFields from the kept
	// message, as kcm's JSON caches do (decode.StrippingManagedFields):
	// controllers do not read it, and it is often a third of a pod.
	DropManagedFields bool
	// FamilyDelta keeps an object that has a controller as a delta
	// against its family's base (family.go), as kcm's JSON caches do: a
	// pod of a ReplicaSet then holds a fraction of its message. Message
	// rebuilds it on each call.
	FamilyDelta bool
}

// Decode reads an enveloped object: a GET's body, or a watch event's
// Object.
func Decode(data []byte, opt Options) (*Object, error) {
	u, err := Unwrap(data)
	if err != nil {
		return nil, err
	}
	if err := u.Protobuf(); err != nil {
		return nil, err
	}
	return DecodeMessage(api.TypeMeta{APIVersion: typeString(u.APIVersion), Kind: typeString(u.Kind)}, u.Raw, opt)
}

// DecodeMessage reads an object's message (a list item, whose type the
// list's envelope gave) into an Object that keeps a copy of msg: all of
// it, or with DropManagedFields all but metadata.managedFields.
func DecodeMessage(tm api.TypeMeta, msg []byte, opt Options) (*Object, error) {
	if opt.FamilyDelta {
		return decodeFamily(tm, msg, opt.DropManagedFields)
	}
	kept, err := keep(nil, msg, opt.DropManagedFields)
	if err != nil {
		return nil, err
	}
	o := &Object{TypeMeta: tm, msg: kept}
	if err := scanObjectMeta(kept, &o.ObjectMeta, true); err != nil {
		return nil, err
	}
	return o, nil
}

// keep returns a copy of msg, without the managedFields of its metadata
// when drop is set: in buf when it has room, else made to size. A metadata field that loses entries is
// written again with its new length; every other byte is copied as is.
func keep(buf, msg []byte, drop bool) ([]byte, error) {
	size, err := keptSize(msg, drop)
	if err != nil {
		return nil, err
	}
	out := buf[:0]
	if cap(out) < size {
		out = make([]byte, 0, size)
	}
	if size == len(msg) {
		return append(out, msg...), nil
	}
	r := NewReader(msg)
	for !r.Done() {
		f, _ := r.Next() // keptSize read every field without error
		cut := 0
		if f.Num == objectMetadata {
			cut = managedSize(f.Data)
		}
		if cut == 0 {
			out = append(out, msg[f.Start:f.End]...)
			continue
		}
		out = AppendTag(out, objectMetadata, Bytes)
		out = AppendVarint(out, uint64(len(f.Data)-cut))
		mr := NewReader(f.Data)
		for !mr.Done() {
			mf, _ := mr.Next()
			if mf.Num != metaManagedFields {
				out = append(out, f.Data[mf.Start:mf.End]...)
			}
		}
	}
	return out, nil
}

// keptSize is the size of msg once its managedFields are dropped (with
// drop), and checks that msg and its metadata fields are well formed.
func keptSize(msg []byte, drop bool) (int, error) {
	size := len(msg)
	r := NewReader(msg)
	for !r.Done() {
		f, err := r.Next()
		if err != nil {
			return 0, fmt.Errorf("object: %w", err)
		}
		if f.Num != objectMetadata {
			continue
		}
		if f.Type != Bytes {
			return 0, fmt.Errorf("object: metadata: %w", ErrFieldType)
		}
		if err := wellFormed(f.Data); err != nil {
			return 0, fmt.Errorf("object: metadata: %w", err)
		}
		if !drop {
			continue
		}
		if cut := managedSize(f.Data); cut > 0 {
			// Written again as keep does: a one-byte tag, the new length,
			// the fields that stay.
			n := len(f.Data) - cut
			size -= (f.End - f.Start) - (1 + SizeVarint(uint64(n)) + n)
		}
	}
	return size, nil
}

// wellFormed checks that b is a sequence of well-formed fields.
func wellFormed(b []byte) error {
	r := NewReader(b)
	for !r.Done() {
		if _, err := r.Next(); err != nil {
			return err
		}
	}
	return nil
}

// managedSize is how many bytes the managedFields fields of a
// well-formed metadata message take.
func managedSize(meta []byte) int {
	n := 0
	r := NewReader(meta)
	for !r.Done() {
		f, _ := r.Next()
		if f.Num == metaManagedFields {
			n += f.End - f.Start
		}
	}
	return n
}

// Keep reads an object's message (a list item, or an envelope's raw) the
// way DecodeMessage does without FamilyDelta, into parts a caller holds
// itself: it returns a copy of msg made to size — without
// metadata.managedFields when opt.DropManagedFields — and reads the
// copy's ObjectMeta into m, whose strings then alias the copy. kcm's
// api.RawObject in its protobuf form is built this way (decode.Wire). msg
// stays the caller's.
func Keep(msg []byte, opt Options, m *api.ObjectMeta) ([]byte, error) {
	kept, err := keep(nil, msg, opt.DropManagedFields)
	if err != nil {
		return nil, err
	}
	if err := scanObjectMeta(kept, m, true); err != nil {
		return nil, err
	}
	return kept, nil
}

// StripManagedFields returns a copy of an object's message, made to size,
// without metadata.managedFields: the protobuf counterpart of
// decode.StripManagedFields. msg stays the caller's.
func StripManagedFields(msg []byte) ([]byte, error) { return keep(nil, msg, true) }
