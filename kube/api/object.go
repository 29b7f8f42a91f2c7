package api

import (
	"errors"
	"fmt"
	"maps"
	"slices"

	"github.com/kcmlab/kcm/kube/internal/jsonx"
)

// ErrDecode is wrapped by every error about bytes kcm could not parse: an
// object, a list or a watch event.
var ErrDecode = errors.New("cannot decode server response")

// ErrProtobuf is wrapped by the error of an operation that needs an
// object's JSON on a RawObject read as protobuf (see RawObject.IsProto):
// MarshalJSON, Map, Edit, NestedField.
var ErrProtobuf = errors.New("object is held as protobuf, not JSON")

// RawObject is an object of any resource — built-in or custom — kept as its
// exact JSON plus its parsed apiVersion, kind and metadata. It is what the
// informer cache holds by default: compact (one byte slice and a small
// header), complete (every field is still there to read) and cheap to decode
// (only metadata is parsed; spec and status are skipped). In an informer's
// cache the JSON of an object with a controller is kept as a delta against
// a sibling's (package decode, family.go) and rebuilt, byte for byte, by
// Raw.
//
// A RawObject is immutable once decoded. To change one, Edit it into a new
// RawObject and write that. Immutability is load-bearing: RawObjects
// decoded by decode.Raw() share label and annotation maps with siblings
// decoded from the same bytes, and their strings are interned (package
// decode, intern.go), so writing to one in place would change others.
// DeepCopy gives a private copy.
//
// A RawObject read as protobuf (application/vnd.kubernetes.protobuf,
// decoded by decode.Wire) keeps its protobuf message instead of its JSON:
// IsProto reports it and Proto returns the message (without the k8s
// envelope). Its Raw and Original return nil, and what needs the JSON —
// MarshalJSON, Map, Edit, NestedField — fails with an error wrapping
// ErrProtobuf rather than silently writing the metadata alone. Writing it
// back (rest.Resources Create, Update, UpdateSubresource) sends the
// message, enveloped, as a protobuf body: every field, modelled or not.
type RawObject struct {
	TypeMeta
	ObjectMeta `json:"metadata"`
}

// DecodeRawObject parses data, which the result keeps as its raw JSON.
func DecodeRawObject(data []byte) (*RawObject, error) {
	o := &RawObject{}
	if err := jsonx.Unmarshal(data, o); err != nil {
		return nil, fmt.Errorf("%w: object: %v", ErrDecode, err)
	}
	o.SetRaw(data)
	return o, nil
}

// NewRawObject builds a RawObject from a map, e.g. one describing a custom
// resource to create.
func NewRawObject(m map[string]any) (*RawObject, error) {
	data, err := jsonx.Marshal(m)
	if err != nil {
		return nil, fmt.Errorf("encode object: %w", err)
	}
	return DecodeRawObject(data)
}

// IsProto reports whether o holds its protobuf message rather than its
// JSON.
func (o *RawObject) IsProto() bool { return o.src.IsProto() }

// Proto returns o's protobuf message, without the k8s envelope (an
// object's message as a list item carries it), or nil for an object held
// as JSON. The slice must not be modified. For a cached RawObject kept as
// a delta against its family's base message it is rebuilt on each call
// (see ProtoErr); the rebuild cannot fail for deltas kcm wrote, and
// Proto returns nil if it ever did.
func (o *RawObject) Proto() []byte {
	b, _ := o.src.Proto()
	return b
}

// ProtoErr is Proto with the rebuild's error. Writes use it, so that a
// failure is an error and not an empty body.
func (o *RawObject) ProtoErr() ([]byte, error) { return o.src.Proto() }

// protoErr is the error of an operation that needs o's JSON.
func (o *RawObject) protoErr(op string) error {
	return fmt.Errorf("%s %s %s/%s: %w", op, o.Kind, o.Namespace, o.Name, ErrProtobuf)
}

// MarshalJSON returns the raw JSON: every field, modelled or not. For an
// object held as protobuf it fails with an error wrapping ErrProtobuf.
func (o *RawObject) MarshalJSON() ([]byte, error) {
	if o.IsProto() {
		return nil, o.protoErr("marshal to JSON")
	}
	if raw := o.Raw(); raw != nil {
		return raw, nil
	}
	type plain RawObject // drops this method, so no recursion
	return jsonx.Marshal((*plain)(o))
}

// Map decodes the whole object into a map for reading or editing.
func (o *RawObject) Map() (map[string]any, error) {
	if o.IsProto() {
		return nil, o.protoErr("map")
	}
	var m map[string]any
	if err := jsonx.Unmarshal(o.Raw(), &m); err != nil {
		return nil, fmt.Errorf("%w: object: %v", ErrDecode, err)
	}
	return m, nil
}

// Edit returns a new RawObject: a copy of o changed by fn. o is unchanged.
// Numbers reach fn as json.Number, so that those fn does not touch are
// written back exactly (an int64 beyond 2^53 does not survive float64).
func (o *RawObject) Edit(fn func(m map[string]any) error) (*RawObject, error) {
	if o.IsProto() {
		return nil, o.protoErr("edit")
	}
	var m map[string]any
	if err := jsonx.UnmarshalNumbers(o.Raw(), &m); err != nil {
		return nil, fmt.Errorf("%w: object: %v", ErrDecode, err)
	}
	if err := fn(m); err != nil {
		return nil, err
	}
	return NewRawObject(m)
}

// NestedField returns the value at a path of keys, e.g.
// obj.NestedField("spec", "replicas"). Numbers come back as float64.
func (o *RawObject) NestedField(path ...string) (any, bool, error) {
	m, err := o.Map()
	if err != nil {
		return nil, false, err
	}
	var cur any = m
	for _, k := range path {
		mm, ok := cur.(map[string]any)
		if !ok {
			return nil, false, nil
		}
		if cur, ok = mm[k]; !ok {
			return nil, false, nil
		}
	}
	return cur, true, nil
}

// protoCopy is DeepCopy of an object held as protobuf: its metadata
// copied into maps and slices of its own, its message (immutable) shared.
func (o *RawObject) protoCopy() *RawObject {
	c := &RawObject{TypeMeta: o.TypeMeta, ObjectMeta: o.ObjectMeta}
	m := &c.ObjectMeta
	if o.DeletionTimestamp != nil {
		t := *o.DeletionTimestamp
		m.DeletionTimestamp = &t
	}
	if o.DeletionGracePeriodSeconds != nil {
		v := *o.DeletionGracePeriodSeconds
		m.DeletionGracePeriodSeconds = &v
	}
	m.Labels = maps.Clone(o.Labels)
	m.Annotations = maps.Clone(o.Annotations)
	m.Finalizers = slices.Clone(o.Finalizers)
	if o.OwnerReferences != nil {
		m.OwnerReferences = make([]OwnerReference, len(o.OwnerReferences))
		for i, r := range o.OwnerReferences {
			if r.Controller != nil {
				v := *r.Controller
				r.Controller = &v
			}
			if r.BlockOwnerDeletion != nil {
				v := *r.BlockOwnerDeletion
				r.BlockOwnerDeletion = &v
			}
			m.OwnerReferences[i] = r
		}
	}
	return c
}
