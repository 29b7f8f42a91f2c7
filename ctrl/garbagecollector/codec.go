package garbagecollector

import (
	"fmt"

	"github.com/kcmlab/kcm/kube/api"
	"github.com/kcmlab/kcm/kube/api/decode"
	"github.com/kcmlab/kcm/kube/api/protowire"
	"github.com/kcmlab/kcm/kube/rest"
)

// metaCodec decodes the collector's cached objects: what an informer of
// PartialObjectMetadata hands it (apiVersion, kind and metadata), cut
// further to what the graph reads — namespace, name, uid,
// resourceVersion, deletionTimestamp, ownerReferences and finalizers.
// managedFields are cut from the bytes before decoding; labels,
// annotations (but the WatchList end marker) and the raw JSON are
// dropped after. The collector never
// writes an object it read through this codec back (it writes patches),
// so nothing is lost by forgetting the rest.
//
// It reads protobuf too (decode.ProtoDecoder), so that a manager on
// --kube-api-content-type=application/vnd.kubernetes.protobuf lists and
// watches the metadata as protobuf, as kube-controller-manager's metadata
// informers do: the metadata is read by field number
// (protowire.ScanMeta, managedFields never read) and nothing of the
// message is kept.
type metaCodec struct{}

var (
	_ decode.Codec[*api.RawObject]                 = metaCodec{}
	_ decode.BorrowingDecoder[*api.RawObject]      = metaCodec{}
	_ decode.ProtoDecoder[*api.RawObject]          = metaCodec{}
	_ decode.ProtoBorrowingDecoder[*api.RawObject] = metaCodec{}
	// metaInner cuts managedFields on the way in.
	metaInner = decode.StrippingManagedFields(decode.Raw())
)

// Decode implements decode.Codec.
func (metaCodec) Decode(data []byte) (*api.RawObject, error) {
	return trimmed(metaInner.Decode(data))
}

// DecodeBorrowed implements decode.BorrowingDecoder: list and watch decoding
// hand their read buffers in without a copy; the trimmed object keeps
// none of them.
func (metaCodec) DecodeBorrowed(data []byte) (*api.RawObject, error) {
	return trimmed(decode.Borrowed(metaInner, data))
}

// DecodeProto implements decode.ProtoDecoder: msg is not kept.
func (metaCodec) DecodeProto(tm api.TypeMeta, msg []byte) (*api.RawObject, error) {
	return trimmed(scanMeta(tm, msg))
}

// DecodeProtoBorrowed implements decode.ProtoBorrowingDecoder: the
// metadata's strings are copies, so the read buffer is not kept.
func (metaCodec) DecodeProtoBorrowed(tm api.TypeMeta, msg []byte) (*api.RawObject, error) {
	return trimmed(scanMeta(tm, msg))
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

func trimmed(o *api.RawObject, err error) (*api.RawObject, error) {
	if err != nil {
		return nil, err
	}
	o.Labels, o.GenerateName = nil, ""
	if o.Annotations[rest.InitialEventsEndAnnotation] != "true" {
		// The bookmark that ends a WatchList's initial events is known
		// by this annotation alone: it stays on that one.
		o.Annotations = nil
	}
	o.SetRaw(nil)
	return o, nil
}
