package protocodec

import (
	"fmt"

	"github.com/kcmlab/kcm/kube/api"
)

// Sub-messages by field path. A controller that copies part of one object
// into another — a Deployment's pod template into a new ReplicaSet, a
// ReplicaSet's template spec into a pod — must copy the part as read,
// fields its struct does not model included. Field reads that part out of
// a message by its path of field numbers (spec.template of a Deployment is
// 2, 3); SetField writes one into a message, rewriting the lengths of the
// messages that enclose it and keeping every other field's bytes.

// Field returns the payload of the length-delimited field at path
// (field numbers, outermost first) in msg, and whether it is present at
// every depth. A message given several times is, as protobuf reads it,
// the concatenation of its occurrences (a copy then; otherwise the
// result points into msg). A field of the path with another wire type,
// or a malformed message, is an error wrapping api.ErrDecode.
func Field(msg []byte, path ...int32) ([]byte, bool, error) {
	cur := msg
	for depth, num := range path {
		p, found, err := occurrences(cur, num)
		if err != nil {
			return nil, false, fmt.Errorf("%w: protobuf field %v: %w", api.ErrDecode, path[:depth+1], err)
		}
		if !found {
			return nil, false, nil
		}
		cur = p
	}
	return cur, true, nil
}

// SetField returns a new message: msg with the field at path set to one
// occurrence holding payload. The field is written where msg has it first
// (its other occurrences dropped) or, when msg lacks it, before msg's
// first field with a higher number (at the end when there is none), as
// MarshalMerge places a changed field; the messages of the path that msg
// lacks are created. Every other field keeps its bytes, so for a message
// in field-number order (as kube-apiserver writes them) the result is what
// upstream's Marshal gives for the same change. msg is not modified. A
// field of the path that msg has with another wire type, or a malformed
// message, is an error wrapping api.ErrDecode.
func SetField(msg, payload []byte, path ...int32) ([]byte, error) {
	if len(path) == 0 {
		return nil, fmt.Errorf("%w: SetField without a field path", ErrNoProtobuf)
	}
	out, err := setField(msg, payload, path)
	if err != nil {
		return nil, fmt.Errorf("%w: protobuf field %v: %w", api.ErrDecode, path, err)
	}
	return out, nil
}

func setField(msg, payload []byte, path []int32) ([]byte, error) {
	num := path[0]
	spans, err := scan(msg)
	if err != nil {
		return nil, err
	}
	inner := payload
	if len(path) > 1 {
		sub, _, err := occurrences(msg, num)
		if err != nil {
			return nil, err
		}
		if inner, err = setField(sub, payload, path[1:]); err != nil {
			return nil, err
		}
	}
	present := false
	for _, s := range spans {
		if s.num == num && s.wt != wireBytes {
			return nil, fmt.Errorf("%w: field %d: %d, want %d", errWireType, num, s.wt, wireBytes)
		}
		present = present || s.num == num
	}
	out := make([]byte, 0, len(msg)+len(inner)+2*varintLen(uint64(len(inner)))+4)
	written := false
	for _, s := range spans {
		if !written && (s.num == num || !present && s.num > num) {
			out = appendBytes(out, num, inner)
			written = true
		}
		if s.num != num {
			out = append(out, msg[s.start:s.end]...)
		}
	}
	if !written {
		out = appendBytes(out, num, inner)
	}
	return out, nil
}

// occurrences returns the payload of field num of message b: the
// concatenation of its occurrences, and whether there is one.
func occurrences(b []byte, num int32) ([]byte, bool, error) {
	spans, err := scan(b)
	if err != nil {
		return nil, false, err
	}
	var out []byte
	found, copied := false, false
	for _, s := range spans {
		if s.num != num {
			continue
		}
		p, err := payload(b, s)
		if err != nil {
			return nil, false, err
		}
		switch {
		case !found:
			out, found = p, true
		case !copied:
			out, copied = append(append([]byte(nil), out...), p...), true
		default:
			out = append(out, p...)
		}
	}
	return out, found, nil
}
