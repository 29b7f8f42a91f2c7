package fakeapi_test

import (
	"context"
	"crypto/tls"
	"crypto/x509"
	"errors"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/kcmlab/kcm/internal/testing/fakeapi"
	"github.com/kcmlab/kcm/kube/api/decode"
	"github.com/kcmlab/kcm/kube/rest"
)

// tlsClient is a kcm client of a TLS fake, trusting its certificate, with
// no retries and the transport timings given.
func tlsClient(t *testing.T, s *fakeapi.Server, tt rest.TransportTimeouts, opts ...rest.Option) *rest.Client {
	t.Helper()
	c, err := rest.NewClient(&rest.Config{Host: s.URL(), QPS: -1, TLS: rest.TLSConfig{CAData: fakeapi.CAPEM()}},
		append([]rest.Option{rest.WithRetryPolicy(rest.RetryPolicy{MaxAttempts: 1}), rest.WithTransportTimeouts(tt)}, opts...)...)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(c.CloseIdleConnections)
	return c
}

func listPods(ctx context.Context, c *rest.Client) error {
	_, err := rest.NewResources(c, rest.Pods, decode.Raw()).List(ctx, rest.ListOptions{})
	return err
}

// The TLS fake speaks HTTP/2 to clients that offer it (kcm's transport
// does) and HTTP/1.1 to WebSocket handshakes; the certificate verifies
// with CAPEM only.
func TestTLSServesHTTP2AndWebSocket(t *testing.T) {
	s := newServer(t, fakeapi.Options{TLS: true})
	must(t)(s.Create(pods, pod("ns", "a", "0")))
	if !strings.HasPrefix(s.URL(), "https://") {
		t.Fatalf("URL %s", s.URL())
	}
	c := tlsClient(t, s, rest.TransportTimeouts{})
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if err := listPods(ctx, c); err != nil {
		t.Fatal(err)
	}
	w, err := rest.NewResources(c, rest.Pods, decode.Raw()).Watch(ctx, rest.WatchOptions{Transport: rest.WebSocket})
	if err != nil {
		t.Fatal(err)
	}
	ev, err := w.Next()
	w.Close()
	if err != nil || ev.Type != rest.Added {
		t.Fatalf("websocket watch over TLS: %v %v", ev.Type, err)
	}
	if st := s.Stats(); st.WebSockets != 1 {
		t.Fatalf("stats %+v, want one WebSocket watch", st)
	}
	resp, err := http.Get(s.URL() + "/api/v1/pods")
	if err == nil {
		resp.Body.Close()
		t.Fatal("a client without the CA verified the certificate")
	}
	h2 := h2Client(t)
	resp, err = h2.Get(s.URL() + "/api/v1/pods")
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.ProtoMajor != 2 {
		t.Fatalf("protocol %s, want HTTP/2", resp.Proto)
	}
}

// h2Client is a plain net/http client of the TLS fake, over HTTP/2.
func h2Client(t *testing.T) *http.Client {
	t.Helper()
	pool := x509.NewCertPool()
	pool.AppendCertsFromPEM(fakeapi.CAPEM())
	c := &http.Client{Transport: &http.Transport{TLSClientConfig: &tls.Config{RootCAs: pool}, ForceAttemptHTTP2: true}}
	t.Cleanup(c.CloseIdleConnections)
	return c
}

// GoAway: every request's connection sends a graceful GOAWAY; the request
// itself completes, and the next one opens a new connection.
func TestGoAway(t *testing.T) {
	inj := fakeapi.NewInjector(1, fakeapi.Rates{fakeapi.GoAway: 1}, 0)
	s := newServer(t, fakeapi.Options{TLS: true, Faults: inj})
	c := h2Client(t)
	for range 3 {
		resp, err := c.Get(s.URL() + "/api/v1/pods")
		if err != nil {
			t.Fatalf("a request on a connection going away: %v", err)
		}
		resp.Body.Close()
	}
	if st := s.Stats(); st.Conns != 3 || inj.Counts()[fakeapi.GoAway] != 3 {
		t.Fatalf("%d connections for 3 requests after GOAWAY each (faults %v), want 3", st.Conns, inj.Counts())
	}
}

// GoAwayClose: GOAWAY, then the connection is cut under the request.
func TestGoAwayClose(t *testing.T) {
	inj := fakeapi.NewInjector(1, fakeapi.Rates{fakeapi.GoAwayClose: 1}, 0)
	s := newServer(t, fakeapi.Options{TLS: true, Faults: inj})
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	err := listPods(ctx, tlsClient(t, s, rest.TransportTimeouts{}))
	if err == nil || !strings.Contains(err.Error(), "GOAWAY") || ctx.Err() != nil {
		t.Fatalf("list on a connection cut after GOAWAY: %v, want a GOAWAY error", err)
	}
}

// LostPings: the connection goes silent; the client's HTTP/2 health check
// (a ping after ReadIdle, unanswered for PingTimeout) closes it.
func TestLostPings(t *testing.T) {
	inj := fakeapi.NewInjector(1, fakeapi.Rates{fakeapi.LostPings: 1}, 0)
	s := newServer(t, fakeapi.Options{TLS: true, Faults: inj})
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	c := tlsClient(t, s, rest.TransportTimeouts{HTTP2ReadIdle: 50 * time.Millisecond, HTTP2PingTimeout: 50 * time.Millisecond},
		rest.WithListIdleTimeout(0), rest.WithListPageTimeout(0))
	err := listPods(ctx, c)
	if err == nil || !strings.Contains(err.Error(), "connection lost") || ctx.Err() != nil {
		t.Fatalf("list on a silent connection: %v, want the health check's connection lost", err)
	}
}

// HandshakeStall: the TLS handshake is never answered; the client's
// handshake timeout ends the wait.
func TestHandshakeStall(t *testing.T) {
	inj := fakeapi.NewInjector(1, fakeapi.Rates{fakeapi.HandshakeStall: 1}, 0)
	s := newServer(t, fakeapi.Options{TLS: true, Faults: inj})
	// Well under the default handshake timeout (10 s): only the 50 ms one
	// can end the wait in time.
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	err := listPods(ctx, tlsClient(t, s, rest.TransportTimeouts{TLSHandshake: 50 * time.Millisecond}))
	if err == nil || !strings.Contains(err.Error(), "TLS handshake timeout") || ctx.Err() != nil {
		t.Fatalf("list through a stalled handshake: %v, want a TLS handshake timeout", err)
	}
}

// SlowLoris: the LIST body trickles; the client's page deadline ends it.
func TestSlowLoris(t *testing.T) {
	inj := fakeapi.NewInjector(1, fakeapi.Rates{fakeapi.SlowLoris: 1}, 5*time.Millisecond)
	s := newServer(t, fakeapi.Options{TLS: true, Faults: inj})
	for _, n := range []string{"a", "b", "c"} {
		must(t)(s.Create(pods, pod("ns", n, "0")))
	}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	c := tlsClient(t, s, rest.TransportTimeouts{}, rest.WithListIdleTimeout(time.Second), rest.WithListPageTimeout(100*time.Millisecond))
	if err := listPods(ctx, c); !errors.Is(err, rest.ErrListPageTimeout) {
		t.Fatalf("a trickling list: %v, want ErrListPageTimeout", err)
	}
}
