package decode

import (
	"fmt"
	"reflect"
	"sync"
	"unsafe"

	"github.com/kcmlab/kcm/kube/api"
	"github.com/kcmlab/kcm/kube/api/internal/objsrc"
	"github.com/kcmlab/kcm/kube/api/protocodec"
)

// Typed objects from protobuf. Typed and Compact (CompactCached) read a
// built-in kind's protobuf message by field number (package protocodec)
// into the same struct their JSON decode gives, and the object keeps the
// message itself as its source (objsrc.Proto): ObjectMeta.IsProto is
// true, Raw and Original are nil, and ObjectMeta.OriginalProto is the
// message — managedFields cut under StrippingManagedFields, as on the
// JSON path. kube/rest writes such an object back as a protobuf body
// merged onto that message (protocodec.MarshalMerge), so the fields kcm
// does not model are kept.
//
// The kinds of protoJSONOnly stay JSON on the typed path: their codecs'
// AsProto is false, so kube/rest asks for JSON for them whatever the
// client's ContentType. Their controllers read the pod template of a
// ReplicaSet, Deployment or StatefulSet, and a ControllerRevision's data,
// as JSON (the template hash, rollback, new ReplicaSets and pods, the
// revision history): moving those to protobuf is issue 34's remaining
// step.

// protoJSONOnly are the kinds whose typed codecs read JSON only (above).
var protoJSONOnly = map[reflect.Type]bool{
	reflect.TypeFor[api.Deployment]():         true,
	reflect.TypeFor[api.ReplicaSet]():         true,
	reflect.TypeFor[api.StatefulSet]():        true,
	reflect.TypeFor[api.ControllerRevision](): true,
}

var typedReadsProtoCache sync.Map // reflect.Type → bool

// typedReadsProto reports whether the typed codecs of t read protobuf:
// t has a protobuf form (protocodec.HasProtobuf) and is not one of the
// kinds kept on JSON (protoJSONOnly).
func typedReadsProto(t reflect.Type) bool {
	if v, ok := typedReadsProtoCache.Load(t); ok {
		return v.(bool)
	}
	ok := !protoJSONOnly[t] && protocodec.HasProtobuf(t)
	typedReadsProtoCache.Store(t, ok)
	return ok
}

// unmarshalTyped decodes msg into a new *S with apiVersion and kind tm.
// alias: the object's strings point into msg (which it then keeps).
func unmarshalTyped[S any, P api.TypedPtr[S]](tm api.TypeMeta, msg []byte, alias bool) (P, error) {
	p := P(new(S))
	var err error
	if alias {
		err = protocodec.UnmarshalAliasing(msg, p)
	} else {
		err = protocodec.Unmarshal(msg, p)
	}
	if err != nil {
		return nil, fmt.Errorf("%w: %T: %w", api.ErrDecode, p, err)
	}
	*p.GetTypeMeta() = tm
	return p, nil
}

// readsProto implements protoCapable.
func (typedCodec[S, P]) readsProto() bool { return typedReadsProto(reflect.TypeFor[S]()) }

// DecodeProto implements ProtoDecoder. The object keeps msg as its source
// and its strings point into it (protocodec.UnmarshalAliasing): msg is
// handed over and never changes.
func (typedCodec[S, P]) DecodeProto(tm api.TypeMeta, msg []byte) (P, error) {
	p, err := unmarshalTyped[S, P](tm, msg, true)
	if err != nil {
		return nil, err
	}
	*objsrc.Of(p.GetObjectMeta()) = protoSource(msg)
	return p, nil
}

// readsProto implements protoCapable.
func (c compactCodec[S, P]) readsProto() bool { return typedReadsProto(reflect.TypeFor[S]()) }

// DecodeProto implements ProtoDecoder for a cache: the object is decoded
// with strings of its own (not pointing into msg: sharing hands them to
// later objects, which must not keep this one's message alive), its parts
// are shared with the hint — the cached version of the same object for
// CompactCached, else the object decoded before — and it keeps msg as its
// source.
func (c compactCodec[S, P]) DecodeProto(tm api.TypeMeta, msg []byte) (P, error) {
	p, err := unmarshalTyped[S, P](tm, msg, false)
	if err != nil {
		return nil, err
	}
	hint := unsafe.Pointer(c.last.Load())
	if c.find != nil {
		m := p.GetObjectMeta()
		if h := c.find(m.Namespace, m.Name); h != nil {
			hint = h
		}
	}
	shareObject(unsafe.Pointer(p), hint, c.t.plan)
	c.last.Store((*S)(p))
	*objsrc.Of(p.GetObjectMeta()) = protoSource(msg)
	return p, nil
}

// protoSource is the protobuf source of a message, empty ones included
// (objsrc.Proto(nil) would be none).
func protoSource(msg []byte) objsrc.Source {
	if msg == nil {
		msg = []byte{}
	}
	return objsrc.Proto(msg)
}
