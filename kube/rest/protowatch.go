package rest

import (
	"context"
	"errors"
	"fmt"
	"io"
	"time"

	"github.com/kcmlab/kcm/clock"
	"github.com/kcmlab/kcm/kube/api"
	"github.com/kcmlab/kcm/kube/api/decode"
	"github.com/kcmlab/kcm/kube/api/protowire"
)

// A protobuf watch (Content-Type application/vnd.kubernetes.protobuf;
// stream=watch) is a stream of length-prefixed frames, each a
// metav1.WatchEvent whose object is an enveloped object, or for ERROR an
// enveloped Status (protowire/watch.go). Over WebSocket each message is
// one WatchEvent, without the prefix.

// protoChunkedSource cuts a chunked protobuf watch into frames. A frame's
// length is checked against the client's object limit before its bytes
// are read, and its buffer grows with the bytes that arrive
// (protowire.FrameReader): linear in the bytes, bounded in memory.
type protoChunkedSource struct {
	body io.ReadCloser
	fr   *protowire.FrameReader
	idle *idleReader
	ctx  context.Context
}

func newProtoChunkedSource(ctx context.Context, clk clock.Clock, body io.ReadCloser, idle time.Duration, cancel context.CancelFunc, limit int) *protoChunkedSource {
	if limit <= 0 {
		limit = DefaultMaxObjectBytes
	}
	ir := newIdleReader(clk, body, idle, cancel)
	return &protoChunkedSource{body: body, idle: ir, ctx: ctx, fr: protowire.NewFrameReader(lostReader{ir}, limit)}
}

// next returns the next frame: a slice of the reader's buffer, valid until
// the following call.
func (s *protoChunkedSource) next() ([]byte, error) {
	frame, err := s.fr.Next()
	switch {
	case err == nil:
		return frame, nil
	case s.idle.expired():
		return nil, fmt.Errorf("watch: %w", ErrIdleTimeout)
	case s.ctx.Err() != nil:
		return nil, s.ctx.Err()
	case err == io.EOF:
		return nil, io.EOF
	case errors.Is(err, ErrConnectionLost):
		return nil, fmt.Errorf("watch: %w", err)
	case errors.Is(err, io.ErrUnexpectedEOF), errors.Is(err, io.EOF):
		// Cut inside a frame: the stream ended early, as a JSON watch
		// cut inside an event.
		return nil, fmt.Errorf("watch: %w", io.ErrUnexpectedEOF)
	}
	return nil, fmt.Errorf("%w: protobuf watch: %w", api.ErrDecode, err)
}

func (s *protoChunkedSource) protobuf() bool { return true }

func (s *protoChunkedSource) close() error {
	s.idle.stop()
	return s.body.Close()
}

// decodeProtoEvent decodes one protobuf watch event. The frame may be a
// slice of a read buffer: the codec gets it borrowed.
func decodeProtoEvent[T api.Object](frame []byte, pd decode.ProtoDecoder[T], path string) (ev WatchEvent[T], err error) {
	defer func() {
		if p := recover(); p != nil {
			err = fmt.Errorf("%w: protobuf watch event: %v", api.ErrDecode, p)
		}
	}()
	e, err := protowire.DecodeEvent(frame)
	if err != nil {
		return ev, fmt.Errorf("%w: %w", api.ErrDecode, err)
	}
	ev.Type, ev.Size = EventType(e.Type), len(frame)
	switch ev.Type {
	case Added, Modified, Deleted, Bookmark, Error:
	default:
		return ev, fmt.Errorf("%w: unknown watch event type %q", api.ErrDecode, e.Type)
	}
	u, err := protowire.Unwrap(e.Object)
	if err == nil {
		err = u.Protobuf()
	}
	if err != nil {
		return ev, fmt.Errorf("%w: watch event %s: %w", api.ErrDecode, ev.Type, err)
	}
	if ev.Type == Error {
		s, err := protowire.DecodeStatus(u.Raw)
		if err != nil {
			return ev, fmt.Errorf("%w: watch ERROR event: %w", api.ErrDecode, err)
		}
		ev.Err = StatusErrorFrom("WATCH", path, statusFromProto(string(u.APIVersion), s))
		return ev, nil
	}
	if pd == nil {
		return ev, fmt.Errorf("%w: a protobuf watch for a codec that reads only JSON", api.ErrDecode)
	}
	ev.Object, err = decode.BorrowedProto(pd, protowire.TypeMetaOf(u), u.Raw)
	return ev, err
}
