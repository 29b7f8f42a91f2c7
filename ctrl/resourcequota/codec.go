package resourcequota

import (
	"fmt"

	"github.com/kcmlab/kcm/kube/api"
	"github.com/kcmlab/kcm/kube/api/decode"
	"github.com/kcmlab/kcm/kube/api/protowire"
	"github.com/kcmlab/kcm/kube/rest"
)

// countCodec decodes a metadata monitor's objects: of the
// PartialObjectMetadata the monitor lists and watches, a count evaluator
// needs the namespace and name and the informer the resourceVersion, so
// managedFields are cut from the bytes before decoding and labels,
// annotations (but the WatchList end marker), owners, finalizers and the
// raw JSON are dropped after. Nothing read through it is ever written
// back.
//
// It reads protobuf too (decode.ProtoDecoder), so that a manager on
// --kube-api-content-type=application/vnd.kubernetes.protobuf lists and
// watches the metadata as protobuf, as kube-controller-manager's metadata
// informers do: the metadata is read by field number (protowire.ScanMeta,
// managedFields never read) and nothing of the message is kept.
type countCodec struct{}

var (
	_          decode.Codec[*api.RawObject]                 = countCodec{}
	_          decode.BorrowingDecoder[*api.RawObject]      = countCodec{}
	_          decode.ProtoDecoder[*api.RawObject]          = countCodec{}
	_          decode.ProtoBorrowingDecoder[*api.RawObject] = countCodec{}
	countInner                                              = decode.StrippingManagedFields(decode.Raw())
)

// Decode implements decode.Codec.
func (countCodec) Decode(data []byte) (*api.RawObject, error) { return trim(countInner.Decode(data)) }

// DecodeBorrowed implements decode.BorrowingDecoder: the trimmed object
// keeps nothing of the borrowed buffer.
func (countCodec) DecodeBorrowed(data []byte) (*api.RawObject, error) {
	return trim(decode.Borrowed(countInner, data))
}

// DecodeProto implements decode.ProtoDecoder: msg is not kept.
func (countCodec) DecodeProto(tm api.TypeMeta, msg []byte) (*api.RawObject, error) {
	return trim(scanMeta(tm, msg))
}

// DecodeProtoBorrowed implements decode.ProtoBorrowingDecoder: the
// metadata's strings are copies, so the read buffer is not kept.
func (countCodec) DecodeProtoBorrowed(tm api.TypeMeta, msg []byte) (*api.RawObject, error) {
	return trim(scanMeta(tm, msg))
}

// scanMeta reads an object's protobuf message into a RawObject holding
// its type and metadata alone.
func scanMeta(tm api.TypeMeta, msg []byte) (*api.RawObject, error) {
	o := &api.RawObject{TypeMeta: tm}
	if err := protowire.ScanMeta(msg, &o.ObjectMeta); err != nil {
		return nil, fmt.Errorf("%w: %s protobuf: %w", api.ErrDecode, tm.Kind, err)
	}
	return o, nil
}

func trim(o *api.RawObject, err error) (*api.RawObject, error) {
	if err != nil {
		return nil, err
	}
	o.Labels, o.GenerateName, o.OwnerReferences, o.Finalizers = nil, "", nil, nil
	if o.Annotations[rest.InitialEventsEndAnnotation] != "true" {
		o.Annotations = nil // the WatchList end bookmark is known by this annotation alone
	}
	o.SetRaw(nil)
	return o, nil
}
