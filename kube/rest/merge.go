package rest

import (
	"fmt"
	"reflect"

	"github.com/kcmlab/kcm/kube/api"
	"github.com/kcmlab/kcm/kube/api/decode"
	"github.com/kcmlab/kcm/kube/internal/jsonx"
)

// JSON merge patches (RFC 7386) and the three-way merge that lets a typed
// read-modify-write keep the fields kcm's structs do not model.

// CreateMergePatch returns the JSON merge patch that turns original into
// modified. Both must be JSON objects.
func CreateMergePatch(original, modified []byte) ([]byte, error) {
	var o, m map[string]any
	if err := jsonx.UnmarshalNumbers(original, &o); err != nil {
		return nil, fmt.Errorf("merge patch: original: %w", err)
	}
	if err := jsonx.UnmarshalNumbers(modified, &m); err != nil {
		return nil, fmt.Errorf("merge patch: modified: %w", err)
	}
	return jsonx.Marshal(diffMaps(o, m))
}

// diffMaps returns the merge patch from o to m: changed and new keys with
// their new values (objects recursively), removed keys as null.
func diffMaps(o, m map[string]any) map[string]any {
	patch := map[string]any{}
	for k, mv := range m {
		ov, ok := o[k]
		if !ok {
			patch[k] = mv
			continue
		}
		om, oIsMap := ov.(map[string]any)
		mm, mIsMap := mv.(map[string]any)
		if oIsMap && mIsMap {
			if sub := diffMaps(om, mm); len(sub) > 0 {
				patch[k] = sub
			}
			continue
		}
		if !reflect.DeepEqual(ov, mv) {
			patch[k] = mv
		}
	}
	for k := range o {
		if _, ok := m[k]; !ok {
			patch[k] = nil
		}
	}
	return patch
}

// mergeKnown is the three-way merge behind Update of a typed object:
//
//	orig   the full JSON as read from the server (every field)
//	before the typed projection of orig (only fields kcm models)
//	after  the typed object as the caller modified it
//
// The result is orig with exactly the caller's changes applied: keys the
// struct models follow after (deleted when after dropped them), keys it does
// not model stay as in orig, and a key the projection added to orig (the
// marshaller's {} or 0 for what orig left out) stays out unless the caller
// changed it. Arrays whose length did not change merge element
// by element, so an unmodelled field inside, say, a container survives an
// image change.
func mergeKnown(orig, before, after any) any {
	switch a := after.(type) {
	case map[string]any:
		o, ok1 := orig.(map[string]any)
		b, ok2 := before.(map[string]any)
		if !ok1 || !ok2 {
			return after
		}
		out := make(map[string]any, len(o)+len(a))
		for k, v := range o {
			out[k] = v
		}
		for k := range b {
			if _, kept := a[k]; !kept {
				delete(out, k)
			}
		}
		for k, v := range a {
			ov, inOrig := o[k]
			if bv, inBefore := b[k]; !inOrig && inBefore && reflect.DeepEqual(bv, v) {
				// The marshaller writes a member orig did not have (a
				// struct value, a field without omitempty) and the caller
				// left it as it was: orig's absence stands, so that no
				// empty object or zero appears where none was written.
				continue
			}
			out[k] = mergeKnown(ov, b[k], v)
		}
		return out
	case []any:
		o, ok1 := orig.([]any)
		b, ok2 := before.([]any)
		if !ok1 || !ok2 || len(o) != len(a) || len(b) != len(a) {
			return after
		}
		out := make([]any, len(a))
		for i := range a {
			out[i] = mergeKnown(o[i], b[i], a[i])
		}
		return out
	}
	return after
}

// EncodeForUpdate returns the JSON Update would send for obj: a RawObject
// as it is, a typed object read from the server three-way merged onto the
// JSON it was read from (so fields kcm does not model are kept), a typed
// object built in code simply encoded. Test fakes store objects with it.
// A typed object read as protobuf (ObjectMeta.IsProto) has no JSON to
// merge onto: EncodeForUpdate gives its struct's JSON, which is what a
// fake (JSON codecs) stores, while Update sends the protobuf merge
// (protowrite.go) that keeps its unmodelled fields.
func EncodeForUpdate[T api.Object](codec decode.Codec[T], obj T) ([]byte, error) {
	return encodeForWrite(codec, obj)
}

// encodeForWrite returns the body to PUT for obj. A RawObject is written as
// it is; a typed object read from the server is three-way merged onto the
// JSON it was read from; a typed object built in code is simply encoded.
func encodeForWrite[T api.Object](codec decode.Codec[T], obj T) ([]byte, error) {
	if r, ok := any(obj).(*api.RawObject); ok {
		return r.MarshalJSON()
	}
	after, err := jsonx.Marshal(obj)
	if err != nil {
		return nil, fmt.Errorf("encode %T: %w", obj, err)
	}
	// The JSON as read: kept by the object, or rebuilt from a cached
	// (compact) object's struct and remainder.
	raw, err := obj.GetObjectMeta().Original()
	if err != nil {
		return nil, fmt.Errorf("encode %T: %w", obj, err)
	}
	if raw == nil {
		return after, nil
	}
	projected, err := codec.Decode(raw)
	if err != nil {
		return nil, err
	}
	before, err := jsonx.Marshal(projected)
	if err != nil {
		return nil, fmt.Errorf("encode %T: %w", obj, err)
	}
	var o, b, a any
	if err := jsonx.UnmarshalNumbers(raw, &o); err != nil {
		return nil, fmt.Errorf("%w: original object: %v", api.ErrDecode, err)
	}
	if err := jsonx.UnmarshalNumbers(before, &b); err != nil {
		return nil, err
	}
	if err := jsonx.UnmarshalNumbers(after, &a); err != nil {
		return nil, err
	}
	return jsonx.Marshal(mergeKnown(o, b, a))
}
