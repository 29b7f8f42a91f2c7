package decode

import (
	"fmt"
	"unsafe"

	"github.com/kcmlab/kcm/kube/api"
	"github.com/kcmlab/kcm/kube/api/internal/objsrc"
	"github.com/kcmlab/kcm/kube/api/protowire"
)

// Protobuf. kube-apiserver writes built-in kinds, and the metadata-only
// form of every resource, as application/vnd.kubernetes.protobuf when a
// client asks for it. kube/rest asks for it only for a codec that can read
// it: one that implements ProtoDecoder beside Codec. The envelope, the
// list and the watch frame around an object are kube/rest's and
// protowire's business; a ProtoDecoder sees one object's message and the
// type its envelope or list named.
//
// Wire is the RawObject codec of both encodings: JSON as Raw decodes it,
// protobuf into a RawObject that keeps its protobuf message
// (RawObject.Proto) and its metadata read by field number (protowire).
// Raw stays JSON only: its users parse Raw() as JSON.

// ProtoDecoder is implemented by a Codec that also reads an object's
// protobuf message.
type ProtoDecoder[T api.Object] interface {
	// DecodeProto decodes one object's protobuf message (no envelope, as a
	// list item or the envelope's raw); tm is its apiVersion and kind
	// (from the envelope, or the list's kind minus "List"). The result may
	// keep msg: callers hand over the slice. Errors wrap api.ErrDecode.
	DecodeProto(tm api.TypeMeta, msg []byte) (T, error)
}

// ProtoBorrowingDecoder is the optional fast path of a ProtoDecoder, as
// BorrowingDecoder is a Codec's: it decodes a message it does not own (a
// slice of a read buffer), copying only what the result keeps.
type ProtoBorrowingDecoder[T api.Object] interface {
	DecodeProtoBorrowed(tm api.TypeMeta, msg []byte) (T, error)
}

// protoCapable is implemented by codecs that wrap another: they have the
// ProtoDecoder methods whatever they wrap, and say here whether the
// wrapped codec can really read protobuf.
type protoCapable interface{ readsProto() bool }

// AsProto returns c's ProtoDecoder, or false when c cannot read protobuf.
// kube/rest asks for protobuf only for a codec for which it is true.
func AsProto[T api.Object](c Codec[T]) (ProtoDecoder[T], bool) {
	p, ok := c.(ProtoDecoder[T])
	if !ok {
		return nil, false
	}
	if pc, ok := c.(protoCapable); ok && !pc.readsProto() {
		return nil, false
	}
	return p, true
}

// BorrowedProto decodes a message the caller does not hand over, as list
// and watch decoders do with their read buffers: through p's
// ProtoBorrowingDecoder when it has one, else by decoding a copy.
func BorrowedProto[T api.Object](p ProtoDecoder[T], tm api.TypeMeta, msg []byte) (T, error) {
	if b, ok := p.(ProtoBorrowingDecoder[T]); ok {
		return b.DecodeProtoBorrowed(tm, msg)
	}
	return p.DecodeProto(tm, append([]byte(nil), msg...))
}

// wireCodec is Raw on JSON and the protobuf RawObject decoder. families:
// stripped protobuf decodes keep objects in their families
// (WireFamilies).
type wireCodec struct {
	rawCodec
	families bool
}

// Wire returns the RawObject codec of both encodings: JSON exactly as
// Raw(), and protobuf (ProtoDecoder) into a RawObject holding its
// protobuf message (RawObject.IsProto, RawObject.Proto) with its
// metadata read by field number. StrippingManagedFields(Wire()) drops
// metadata.managedFields on both paths. Informers' raw and metadata-only
// caches use it; a client of Wire() reads protobuf where rest.Config's
// ContentType asks for it.
func Wire() Codec[*api.RawObject] { return wireCodec{} }

// WireFamilies is Wire whose stripped protobuf decodes (a cache's:
// StrippingManagedFields(WireFamilies())) keep an object with a
// controller in its family, as the JSON cache does: as a delta against
// its family's base message, rebuilt by RawObject.Proto. It holds about
// half the bytes per cached pod of Wire's and costs about twice the CPU
// per decoded pod (bench/'s BenchmarkProtoHeap and
// BenchmarkProtoDecodePod, rows kcm-wire-proto and
// kcm-wire-proto-families).
func WireFamilies() Codec[*api.RawObject] { return wireCodec{families: true} }

// DecodeProto implements ProtoDecoder. The RawObject keeps a copy of msg
// made to size (protowire.Keep), so msg is not retained.
func (wireCodec) DecodeProto(tm api.TypeMeta, msg []byte) (*api.RawObject, error) {
	return decodeProtoRaw(tm, msg, false)
}

// DecodeProtoBorrowed implements ProtoBorrowingDecoder: DecodeProto never
// keeps msg.
func (wireCodec) DecodeProtoBorrowed(tm api.TypeMeta, msg []byte) (*api.RawObject, error) {
	return decodeProtoRaw(tm, msg, false)
}

// decodeProtoStripped implements protoStripDecoder. With families, an
// object with a controller is kept in its family (protowire.KeepFamily):
// as a delta against its family's base message, rebuilt by
// RawObject.Proto, or as the family's new base.
func (c wireCodec) decodeProtoStripped(tm api.TypeMeta, msg []byte) (*api.RawObject, error) {
	if !c.families {
		return decodeProtoRaw(tm, msg, true)
	}
	o := &api.RawObject{TypeMeta: tm}
	kept, mem, err := protowire.KeepFamily(tm.Kind, msg, true, &o.ObjectMeta)
	if err != nil {
		return nil, fmt.Errorf("%w: %s protobuf: %w", api.ErrDecode, tm.Kind, err)
	}
	if mem != nil {
		*objsrc.Of(&o.ObjectMeta) = objsrc.ProtoRebuilt(unsafe.Pointer(mem), &protoMemberRebuilder)
	} else {
		*objsrc.Of(&o.ObjectMeta) = objsrc.Proto(kept)
	}
	return o, nil
}

// protoMemberRebuilder rebuilds the message of a RawObject kept in its
// family: ptr is its *protowire.Member.
var protoMemberRebuilder = objsrc.MakeRebuilder(rebuildProtoMember, nil)

func rebuildProtoMember(_, ptr unsafe.Pointer) ([]byte, error) {
	return (*protowire.Member)(ptr).Message()
}

func decodeProtoRaw(tm api.TypeMeta, msg []byte, drop bool) (*api.RawObject, error) {
	o := &api.RawObject{TypeMeta: tm}
	kept, err := protowire.Keep(msg, protowire.Options{DropManagedFields: drop}, &o.ObjectMeta)
	if err != nil {
		return nil, fmt.Errorf("%w: %s protobuf: %w", api.ErrDecode, tm.Kind, err)
	}
	*objsrc.Of(&o.ObjectMeta) = objsrc.Proto(kept)
	return o, nil
}

// protoStripDecoder is implemented by a ProtoDecoder that can drop
// managedFields itself while it decodes (Wire, in the copy it keeps).
type protoStripDecoder[T api.Object] interface {
	decodeProtoStripped(tm api.TypeMeta, msg []byte) (T, error)
}

// readsProto implements protoCapable.
func (s stripCodec[T]) readsProto() bool {
	_, ok := AsProto(s.inner)
	return ok
}

// DecodeProto implements ProtoDecoder for a stripping codec whose inner
// codec reads protobuf (see AsProto): managedFields are dropped from the
// message before the inner codec decodes it.
func (s stripCodec[T]) DecodeProto(tm api.TypeMeta, msg []byte) (T, error) {
	var zero T
	if !s.readsProto() {
		return zero, fmt.Errorf("%w: %s: codec %T reads no protobuf", api.ErrDecode, tm.Kind, s.inner)
	}
	if sd, ok := s.inner.(protoStripDecoder[T]); ok {
		return sd.decodeProtoStripped(tm, msg)
	}
	p, ok := AsProto(s.inner)
	if !ok {
		return zero, fmt.Errorf("%w: %s: codec %T reads no protobuf", api.ErrDecode, tm.Kind, s.inner)
	}
	cut, err := protowire.StripManagedFields(msg)
	if err != nil {
		return zero, fmt.Errorf("%w: %s protobuf: %w", api.ErrDecode, tm.Kind, err)
	}
	return p.DecodeProto(tm, cut) // cut is a copy of its own: the codec may keep it
}

// DecodeProtoBorrowed implements ProtoBorrowingDecoder: DecodeProto keeps
// only the copy it cuts.
func (s stripCodec[T]) DecodeProtoBorrowed(tm api.TypeMeta, msg []byte) (T, error) {
	return s.DecodeProto(tm, msg)
}
