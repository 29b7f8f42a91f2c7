package fakeapi

import (
	"crypto/tls"
	"io"
	"net"
	"testing"
)

// TestGoAwayWaitsForTheServersPreface: a GOAWAY asked for before the
// server wrote anything goes out after the server's first frame (its
// SETTINGS), never before it: RFC 9113 §3.4, the server's connection
// preface is a SETTINGS frame, and a client that reads anything else first
// fails the connection. Found by a cold make test run under load, where
// TestGoAway's handler ran before the preface was flushed.
func TestGoAwayWaitsForTheServersPreface(t *testing.T) {
	cert, _ := certOnce()
	ln, err := net.Listen("tcp", "127.0.0.1:0") // kernel buffers: TLS 1.3 writes its tickets without a reader
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	rawC, err := net.Dial("tcp", ln.Addr().String())
	if err != nil {
		t.Fatal(err)
	}
	rawS, err := ln.Accept()
	if err != nil {
		t.Fatal(err)
	}
	srv := tls.Server(rawS, &tls.Config{Certificates: []tls.Certificate{cert}, NextProtos: []string{"h2"}})
	cli := tls.Client(rawC, &tls.Config{InsecureSkipVerify: true, NextProtos: []string{"h2"}}) //nolint:gosec // a pipe in a test
	defer cli.Close()
	defer srv.Close()
	hs := make(chan error, 1)
	go func() { hs <- cli.Handshake() }()
	if err := srv.Handshake(); err != nil {
		t.Fatal(err)
	}
	if err := <-hs; err != nil {
		t.Fatal(err)
	}
	c := &h2Conn{Conn: srv, raw: rawS}
	if !c.isHTTP2() {
		t.Fatal("h2 not negotiated")
	}
	got := make(chan []byte, 1)
	go func() {
		b := make([]byte, 9+9+8)
		_, err := io.ReadFull(cli, b)
		if err != nil {
			b = nil
		}
		got <- b
	}()
	c.inject(GoAway)                                // the handler asks before the preface is out
	settings := []byte{0, 0, 0, 0x4, 0, 0, 0, 0, 0} // an empty SETTINGS frame
	if _, err := c.Write(settings); err != nil {
		t.Fatal(err)
	}
	b := <-got
	if b == nil {
		t.Fatal("the client read no SETTINGS and GOAWAY")
	}
	if b[3] != 0x4 {
		t.Fatalf("first frame type %#x, want SETTINGS (0x4) before the GOAWAY", b[3])
	}
	if b[9+3] != 0x7 {
		t.Fatalf("second frame type %#x, want GOAWAY (0x7)", b[9+3])
	}
}
