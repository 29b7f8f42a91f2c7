package decode

import (
	"errors"
	"fmt"
	"hash/maphash"
	"reflect"
	"sync"
	"sync/atomic"
	"unsafe"

	"github.com/kcmlab/kcm/kube/api"
	"github.com/kcmlab/kcm/kube/api/internal/objsrc"
	"github.com/kcmlab/kcm/kube/api/protocodec"
	"github.com/kcmlab/kcm/kube/api/protowire"
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
// client's ContentType. There is one, StatefulSet, for good (below): its
// controller reads the set's pod template as JSON (the revision history,
// new pods). Deployments and ReplicaSets
// are read as protobuf: their controllers compare, hash and copy a
// template read that way as its PodTemplateSpec message
// (ctrl/deployment's hashproto.go, ctrl/replicaset's podtemplate.go).
//
// A ControllerRevision reads protobuf: its data (a RawExtension, JSON
// bytes inside the message) decodes to the bytes the apiserver's JSON
// gives (protocodec keeps them as encoding/json's Encoder writes them:
// compacted, <, > and & escaped), so a revision's Data.Raw, its hash and
// the comparisons by Data.Raw (ctrl/history) are the same from either
// wire. For the revisions controllers write (json.Marshal's output,
// kube-controller-manager's and kcm's alike) those are the stored bytes
// themselves.
//
// A StatefulSet stays JSON for good, not for a step: the statefulset
// controller's revision data is the JSON of the set's pod template
// (kube-controller-manager's getPatch encodes its Go struct to JSON, every
// field of the template, and hashes and compares those bytes), and kcm
// has that JSON only as the apiserver's JSON of the set — which the
// apiserver writes from the same struct. From a protobuf message kcm
// could not write it: a field it does not model has a number but no JSON
// name or type there. A set read as protobuf would thus give another
// revision and roll its pods (ctrl/history refuses one: ErrProtobufSet).

// protoJSONOnly are the kinds whose typed codecs read JSON only (above).
var protoJSONOnly = map[reflect.Type]bool{
	reflect.TypeFor[api.StatefulSet](): true,
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
// with strings of its own (the message is not kept), its parts are
// shared with the hint — the cached version of the same object for
// CompactCached, else the object decoded before — and it keeps, instead
// of the message, the message's remainder (protocodec.Remainder: the
// fields its struct does not model, usually none or a few bytes shared
// by the replicas of a workload). ObjectMeta.OriginalProto rebuilds the
// message from the struct and the remainder (protocodec.Rebuild). A
// message whose remainder cannot be taken is kept whole.
func (c compactCodec[S, P]) DecodeProto(tm api.TypeMeta, msg []byte) (P, error) {
	return c.decodeProto(tm, msg, false, false)
}

// DecodeProtoBorrowed implements ProtoBorrowingDecoder: the object keeps
// nothing of msg (a copy, when its remainder cannot be taken).
func (c compactCodec[S, P]) DecodeProtoBorrowed(tm api.TypeMeta, msg []byte) (P, error) {
	return c.decodeProto(tm, msg, true, false)
}

// decodeProtoStripped implements protoStripDecoder: managedFields, which
// the struct does not model, are cut from the remainder (no copy of the
// message is made to cut them).
func (c compactCodec[S, P]) decodeProtoStripped(tm api.TypeMeta, msg []byte) (P, error) {
	return c.decodeProto(tm, msg, true, true)
}

// decodeProto decodes msg; borrowed: the object must not keep it; strip:
// managedFields are dropped.
//
// The hint — the cached version of the object when the codec can find
// it (its namespace and name are read from msg first), else the object
// decoded before — is given to the decoder (protocodec.UnmarshalSharing),
// which takes the hint's strings, maps and small pointers wherever they
// are equal instead of allocating its own; shareObject then shares the
// rest (slices, the table of recent values).
func (c compactCodec[S, P]) decodeProto(tm api.TypeMeta, msg []byte, borrowed, strip bool) (P, error) {
	hint := unsafe.Pointer(c.last.Load())
	if c.find != nil {
		if ns, name := namespaceName(msg); name != "" {
			if h := c.find(ns, name); h != nil {
				hint = h
			}
		}
	}
	p := P(new(S))
	pt := protoTypeOf[S]()
	sb := remScratch.Get().(*[]byte)
	defer remScratch.Put(sb)
	rem, err := protocodec.UnmarshalRemainder(msg, p, (*S)(hint), (*sb)[:0], protocodec.RemainderOptions{DropManagedFields: strip})
	if cap(rem) <= maxRemScratch {
		*sb = rem[:0]
	}
	whole := errors.Is(err, protocodec.ErrNoRemainder)
	if err != nil && !whole {
		return nil, fmt.Errorf("%w: %T: %w", api.ErrDecode, p, err)
	}
	*p.GetTypeMeta() = tm
	shareObject(unsafe.Pointer(p), hint, c.t.plan)
	c.last.Store((*S)(p))
	if !whole {
		*objsrc.Of(p.GetObjectMeta()) = objsrc.ProtoRebuilt(unsafe.Pointer(p), &pt.remainder(rem).rb)
		return p, nil
	}
	// Kept whole, as Typed keeps it.
	switch {
	case strip:
		if msg, err = protowire.StripManagedFields(msg); err != nil {
			return nil, fmt.Errorf("%w: %s protobuf: %w", api.ErrDecode, tm.Kind, err)
		}
	case borrowed:
		msg = append([]byte(nil), msg...)
	}
	*objsrc.Of(p.GetObjectMeta()) = protoSource(msg)
	return p, nil
}

// remScratch holds the buffers remainders are taken into: a remainder is
// copied out only when no equal one was seen recently (the replicas of a
// workload share theirs), so taking one usually allocates nothing. A
// buffer grown past maxRemScratch (a message with a large unmodelled field)
// is not kept.
var remScratch = sync.Pool{New: func() any { return new([]byte) }}

const maxRemScratch = 64 << 10

// namespaceName reads metadata.namespace and metadata.name of an
// object's message, to look its cached version up: strings that alias
// msg. It reads the first metadata field up to its field 3 (namespace),
// as kube-apiserver writes it (name 1, generateName 2, namespace 3 first,
// managedFields far after): a message in another order gives what was
// read, and the lookup only picks the hint. Malformed bytes likewise
// (the decode reports the error).
func namespaceName(msg []byte) (ns, name string) {
	r := protowire.NewReader(msg)
	for !r.Done() {
		f, err := r.Next()
		if err != nil {
			return "", ""
		}
		if f.Num != 1 || f.Type != protowire.Bytes {
			continue
		}
		mr := protowire.NewReader(f.Data)
		for !mr.Done() {
			g, err := mr.Next()
			if err != nil || g.Num > 3 {
				break
			}
			switch {
			case g.Type != protowire.Bytes:
			case g.Num == 1:
				name = unsafe.String(unsafe.SliceData(g.Data), len(g.Data))
			case g.Num == 3:
				ns = unsafe.String(unsafe.SliceData(g.Data), len(g.Data))
			}
		}
		return ns, name
	}
	return "", ""
}

// protoType is what a cache's codec knows of S for protobuf: its struct
// type, how to marshal an object, and the remainders seen recently.
type protoType struct {
	rtype   reflect.Type
	marshal func(obj unsafe.Pointer) ([]byte, error)
	empty   *protoRemainder
	recent  [remainderSlots]atomic.Pointer[protoRemainder]
}

// protoRemainder is a remainder and the Rebuilder of the objects that
// keep it (the rebuilt form's ptr is the object).
type protoRemainder struct {
	rb  objsrc.Rebuilder
	rem []byte
	t   *protoType
}

var protoTypes sync.Map // reflect.Type → *protoType

// protoTypeOf returns the protoType of S, made once.
func protoTypeOf[S any]() *protoType {
	rt := reflect.TypeFor[S]()
	if t, ok := protoTypes.Load(rt); ok {
		return t.(*protoType)
	}
	t := &protoType{rtype: rt, marshal: func(p unsafe.Pointer) ([]byte, error) { return protocodec.Marshal((*S)(p)) }}
	t.empty = t.newRemainder(nil)
	actual, _ := protoTypes.LoadOrStore(rt, t)
	return actual.(*protoType)
}

func (t *protoType) newRemainder(rem []byte) *protoRemainder {
	r := &protoRemainder{rem: rem, t: t}
	r.rb = objsrc.MakeRebuilder(rebuildProto, unsafe.Pointer(r))
	return r
}

// remainder returns the protoRemainder of rem, which stays the
// caller's: an equal one seen recently when there is one, else a new one
// holding a copy of rem made to size.
func (t *protoType) remainder(rem []byte) *protoRemainder {
	if len(rem) == 0 {
		return t.empty
	}
	slot := &t.recent[maphash.Bytes(shareSeed, rem)&(remainderSlots-1)]
	if e := slot.Load(); e != nil && string(e.rem) == string(rem) {
		return e
	}
	r := t.newRemainder(append([]byte(nil), rem...))
	slot.Store(r)
	return r
}

// rebuildProto rebuilds the message of the object at ptr, which keeps
// the protoRemainder at ctx.
func rebuildProto(ctx, ptr unsafe.Pointer) ([]byte, error) {
	r := (*protoRemainder)(ctx)
	mb, err := r.t.marshal(ptr)
	if err != nil {
		return nil, err
	}
	return protocodec.Rebuild(mb, r.rem, r.t.rtype)
}

// protoSource is the protobuf source of a message, empty ones included
// (objsrc.Proto(nil) would be none).
func protoSource(msg []byte) objsrc.Source {
	if msg == nil {
		msg = []byte{}
	}
	return objsrc.Proto(msg)
}
