package rest

import (
	"context"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"sync/atomic"
	"testing"
)

// countingConn counts the reads made on a connection.
type countingConn struct {
	net.Conn
	reads *atomic.Int64
}

func (c countingConn) Read(p []byte) (int, error) {
	c.reads.Add(1)
	return c.Conn.Read(p)
}

// TestTransportReadsBufferedBodies checks the transport's read buffer:
// an HTTP/1.1 body the server sent in many small chunks (as a LIST
// written item by item, or a watch stream, arrives) and that waits in
// the socket is read in a few large reads, not one read per chunk. With
// net/http's default 4 KiB buffer, each read of the body stops at the
// chunk that does not fit in it: 48 KiB in 512-byte chunks took a dozen
// reads or more.
func TestTransportReadsBufferedBodies(t *testing.T) {
	const chunk, chunks = 512, 96 // 48 KiB: well under any socket buffer
	wrote := make(chan struct{})
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		b := make([]byte, chunk)
		for i := range b {
			b[i] = 'x'
		}
		for range chunks {
			_, _ = w.Write(b)
			w.(http.Flusher).Flush() // one chunk each
		}
		close(wrote)
	}))
	defer srv.Close()
	tr := newTransport(nil, TransportTimeouts{})
	defer tr.CloseIdleConnections()
	var reads atomic.Int64
	dial := tr.DialContext
	tr.DialContext = func(ctx context.Context, network, addr string) (net.Conn, error) {
		c, err := dial(ctx, network, addr)
		if err != nil {
			return nil, err
		}
		return countingConn{Conn: c, reads: &reads}, nil
	}
	req, err := http.NewRequestWithContext(context.Background(), http.MethodGet, srv.URL, nil)
	if err != nil {
		t.Fatal(err)
	}
	resp, err := tr.RoundTrip(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	<-wrote // every chunk waits in the socket (or was read with the headers)
	before := reads.Load()
	body, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	if len(body) != chunk*chunks {
		t.Fatalf("read %d bytes, want %d", len(body), chunk*chunks)
	}
	// The body's last bytes (the terminating chunk) may come in a read
	// of their own; a 64 KiB buffer takes the rest in one.
	if n := reads.Load() - before; n > 3 {
		t.Errorf("%d reads of the connection for a %d-byte body buffered in the socket, want at most 3 (read buffer %d bytes)",
			n, len(body), tr.ReadBufferSize)
	}
}
