package resourcequota

import (
	"github.com/kcmlab/kcm/kube/api"
	"github.com/kcmlab/kcm/kube/api/decode"
	"github.com/kcmlab/kcm/kube/rest"
)

// countCodec decodes a metadata monitor's objects: of the
// PartialObjectMetadata the monitor lists and watches, a count evaluator
// needs the namespace and name and the informer the resourceVersion, so
// managedFields are cut from the bytes before decoding and labels,
// annotations (but the WatchList end marker), owners, finalizers and the
// raw JSON are dropped after. Nothing read through it is ever written
// back.
type countCodec struct{}

var (
	_          decode.Codec[*api.RawObject]            = countCodec{}
	_          decode.BorrowingDecoder[*api.RawObject] = countCodec{}
	countInner                                         = decode.StrippingManagedFields(decode.Raw())
)

// Decode implements decode.Codec.
func (countCodec) Decode(data []byte) (*api.RawObject, error) { return trim(countInner.Decode(data)) }

// DecodeBorrowed implements decode.BorrowingDecoder: the trimmed object
// keeps nothing of the borrowed buffer.
func (countCodec) DecodeBorrowed(data []byte) (*api.RawObject, error) {
	return trim(decode.Borrowed(countInner, data))
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
