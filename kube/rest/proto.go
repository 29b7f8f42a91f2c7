package rest

import (
	"bytes"
	"errors"
	"fmt"
	"io"

	"github.com/kcmlab/kcm/kube/api"
	"github.com/kcmlab/kcm/kube/api/decode"
	"github.com/kcmlab/kcm/kube/api/protowire"
)

// Reading protobuf answers: objects, lists and Status failures. The wire
// format is package protowire's; what an object's message becomes is the
// codec's (decode.ProtoDecoder).

// metaOnlyType is the type of the items of a metadata-only list.
var metaOnlyType = api.TypeMeta{APIVersion: "meta.k8s.io/v1", Kind: "PartialObjectMetadata"}

// protoStatus reads a protobuf Status failure: a body whose Content-Type
// is protobuf, or which starts with the envelope's magic bytes, holding an
// envelope of kind Status. It gives the same Status a JSON body does, so
// the same *StatusError and predicates follow.
func protoStatus(contentType string, body []byte) (Status, bool) {
	if !isProtobuf(contentType) && !bytes.HasPrefix(body, protowire.Magic[:]) {
		return Status{}, false
	}
	u, err := protowire.Unwrap(body)
	if err != nil || u.Protobuf() != nil || string(u.Kind) != protowire.StatusKind {
		return Status{}, false
	}
	ps, err := protowire.DecodeStatus(u.Raw)
	if err != nil {
		return Status{}, false
	}
	return statusFromProto(string(u.APIVersion), ps), true
}

// statusFromProto is the Status of a protobuf one.
func statusFromProto(apiVersion string, ps protowire.Status) Status {
	if apiVersion == "" {
		apiVersion = "v1"
	}
	s := Status{TypeMeta: api.TypeMeta{APIVersion: apiVersion, Kind: protowire.StatusKind},
		Status: ps.Status, Message: ps.Message, Reason: ps.Reason, Code: ps.Code}
	if d := ps.Details; d != nil {
		s.Details = &StatusDetails{Name: d.Name, Group: d.Group, Kind: d.Kind, UID: d.UID, RetryAfterSeconds: d.RetryAfterSeconds}
		for _, c := range d.Causes {
			s.Details.Causes = append(s.Details.Causes, StatusCause{Type: c.Reason, Message: c.Message, Field: c.Field})
		}
	}
	return s
}

// decodeBody decodes one object answered with the given Content-Type:
// protobuf through the codec's ProtoDecoder, anything else as JSON.
func (r *Resources[T]) decodeBody(data []byte, contentType string) (T, error) {
	if !isProtobuf(contentType) {
		return r.decode(data)
	}
	return decodeProtoObject(r.proto, data)
}

// decodeProtoObject decodes an enveloped object, which the result may
// keep (data is handed over).
func decodeProtoObject[T api.Object](pd decode.ProtoDecoder[T], data []byte) (obj T, err error) {
	defer func() {
		if p := recover(); p != nil {
			err = fmt.Errorf("%w: protobuf object: %v", api.ErrDecode, p)
		}
	}()
	if pd == nil {
		return obj, fmt.Errorf("%w: a protobuf answer for a codec that reads only JSON", api.ErrDecode)
	}
	u, err := protowire.Unwrap(data)
	if err == nil {
		err = u.Protobuf()
	}
	if err != nil {
		return obj, fmt.Errorf("%w: protobuf object: %w", api.ErrDecode, err)
	}
	return pd.DecodeProto(protowire.TypeMetaOf(u), u.Raw)
}

// protoItems turns a ProtoDecoder into the Codec the list decoders
// (listpar.go) take: every item is of the type *tm, which the list's
// envelope sets before the first item and nothing changes after it.
type protoItems[T api.Object] struct {
	pd decode.ProtoDecoder[T]
	tm *api.TypeMeta
}

func (p protoItems[T]) Decode(msg []byte) (T, error) { return p.pd.DecodeProto(*p.tm, msg) }
func (p protoItems[T]) DecodeBorrowed(msg []byte) (T, error) {
	return decode.BorrowedProto(p.pd, *p.tm, msg)
}

// lostReader marks the errors of a response body (other than its end) as
// ErrConnectionLost, as the JSON stream readers do (frameReader.fill).
type lostReader struct{ r io.Reader }

func (l lostReader) Read(p []byte) (int, error) {
	n, err := l.r.Read(p)
	if err != nil && !errors.Is(err, io.EOF) {
		err = fmt.Errorf("%w: %w", ErrConnectionLost, err)
	}
	return n, err
}

// decodeProtoList streams a protobuf list from body (protowire.ReadList)
// to fn, item by item, with the JSON path's guarantees: items in order,
// decoded on several cores past the first ones (listpar.go), no item over
// limit bytes, a panic an error, bytes that are not a list ErrDecode, a
// body cut short a transport error. def is the items' type when the
// envelope does not say it before them.
func decodeProtoList[T api.Object](body io.Reader, pd decode.ProtoDecoder[T], def api.TypeMeta, limit int, fn func(T) error) (ListMeta, error) {
	if pd == nil {
		return ListMeta{}, fmt.Errorf("%w: list: a protobuf answer for a codec that reads only JSON", api.ErrDecode)
	}
	tm := def
	d := newItemDecoder[T](protoItems[T]{pd: pd, tm: &tm}, fn, listDecoders())
	return decodeProtoListWith(body, limit, d, &tm)
}

// decodeProtoListWith is decodeProtoList with the items handed to d, whose
// codec decodes items of type *tm: set from the envelope before the first
// item, never after it.
func decodeProtoListWith[T api.Object](body io.Reader, limit int, d *itemDecoder[T], tm *api.TypeMeta) (meta ListMeta, err error) {
	defer func() {
		if p := recover(); p != nil {
			err = decodePanic(p)
		}
	}()
	if limit <= 0 {
		limit = DefaultMaxObjectBytes
	}
	defer d.stop()
	started := false
	onType := func(apiVersion, kind string) error {
		if !started && kind != "" {
			*tm = api.TypeMeta{APIVersion: apiVersion, Kind: protowire.ItemKind(kind)}
		}
		return nil
	}
	lm, err := protowire.ReadList(lostReader{body}, limit, onType, func(msg []byte) error {
		started = true
		return d.item(msg)
	})
	meta = ListMeta{ResourceVersion: lm.ResourceVersion, Continue: lm.Continue, RemainingItemCount: lm.RemainingItemCount}
	err = d.finish(err)
	switch {
	case d.fnErr != nil:
		return meta, d.fnErr
	case errors.Is(err, ErrConnectionLost):
		return meta, fmt.Errorf("list: %w", err)
	case errors.Is(err, io.ErrUnexpectedEOF):
		return meta, fmt.Errorf("%w: list: %w", api.ErrDecode, io.ErrUnexpectedEOF)
	case err != nil && errors.Is(err, protowire.ErrMalformed):
		return meta, fmt.Errorf("%w: protobuf list: %w", api.ErrDecode, err)
	case err != nil:
		return meta, decodeErr("list", err)
	}
	return meta, nil
}
