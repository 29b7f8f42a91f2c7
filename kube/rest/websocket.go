package rest

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"strings"
	"time"

	"github.com/gorilla/websocket"

	"github.com/kcmlab/kcm/kube/api"
)

// wsSource reads watch events from a WebSocket: one event per message.
type wsSource struct {
	conn *websocket.Conn
	// idle closes the connection when a read waits longer than the idle
	// timeout; it runs only while next waits for a message.
	idle *idleTimer
	ctx  context.Context
	stop func() bool // unregisters the close-on-cancel hook
	// limit is the longest message accepted (one event).
	limit int64
	// asked: the watch asked for protobuf. kube-apiserver then writes
	// each event as one binary message holding a protobuf WatchEvent,
	// without the length prefix of a chunked stream; but its WebSocket
	// handshake (golang.org/x/net/websocket writes the 101 itself) does
	// not carry the stream's Content-Type. So each message tells: a JSON
	// event starts with '{' (after optional whitespace), a protobuf
	// WatchEvent never does (0x7b would open a group of field 15). A
	// handshake whose Content-Type names protobuf is believed.
	asked, header bool
	// proto: the last message is protobuf.
	proto bool
}

// sniffProto reports whether a WebSocket message of a watch that asked
// for protobuf is one (see wsSource.asked). A protobuf WatchEvent opens
// with its type's tag, 0x0a — a newline to JSON — and then the type's
// length (5 to 8), never JSON whitespace followed by '{'.
func sniffProto(msg []byte) bool {
	for _, c := range msg {
		switch c {
		case ' ', '\t', '\r', '\n':
			continue
		}
		return c != '{'
	}
	return false
}

// dialWebSocket opens a watch over WebSocket. kube-apiserver serves watches
// over WebSocket on HTTP/1.1 only and refuses the handshake (403) without an
// Origin header, so both are set here. The handshake goes to the configured
// server only: the WebSocket dialer never follows a redirect (a 3xx is a
// failed handshake, reported as a *StatusError), so the Authorization header
// set here cannot travel to another host.
func (c *Client) dialWebSocket(ctx context.Context, req *request, idle time.Duration) (*wsSource, error) {
	if err := c.waitLimiter(ctx); err != nil {
		return nil, contextError(ctx, err)
	}
	u := joinPath(c.base, req.path)
	u.RawQuery = req.query.Encode()
	origin := u.Scheme + "://" + u.Host
	if u.Scheme == "https" {
		u.Scheme = "wss"
	} else {
		u.Scheme = "ws"
	}
	h := http.Header{}
	h.Set("Origin", origin)
	h.Set("User-Agent", c.userAgent)
	h.Set("Accept", req.accept) // metadata-only watches ask for PartialObjectMetadata
	a, err := c.auth.authorization(ctx)
	if err != nil {
		return nil, err
	}
	if a != "" {
		h.Set("Authorization", a)
	}
	tc := c.tls.Clone()
	tc.NextProtos = []string{"http/1.1"} // WebSocket upgrades need HTTP/1.1
	// The handshake is bounded on the client's clock: the dial context is
	// cancelled when it takes longer than handshakeTimeout(idle). The
	// WebSocket library heeds only a context's deadline once connected, so
	// cancelling also closes the connection under the handshake.
	dialCtx, cancelDial := context.WithCancel(ctx)
	defer cancelDial()
	var unhook func() bool
	dialer := &net.Dialer{Timeout: c.transport.withDefaults().Dial, KeepAlive: 30 * time.Second}
	d := websocket.Dialer{
		TLSClientConfig: tc,
		NetDialContext: func(ctx context.Context, network, addr string) (net.Conn, error) {
			nc, err := dialer.DialContext(ctx, network, addr)
			if err == nil {
				unhook = context.AfterFunc(dialCtx, func() { nc.Close() })
			}
			return nc, err
		},
		ReadBufferSize: 32 << 10,
	}
	hs := newIdleTimer(c.clock, handshakeTimeout(idle), cancelDial)
	conn, resp, err := d.DialContext(dialCtx, u.String(), h)
	if unhook != nil {
		unhook()
	}
	if !hs.stop() && ctx.Err() == nil {
		if err == nil {
			conn.Close()
		}
		return nil, fmt.Errorf("websocket watch %s: no handshake within %v: %w", req.path, handshakeTimeout(idle), ErrIdleTimeout)
	}
	if err != nil {
		if resp != nil {
			defer resp.Body.Close()
			body, _ := io.ReadAll(io.LimitReader(resp.Body, 1<<20))
			if resp.StatusCode == http.StatusUnauthorized {
				c.auth.invalidateNow()
			}
			return nil, newStatusError("WATCH", req.path, resp.StatusCode, resp.Header, body)
		}
		return nil, contextError(ctx, fmt.Errorf("websocket watch %s: %w", req.path, err))
	}
	limit := int64(c.maxObject)
	if limit <= 0 {
		limit = DefaultMaxObjectBytes
	}
	conn.SetReadLimit(limit)
	s := &wsSource{conn: conn, ctx: ctx, limit: limit, asked: strings.HasPrefix(req.accept, ContentTypeProtobuf),
		header: resp != nil && isProtobuf(resp.Header.Get("Content-Type"))}
	s.idle = newIdleTimer(c.clock, idle, func() { conn.Close() })
	s.idle.pause() // armed by each next
	s.stop = context.AfterFunc(ctx, func() { conn.Close() })
	return s, nil
}

func (s *wsSource) next() ([]byte, error) {
	s.idle.kick()
	_, data, err := s.conn.ReadMessage()
	s.idle.pause()
	if err == nil {
		s.proto = s.header || s.asked && sniffProto(data)
		return data, nil
	}
	switch {
	case s.idle.expired():
		return nil, fmt.Errorf("watch: %w", ErrIdleTimeout)
	case s.ctx.Err() != nil:
		return nil, s.ctx.Err()
	case websocket.IsCloseError(err, websocket.CloseNormalClosure), errors.Is(err, io.EOF):
		return nil, io.EOF
	case errors.Is(err, websocket.ErrReadLimit):
		return nil, fmt.Errorf("%w: websocket watch: a message longer than %d bytes", api.ErrDecode, s.limit)
	}
	return nil, fmt.Errorf("websocket watch: %w", err)
}

func (s *wsSource) protobuf() bool { return s.proto }

func (s *wsSource) close() error {
	s.idle.stop()
	s.stop()
	return s.conn.Close()
}

// handshakeTimeout bounds the WebSocket upgrade: 30 s, or the watch's idle
// timeout when that is shorter, so a server that accepts the connection and
// never answers is noticed as soon as a silent watch would be.
func handshakeTimeout(idle time.Duration) time.Duration {
	if idle > 0 && idle < 30*time.Second {
		return idle
	}
	return 30 * time.Second
}
