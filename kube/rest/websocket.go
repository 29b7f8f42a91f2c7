package rest

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"time"

	"github.com/gorilla/websocket"
)

// wsSource reads watch events from a WebSocket: one event per message.
type wsSource struct {
	conn *websocket.Conn
	idle time.Duration
	ctx  context.Context
	stop func() bool // unregisters the close-on-cancel hook
}

// dialWebSocket opens a watch over WebSocket. kube-apiserver serves watches
// over WebSocket on HTTP/1.1 only and refuses the handshake (403) without an
// Origin header, so both are set here.
func (c *Client) dialWebSocket(ctx context.Context, req *request, idle time.Duration) (*wsSource, error) {
	if c.limiter != nil {
		if err := c.limiter.Wait(ctx); err != nil {
			return nil, contextError(ctx, err)
		}
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
	if c.creds != nil {
		a, err := c.creds.Authorization(ctx)
		if err != nil {
			return nil, fmt.Errorf("%w: %w", errCredentials, err)
		}
		if a != "" {
			h.Set("Authorization", a)
		}
	}
	tc := c.tls.Clone()
	tc.NextProtos = []string{"http/1.1"} // WebSocket upgrades need HTTP/1.1
	d := websocket.Dialer{
		TLSClientConfig:  tc,
		HandshakeTimeout: handshakeTimeout(idle),
		NetDialContext:   (&net.Dialer{Timeout: 30 * time.Second, KeepAlive: 30 * time.Second}).DialContext,
		ReadBufferSize:   32 << 10,
	}
	conn, resp, err := d.DialContext(ctx, u.String(), h)
	if err != nil {
		if resp != nil {
			defer resp.Body.Close()
			body, _ := io.ReadAll(io.LimitReader(resp.Body, 1<<20))
			if resp.StatusCode == http.StatusUnauthorized && c.creds != nil {
				c.creds.Invalidate()
			}
			return nil, newStatusError("WATCH", req.path, resp.StatusCode, resp.Header, body)
		}
		return nil, contextError(ctx, fmt.Errorf("websocket watch %s: %w", req.path, err))
	}
	conn.SetReadLimit(64 << 20)
	s := &wsSource{conn: conn, idle: idle, ctx: ctx}
	s.stop = context.AfterFunc(ctx, func() { conn.Close() })
	return s, nil
}

func (s *wsSource) next() ([]byte, error) {
	if s.idle > 0 {
		_ = s.conn.SetReadDeadline(time.Now().Add(s.idle))
	}
	_, data, err := s.conn.ReadMessage()
	if err == nil {
		return data, nil
	}
	var ne net.Error
	switch {
	case s.ctx.Err() != nil:
		return nil, s.ctx.Err()
	case errors.As(err, &ne) && ne.Timeout():
		return nil, fmt.Errorf("watch: %w", ErrIdleTimeout)
	case websocket.IsCloseError(err, websocket.CloseNormalClosure), errors.Is(err, io.EOF):
		return nil, io.EOF
	}
	return nil, fmt.Errorf("websocket watch: %w", err)
}

func (s *wsSource) close() error {
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
