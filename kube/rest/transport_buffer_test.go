package rest

import (
	"context"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"sync"
	"testing"
)

// offersConn records, for each read made on a connection, how large a
// buffer the reader offered it.
type offersConn struct {
	net.Conn
	mu     *sync.Mutex
	offers *[]int
}

func (c offersConn) Read(p []byte) (int, error) {
	c.mu.Lock()
	*c.offers = append(*c.offers, len(p))
	c.mu.Unlock()
	return c.Conn.Read(p)
}

// TestTransportReadsBufferedBodies checks the transport's read buffer
// (readBufferSize): the reads of an HTTP/1.1 connection are offered a
// readBufferSize buffer, so that one read takes as much of a chunked body
// (a LIST written item by item, a watch stream) as the socket holds. With
// net/http's default 4 KiB buffer each read of the body stops at the chunk
// the buffer ends in: about one read system call per object.
//
// The rule checked is the size offered to the connection's reads, which
// kcm sets; not how many reads a body took, which depends on how the
// kernel delivered the bytes (under load a 48 KiB body in 512-byte chunks
// took 4 reads instead of the usual 2 or 3).
func TestTransportReadsBufferedBodies(t *testing.T) {
	const chunk, chunks = 512, 96
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		b := make([]byte, chunk)
		for i := range b {
			b[i] = 'x'
		}
		for range chunks {
			_, _ = w.Write(b)
			w.(http.Flusher).Flush() // one chunk each
		}
	}))
	defer srv.Close()
	tr := newTransport(nil, TransportTimeouts{})
	defer tr.CloseIdleConnections()
	if tr.ReadBufferSize != readBufferSize {
		t.Fatalf("transport's ReadBufferSize = %d, want %d", tr.ReadBufferSize, readBufferSize)
	}
	var mu sync.Mutex
	var offers []int
	dial := tr.DialContext
	tr.DialContext = func(ctx context.Context, network, addr string) (net.Conn, error) {
		c, err := dial(ctx, network, addr)
		if err != nil {
			return nil, err
		}
		return offersConn{Conn: c, mu: &mu, offers: &offers}, nil
	}
	req, err := http.NewRequestWithContext(context.Background(), http.MethodGet, srv.URL, nil)
	if err != nil {
		t.Fatal(err)
	}
	resp, err := tr.RoundTrip(req)
	if err != nil {
		t.Fatal(err)
	}
	body, err := io.ReadAll(resp.Body)
	resp.Body.Close()
	if err != nil {
		t.Fatal(err)
	}
	if len(body) != chunk*chunks {
		t.Fatalf("read %d bytes, want %d", len(body), chunk*chunks)
	}
	mu.Lock()
	defer mu.Unlock()
	// A read into a buffer that holds unread bytes is offered only the
	// rest of it; the first read, into an empty buffer, is offered all.
	largest := 0
	for _, n := range offers {
		largest = max(largest, n)
	}
	if largest != readBufferSize {
		t.Errorf("the connection's reads were offered at most %d bytes (%d reads: %v), want %d (readBufferSize)",
			largest, len(offers), offers, readBufferSize)
	}
}
