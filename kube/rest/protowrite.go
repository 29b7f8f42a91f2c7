package rest

import (
	"fmt"
	"reflect"

	"github.com/kcmlab/kcm/kube/api"
	"github.com/kcmlab/kcm/kube/api/protocodec"
)

// Writing objects read as protobuf. A RawObject held as protobuf is
// written as its message; a typed object read as protobuf (its
// ObjectMeta.IsProto: decode.Typed and decode.Compact on a protobuf
// client) as protocodec.MarshalMerge(orig, Unmarshal(orig), obj), orig
// being the message it was read from: orig with exactly the caller's
// changes, so every field kcm's struct does not model is kept, at every
// depth, as the JSON path's three-way merge (merge.go) keeps them. Both
// go enveloped, with Content-Type protobuf, for Create, Update and
// UpdateSubresource. A typed object built in code has no message and is
// written as JSON, as before.

// protoMessage returns the message to write for obj when it was read as
// protobuf (ok), and the error of its rebuild or merge.
func protoMessage[T api.Object](obj T) (msg []byte, ok bool, err error) {
	if ro, isRaw := any(obj).(*api.RawObject); isRaw {
		if !ro.IsProto() {
			return nil, false, nil
		}
		msg, err := ro.ProtoErr()
		return msg, true, err
	}
	m := obj.GetObjectMeta()
	if !m.IsProto() {
		return nil, false, nil
	}
	orig, err := m.OriginalProto()
	if err != nil {
		return nil, true, err
	}
	msg, err = mergeProto(orig, obj)
	return msg, true, err
}

// mergeProto is orig, the message obj was read from, with obj's changes:
// protocodec.MarshalMerge against orig's own decode.
func mergeProto(orig []byte, obj any) ([]byte, error) {
	before := reflect.New(reflect.TypeOf(obj).Elem()).Interface()
	if err := protocodec.Unmarshal(orig, before); err != nil {
		return nil, fmt.Errorf("the message %T was read from: %w", obj, err)
	}
	msg, err := protocodec.MarshalMerge(orig, before, obj)
	if err != nil {
		return nil, fmt.Errorf("merging %T onto its message: %w", obj, err)
	}
	return msg, nil
}

// protoTypeMeta is the apiVersion and kind of obj's envelope: its own,
// or res's where it has none (a list item decoded without them).
func protoTypeMeta(obj api.Object, res Resource) api.TypeMeta {
	tm := *obj.GetTypeMeta()
	if tm.Kind == "" {
		tm.Kind = res.Kind
	}
	if tm.APIVersion == "" {
		tm.APIVersion = res.Version
		if res.Group != "" {
			tm.APIVersion = res.Group + "/" + res.Version
		}
	}
	return tm
}
