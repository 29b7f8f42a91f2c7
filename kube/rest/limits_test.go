package rest

import (
	"context"
	"errors"
	"fmt"
	"net"
	"strings"
	"testing"
	"time"

	"github.com/kcmlab/kcm/kube/api"
)

// rcSized returns a ConfigMap of exactly n bytes of JSON (n >= 120).
func rcSized(n int) string {
	head := `{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"big","namespace":"ns1","resourceVersion":"7"},"data":{"k":"`
	tail := `"}}`
	return head + strings.Repeat("x", n-len(head)-len(tail)) + tail
}

// TestMaxObjectBytes: WithMaxObjectBytes bounds one list item, one chunked
// watch event and one WebSocket message exactly: a value of the limit
// passes, one byte more fails with api.ErrDecode naming the limit.
func TestMaxObjectBytes(t *testing.T) {
	const limit = 4096
	for _, tc := range []struct {
		name string
		read func(t *testing.T, c *Client, size int) error
	}{
		{"list item", func(t *testing.T, c *Client, size int) error {
			srv := rcServer(t, &rcScript{replies: []rcReply{{code: 200,
				body: `{"kind":"ConfigMapList","metadata":{"resourceVersion":"7"},"items":[` + rcSized(size) + `]}`}}})
			c2 := rcClientAt(t, c, srv.URL)
			_, err := rcConfigMaps(c2).List(context.Background(), ListOptions{})
			return err
		}},
		{"chunked watch event", func(t *testing.T, c *Client, size int) error {
			ev := `{"type":"ADDED","object":` + rcSized(size-len(`{"type":"ADDED","object":}`)) + `}`
			srv := rcServer(t, rcStream{body: ev})
			return rcFirstEvent(rcClientAt(t, c, srv.URL), Chunked)
		}},
		{"websocket message", func(t *testing.T, c *Client, size int) error {
			ev := `{"type":"ADDED","object":` + rcSized(size-len(`{"type":"ADDED","object":}`)) + `}`
			srv := rcServer(t, &rcWSServer{events: []string{ev}, hold: true})
			return rcFirstEvent(rcClientAt(t, c, srv.URL), WebSocket)
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			rcNoLeaks(t)
			c := rcClient(t, "http://unused", nil, WithMaxObjectBytes(limit))
			if err := tc.read(t, c, limit); err != nil {
				t.Fatalf("a value of exactly the limit (%d bytes): %v", limit, err)
			}
			err := tc.read(t, c, limit+1)
			if !errors.Is(err, api.ErrDecode) || !strings.Contains(err.Error(), fmt.Sprint(limit)) {
				t.Fatalf("a value one byte over the limit: %v, want api.ErrDecode naming %d", err, limit)
			}
		})
	}
}

// rcClientAt is a client like c (its options) for another server.
func rcClientAt(t *testing.T, c *Client, host string) *Client {
	t.Helper()
	return rcClient(t, host, nil, WithMaxObjectBytes(c.maxObject))
}

// rcFirstEvent opens a watch and reads its first event.
func rcFirstEvent(c *Client, tr WatchTransport) error {
	w, err := rcConfigMaps(c).Watch(context.Background(), WatchOptions{Transport: tr})
	if err != nil {
		return err
	}
	defer w.Close()
	_, err = w.Next()
	return err
}

// TestTransportTimeouts: WithTransportTimeouts sets the shared transport's
// dial and TLS handshake bounds and its HTTP/2 health check; a server that
// accepts the connection and never answers the TLS ClientHello costs one
// handshake timeout, not a hung request.
func TestTransportTimeouts(t *testing.T) {
	rcNoLeaks(t)
	c := rcClient(t, "https://127.0.0.1:1", nil)
	if tr := rcTransport(c); tr.TLSHandshakeTimeout != DefaultTransportTimeouts.TLSHandshake ||
		tr.HTTP2.SendPingTimeout != 30*time.Second || tr.HTTP2.PingTimeout != 15*time.Second {
		t.Fatalf("default transport: handshake %v, HTTP/2 %+v", tr.TLSHandshakeTimeout, tr.HTTP2)
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	accepted := make(chan net.Conn, 1)
	go func() {
		if conn, err := ln.Accept(); err == nil {
			accepted <- conn // held open, never answered
		}
		close(accepted)
	}()
	tt := TransportTimeouts{TLSHandshake: 50 * time.Millisecond, HTTP2ReadIdle: time.Second, HTTP2PingTimeout: 2 * time.Second}
	c = rcClient(t, "https://"+ln.Addr().String(), nil, WithTransportTimeouts(tt), WithRetryPolicy(RetryPolicy{MaxAttempts: 1}))
	if tr := rcTransport(c); tr.TLSHandshakeTimeout != tt.TLSHandshake || tr.HTTP2.SendPingTimeout != time.Second ||
		tr.HTTP2.PingTimeout != 2*time.Second {
		t.Fatalf("transport: handshake %v, HTTP/2 %+v; want %+v", tr.TLSHandshakeTimeout, tr.HTTP2, tt)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	_, err = c.RawGet(ctx, "/version")
	if conn := <-accepted; conn != nil {
		defer conn.Close()
	}
	if ctx.Err() != nil || err == nil || !strings.Contains(err.Error(), "TLS handshake timeout") {
		t.Fatalf("GET from a server that never answers the handshake: %v (context %v), want a TLS handshake timeout", err, ctx.Err())
	}
}
