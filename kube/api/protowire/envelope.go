package protowire

import (
	"bytes"
	"errors"
	"fmt"

	"github.com/kcmlab/kcm/kube/api"
)

// The Kubernetes envelope. kube-apiserver's protobuf serializer
// (k8s.io/apimachinery/pkg/runtime/serializer/protobuf) writes every
// object and list as four magic bytes, "k8s" and an encoding byte (0x00,
// the only one defined), followed by a runtime.Unknown message
// (k8s.io/apimachinery/pkg/runtime/generated.proto):
//
//	message Unknown {
//	  optional TypeMeta typeMeta = 1;        // {apiVersion = 1, kind = 2}
//	  optional bytes raw = 2;                // the object's own message
//	  optional string contentEncoding = 3;   // "" (nothing else is written)
//	  optional string contentType = 4;       // "" means protobuf
//	}
//
// Protobuf messages do not say what type they are; the envelope does, so
// a client can pick the message type before it decodes raw.

// Magic is the prefix of every enveloped object.
var Magic = [4]byte{'k', '8', 's', 0}

// ContentType is the media type of kube-apiserver's protobuf encoding.
const ContentType = "application/vnd.kubernetes.protobuf"

var (
	// ErrMagic: the bytes do not start with Magic.
	ErrMagic = fmt.Errorf("%w: no k8s protobuf envelope (want prefix 6b 38 73 00)", ErrMalformed)
	// ErrContent: an envelope whose raw is not plain protobuf (a content
	// encoding, or another content type).
	ErrContent = errors.New("protowire: envelope holds something other than plain protobuf")
)

// Unknown is an envelope read by Unwrap: runtime.Unknown. Raw and the
// byte fields alias the input.
type Unknown struct {
	APIVersion, Kind []byte
	Raw              []byte
	ContentEncoding  []byte
	ContentType      []byte
}

// Unwrap reads the envelope of data: the magic prefix, then runtime.Unknown.
func Unwrap(data []byte) (Unknown, error) {
	var u Unknown
	if len(data) < len(Magic) || !bytes.Equal(data[:len(Magic)], Magic[:]) {
		return u, ErrMagic
	}
	r := NewReader(data[len(Magic):])
	for !r.Done() {
		f, err := r.Next()
		if err != nil {
			return u, fmt.Errorf("envelope: %w", err)
		}
		switch f.Num {
		case 1:
			m, err := f.Message()
			if err != nil {
				return u, fmt.Errorf("envelope: typeMeta: %w", err)
			}
			if err := readTypeMeta(m, &u); err != nil {
				return u, fmt.Errorf("envelope: typeMeta: %w", err)
			}
		case 2, 3, 4:
			b, err := f.Message()
			if err != nil {
				return u, fmt.Errorf("envelope: %w", err)
			}
			switch f.Num {
			case 2:
				u.Raw = b
			case 3:
				u.ContentEncoding = b
			default:
				u.ContentType = b
			}
		}
	}
	return u, nil
}

// readTypeMeta reads runtime.TypeMeta {apiVersion = 1, kind = 2}. A
// message field seen twice merges, so later values win field by field.
func readTypeMeta(m []byte, u *Unknown) error {
	return EachField(m, func(f Field) error {
		if f.Num != 1 && f.Num != 2 {
			return nil
		}
		b, err := f.Message()
		if err != nil {
			return err
		}
		if f.Num == 1 {
			u.APIVersion = b
		} else {
			u.Kind = b
		}
		return nil
	})
}

// Protobuf reports whether raw is plain protobuf, as kube-apiserver
// writes it (no content encoding, no or the protobuf content type), and
// an error wrapping ErrContent when it is not.
func (u Unknown) Protobuf() error {
	if len(u.ContentEncoding) != 0 {
		return fmt.Errorf("%w: content encoding %q", ErrContent, u.ContentEncoding)
	}
	if len(u.ContentType) != 0 && string(u.ContentType) != ContentType {
		return fmt.Errorf("%w: content type %q", ErrContent, u.ContentType)
	}
	return nil
}

// Wrap appends the envelope of an object of the given type whose message
// is raw: the inverse of Unwrap, as kube-apiserver writes it.
func Wrap(b []byte, apiVersion, kind string, raw []byte) []byte {
	tm := AppendString(AppendString(nil, 1, apiVersion), 2, kind)
	b = append(b, Magic[:]...)
	b = AppendBytes(b, 1, tm)
	return AppendBytes(b, 2, raw)
}

// TypeMetaOf is the envelope's apiVersion and kind, their strings shared
// with earlier envelopes of the same type (no allocation once seen).
func TypeMetaOf(u Unknown) api.TypeMeta {
	return api.TypeMeta{APIVersion: typeString(u.APIVersion), Kind: typeString(u.Kind)}
}
