package fakeapi

import (
	"context"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/tls"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/binary"
	"encoding/pem"
	"math/big"
	"net"
	"net/http"
	"net/http/httptest"
	"sync"
	"sync/atomic"
	"time"
)

// TLS with HTTP/2, as kube-apiserver serves, and the faults of its
// connections. The fake terminates TLS itself and hands the plaintext to
// net/http as HTTP/2 with prior knowledge (or HTTP/1.1 for WebSocket
// upgrades, whose clients offer only http/1.1), so that it can see the
// HTTP/2 frames the server writes and slip a GOAWAY between two of them,
// or stop delivering them altogether:
//
//	client ══TLS══▶ tlsListener ──h2Conn (frames seen)──▶ net/http (h2c) ──▶ handler
//
// Connection faults: GoAway (a graceful GOAWAY, NO_ERROR, last stream
// 2^31-1: streams in flight go on, new requests open a new connection, as
// after kube-apiserver's --goaway-chance), GoAwayClose (GOAWAY, then the
// TCP connection is cut under its streams, as a restarting apiserver or a
// load balancer does), LostPings (from then on nothing the server writes
// arrives, ping answers included: only the client's HTTP/2 health check
// can close the connection) and HandshakeStall (a new connection's TLS
// handshake is never answered).

// certOnce makes one self-signed certificate for 127.0.0.1 and localhost,
// shared by every server of the process.
var certOnce = sync.OnceValues(func() (tls.Certificate, []byte) {
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		panic("fakeapi: generating a key: " + err.Error())
	}
	tmpl := &x509.Certificate{
		SerialNumber: big.NewInt(1),
		Subject:      pkix.Name{CommonName: "fakeapi"},
		NotBefore:    time.Now().Add(-time.Hour),
		NotAfter:     time.Now().Add(24 * time.Hour),
		KeyUsage:     x509.KeyUsageDigitalSignature | x509.KeyUsageCertSign,
		ExtKeyUsage:  []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth},
		IsCA:         true, BasicConstraintsValid: true,
		IPAddresses: []net.IP{net.IPv4(127, 0, 0, 1), net.IPv6loopback},
		DNSNames:    []string{"localhost"},
	}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, &key.PublicKey, key)
	if err != nil {
		panic("fakeapi: creating a certificate: " + err.Error())
	}
	cert := tls.Certificate{Certificate: [][]byte{der}, PrivateKey: key}
	return cert, pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: der})
})

// CAPEM returns the PEM certificate a client must trust to reach a server
// made with Options.TLS (kubeconfig: certificate-authority-data).
func CAPEM() []byte {
	_, p := certOnce()
	return p
}

// startServer starts srv, over TLS with HTTP/2 (and HTTP/1.1) when useTLS,
// with faults drawn from faults and accepted connections counted in conns;
// it returns the base URL.
func startServer(srv *httptest.Server, useTLS bool, faults *Injector, conns *atomic.Int64) string {
	if !useTLS {
		srv.Start()
		return srv.URL
	}
	cert, _ := certOnce()
	cfg := &tls.Config{Certificates: []tls.Certificate{cert}, NextProtos: []string{"h2", "http/1.1"},
		MinVersion: tls.VersionTLS12}
	srv.Listener = &tlsListener{Listener: srv.Listener, cfg: cfg, faults: faults, conns: conns}
	p := new(http.Protocols)
	p.SetHTTP1(true)
	p.SetUnencryptedHTTP2(true) // the plaintext behind tlsListener
	srv.Config.Protocols = p
	srv.Config.ConnContext = func(ctx context.Context, c net.Conn) context.Context {
		return context.WithValue(ctx, connKey{}, c)
	}
	srv.Start()
	return "https://" + srv.Listener.Addr().String()
}

// connKey finds a request's connection in its context.
type connKey struct{}

// tlsListener terminates TLS on each accepted connection, lazily: the
// handshake runs on the connection's first read, in net/http's goroutine
// for it, so a stalled one blocks nobody else.
type tlsListener struct {
	net.Listener
	cfg    *tls.Config
	faults *Injector
	conns  *atomic.Int64 // connections accepted
}

func (l *tlsListener) Accept() (net.Conn, error) {
	raw, err := l.Listener.Accept()
	if err != nil {
		return nil, err
	}
	l.conns.Add(1)
	if l.faults.roll(HandshakeStall) == HandshakeStall {
		return stalledConn{raw}, nil
	}
	return &h2Conn{Conn: tls.Server(raw, l.cfg), raw: raw}, nil
}

// stalledConn never answers the ClientHello: it reads and drops what the
// client sends until the client (or the server's Close) ends it.
type stalledConn struct{ net.Conn }

func (c stalledConn) Read(p []byte) (int, error) {
	for {
		if _, err := c.Conn.Read(p); err != nil {
			return 0, err
		}
	}
}

// h2Conn is one TLS connection as net/http sees it. On an HTTP/2 connection
// it follows the frames the server writes (a 9-byte header, then a payload
// of the length it announces) so that a GOAWAY goes in between two frames,
// never inside one.
type h2Conn struct {
	net.Conn          // the *tls.Conn
	raw      net.Conn // under TLS: cut to drop the connection at once

	mu        sync.Mutex
	hdr       [9]byte
	hdrN      int  // bytes of the current frame header written
	left      int  // payload bytes of the current frame still to come
	frames    int  // whole frames written: a GOAWAY waits for the first, the server's SETTINGS (its preface)
	goAway    bool // a GOAWAY waits for the next frame boundary
	closeThen bool // ... and the connection is cut after it
	silent    bool // LostPings: every write is dropped
}

// isHTTP2 reports whether the connection negotiated HTTP/2.
func (c *h2Conn) isHTTP2() bool {
	tc, ok := c.Conn.(*tls.Conn)
	return ok && tc.ConnectionState().NegotiatedProtocol == "h2"
}

func (c *h2Conn) Write(p []byte) (int, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.silent {
		return len(p), nil
	}
	if !c.isHTTP2() {
		return c.Conn.Write(p)
	}
	out := make([]byte, 0, len(p)+17)
	n := len(p)
	for len(p) > 0 {
		if c.hdrN == 0 && c.goAway && c.frames > 0 {
			if done, err := c.sendGoAwayLocked(out); done || err != nil {
				return n, err
			}
			out = out[:0]
		}
		if c.hdrN < len(c.hdr) {
			k := copy(c.hdr[c.hdrN:], p)
			out, p, c.hdrN = append(out, p[:k]...), p[k:], c.hdrN+k
			if c.hdrN == len(c.hdr) {
				c.left = int(c.hdr[0])<<16 | int(c.hdr[1])<<8 | int(c.hdr[2])
				if c.left == 0 {
					c.hdrN = 0
					c.frames++
				}
			}
			continue
		}
		k := min(c.left, len(p))
		out, p, c.left = append(out, p[:k]...), p[k:], c.left-k
		if c.left == 0 {
			c.hdrN = 0
			c.frames++
		}
	}
	if c.hdrN == 0 && c.goAway && c.frames > 0 { // asked for before this write's first frame was out
		_, err := c.sendGoAwayLocked(out)
		return n, err
	}
	if _, err := c.Conn.Write(out); err != nil {
		return 0, err
	}
	return n, nil
}

// sendGoAwayLocked writes pending (whole frames), then the GOAWAY, and cuts
// the connection when asked to; done reports the cut.
func (c *h2Conn) sendGoAwayLocked(pending []byte) (done bool, err error) {
	frame := make([]byte, 9+8)
	frame[2] = 8                                   // payload length
	frame[3] = 0x7                                 // GOAWAY
	binary.BigEndian.PutUint32(frame[9:], 1<<31-1) // last stream ID: every stream may go on
	// error code 0: NO_ERROR, a graceful shutdown
	c.goAway = false
	if _, err := c.Conn.Write(append(pending, frame...)); err != nil {
		return true, err
	}
	if c.closeThen {
		_ = c.raw.Close()
		return true, net.ErrClosed
	}
	return false, nil
}

// inject asks for a connection fault: GOAWAY at the next frame boundary
// after the server's first frame (now, when the connection stands between
// frames and that frame is out), optionally followed
// by a cut; or silence.
func (c *h2Conn) inject(f Fault) {
	c.mu.Lock()
	defer c.mu.Unlock()
	switch f {
	case LostPings:
		c.silent = true
		return
	case GoAwayClose:
		c.closeThen = true
	}
	c.goAway = true
	// Between two frames, and never before the server's SETTINGS: a request
	// can reach its handler before the server's preface has been written,
	// and a client that reads a GOAWAY first fails the connection
	// (PROTOCOL_ERROR), which no real apiserver makes it do.
	if c.hdrN == 0 && c.frames > 0 {
		_, _ = c.sendGoAwayLocked(nil)
	}
}

// connFault draws a fault of the request's HTTP/2 connection, if it has
// one, and sets it off. The request itself is then answered as usual
// (over a connection that may be going away).
func (s *Server) connFault(r *http.Request) {
	c, ok := r.Context().Value(connKey{}).(*h2Conn)
	if !ok || r.ProtoMajor != 2 {
		return
	}
	if f := s.faults.roll(GoAway, GoAwayClose, LostPings); f != None {
		c.inject(f)
	}
}
