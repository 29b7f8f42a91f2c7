package api

import (
	"time"

	"github.com/kcmlab/kcm/kube/api/internal/objsrc"
	"github.com/kcmlab/kcm/kube/internal/jsonx"
)

// TypeMeta is the apiVersion/kind pair every Kubernetes object starts with.
type TypeMeta struct {
	APIVersion string `json:"apiVersion,omitempty"`
	Kind       string `json:"kind,omitempty"`
}

// ObjectMeta is the metadata every persisted object carries
// (meta/v1 ObjectMeta). managedFields is deliberately absent: kcm never
// models it, so it is dropped from cached copies and survives writes through
// the raw-merge of rest.Resources.Update (kube/rest/merge.go).
//
// An ObjectMeta decoded from the wire remembers the whole object it came
// from (src, see package api/internal/objsrc): its exact JSON, or — for
// the objects of a cache, which do not keep it — what the decoder needs
// to rebuild it (package decode). Either is shared and never mutated; it
// lets Update keep fields that kcm's structs do not model.
type ObjectMeta struct {
	Name                       string            `json:"name,omitempty"`
	GenerateName               string            `json:"generateName,omitempty"`
	Namespace                  string            `json:"namespace,omitempty"`
	UID                        string            `json:"uid,omitempty"`
	ResourceVersion            string            `json:"resourceVersion,omitempty"`
	Generation                 int64             `json:"generation,omitempty"`
	CreationTimestamp          Time              `json:"creationTimestamp,omitempty"`
	DeletionTimestamp          *Time             `json:"deletionTimestamp,omitempty"`
	DeletionGracePeriodSeconds *int64            `json:"deletionGracePeriodSeconds,omitempty"`
	Labels                     map[string]string `json:"labels,omitempty"`
	Annotations                map[string]string `json:"annotations,omitempty"`
	OwnerReferences            []OwnerReference  `json:"ownerReferences,omitempty"`
	Finalizers                 []string          `json:"finalizers,omitempty"`

	// src is where the object came from. Zero for objects built in code.
	// Immutable.
	src objsrc.Source
}

// The decoders (package decode) set and read src through objsrc.Of.
func init() { objsrc.Of = func(m any) *objsrc.Source { return &m.(*ObjectMeta).src } }

// OwnerReference points from a dependent to its owner (meta/v1 OwnerReference).
type OwnerReference struct {
	APIVersion         string `json:"apiVersion"`
	Kind               string `json:"kind"`
	Name               string `json:"name"`
	UID                string `json:"uid"`
	Controller         *bool  `json:"controller,omitempty"`
	BlockOwnerDeletion *bool  `json:"blockOwnerDeletion,omitempty"`
}

// IsController reports whether this reference marks the managing controller.
func (r OwnerReference) IsController() bool { return r.Controller != nil && *r.Controller }

// Object is what every kcm object — typed or generic — offers: read access to
// its metadata. Caches, indexes and queues work on this interface only.
type Object interface {
	GetObjectMeta() *ObjectMeta
	GetTypeMeta() *TypeMeta
}

// TypedPtr is the constraint satisfied by *S for each typed kind S.
type TypedPtr[S any] interface {
	*S
	Object
}

// GetObjectMeta returns the metadata itself (promoted to every type that
// embeds ObjectMeta).
func (m *ObjectMeta) GetObjectMeta() *ObjectMeta { return m }

// GetTypeMeta returns the apiVersion/kind pair.
func (t *TypeMeta) GetTypeMeta() *TypeMeta { return t }

// Raw returns the object's JSON as last read from the server, or nil for an
// object built in code. The slice must not be modified. For an object
// decoded by decode.Compact, and for a cached RawObject kept as a delta
// against its family's base, the JSON is rebuilt on each call (see
// Original); the rebuild cannot fail for kcm's types, and Raw returns nil
// if it ever did. A RawObject read as protobuf has no JSON: Raw and
// Original return nil for it (RawObject.Proto has its message).
func (m *ObjectMeta) Raw() []byte {
	b, _ := m.src.JSON()
	return b
}

// Original is Raw with the rebuild's error: the object's JSON as last
// read from the server (every member, modelled or not), or nil for an
// object built in code. Writes use it, so that a failure is an error and
// not a write without the unmodelled fields.
func (m *ObjectMeta) Original() ([]byte, error) { return m.src.JSON() }

// SetRaw records the JSON an object was decoded from. Codecs call it; callers
// outside a codec rarely need it.
func (m *ObjectMeta) SetRaw(raw []byte) { m.src = objsrc.JSON(raw) }

// IsProto reports whether the object was read as protobuf and keeps its
// protobuf message (without the envelope) instead of its JSON: Raw and
// Original are nil then, and OriginalProto has the message. Typed objects
// of built-in kinds read by a client whose ContentType is protobuf are
// (decode.Typed, decode.Compact); kube/rest writes them back merged onto
// that message, so fields kcm does not model are kept.
func (m *ObjectMeta) IsProto() bool { return m.src.IsProto() }

// OriginalProto is the protobuf message the object was read from (every
// field, modelled or not; managedFields cut when a cache stripped them),
// or nil when it was not read as protobuf (see IsProto). The slice must
// not be modified.
func (m *ObjectMeta) OriginalProto() ([]byte, error) { return m.src.Proto() }

// IsControlledBy reports whether owner is the controller of this object.
func (m *ObjectMeta) IsControlledBy(ownerUID string) bool {
	ref := m.ControllerRef()
	return ref != nil && ref.UID == ownerUID
}

// ControllerRef returns the owner reference with controller=true, or nil.
func (m *ObjectMeta) ControllerRef() *OwnerReference {
	for i := range m.OwnerReferences {
		if m.OwnerReferences[i].IsController() {
			return &m.OwnerReferences[i]
		}
	}
	return nil
}

// Key is the object's cache key: "namespace/name", or "name" when
// cluster-scoped (client-go's MetaNamespaceKeyFunc).
func (m *ObjectMeta) Key() string {
	if m.Namespace == "" {
		return m.Name
	}
	return m.Namespace + "/" + m.Name
}

// Time is a meta/v1 Time: RFC 3339 with second precision on the wire,
// null when zero.
type Time struct{ time.Time }

// NewTime wraps t, truncated to seconds as the API stores it.
func NewTime(t time.Time) Time { return Time{t.UTC().Truncate(time.Second)} }

// MarshalJSON implements json.Marshaler.
func (t Time) MarshalJSON() ([]byte, error) {
	if t.IsZero() {
		return []byte("null"), nil
	}
	return []byte(`"` + t.UTC().Format(time.RFC3339) + `"`), nil
}

// UnmarshalJSON implements json.Unmarshaler.
func (t *Time) UnmarshalJSON(b []byte) error {
	s, ok := jsonx.Unquote(b)
	if !ok {
		t.Time = time.Time{}
		return nil
	}
	pt, err := time.Parse(time.RFC3339, s)
	if err != nil {
		return err
	}
	t.Time = pt.Local()
	return nil
}

// MicroTime is a meta/v1 MicroTime (Lease timestamps): RFC 3339 with
// microseconds.
type MicroTime struct{ time.Time }

// microFormat is the wire format of MicroTime.
const microFormat = "2006-01-02T15:04:05.000000Z07:00"

// NewMicroTime wraps t, truncated to microseconds.
func NewMicroTime(t time.Time) MicroTime { return MicroTime{t.UTC().Truncate(time.Microsecond)} }

// MarshalJSON implements json.Marshaler.
func (t MicroTime) MarshalJSON() ([]byte, error) {
	if t.IsZero() {
		return []byte("null"), nil
	}
	return []byte(`"` + t.UTC().Format(microFormat) + `"`), nil
}

// UnmarshalJSON implements json.Unmarshaler.
func (t *MicroTime) UnmarshalJSON(b []byte) error {
	s, ok := jsonx.Unquote(b)
	if !ok {
		t.Time = time.Time{}
		return nil
	}
	pt, err := time.Parse(time.RFC3339Nano, s)
	if err != nil {
		return err
	}
	t.Time = pt.Local()
	return nil
}
