package bench

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"time"

	jsoniter "github.com/json-iterator/go"
)

// The floor: what any engine must pay at the least. It reads the same
// bytes off the same socket and scans them once with json-iterator,
// decoding nothing and keeping nothing ("floor"). "floor-read" only reads
// the bytes: the cost of the socket alone.
//
// json-iterator's Skip validates as it goes and, to do so, reads every
// object key it passes as a Go string: about 200 small allocations per pod.
// A hand-written scanner could avoid them; the floor keeps json-iterator
// because that is the decoder kcm uses.

// scanBuf is the size of the iterator's read buffer.
const scanBuf = 32 << 10

// ScanList scans a list response and returns the number of items.
func ScanList(r io.Reader) (int, error) {
	it := jsoniter.Parse(jsoniter.ConfigFastest, r, scanBuf)
	n := 0
	it.ReadObjectCB(func(it *jsoniter.Iterator, field string) bool {
		if field != "items" {
			it.Skip()
			return true
		}
		return it.ReadArrayCB(func(it *jsoniter.Iterator) bool {
			it.Skip()
			n++
			return it.Error == nil
		})
	})
	if it.Error != nil && !errors.Is(it.Error, io.EOF) {
		return n, fmt.Errorf("scan list: %w", it.Error)
	}
	return n, nil
}

// ScanEvents scans m watch events, calling each after every event.
func ScanEvents(r io.Reader, m int, each func(k int)) error {
	it := jsoniter.Parse(jsoniter.ConfigFastest, r, scanBuf)
	for k := range m {
		it.Skip()
		if it.Error != nil {
			return fmt.Errorf("scan event %d: %w", k, it.Error)
		}
		if each != nil {
			each(k)
		}
	}
	return nil
}

// FloorClient reads pods from a server with a plain HTTP client.
type FloorClient struct {
	host string
	hc   *http.Client
	tr   *http.Transport
}

// NewFloorClient returns a client for host; Close releases its connections.
func NewFloorClient(host string) *FloorClient {
	tr := http.DefaultTransport.(*http.Transport).Clone()
	return &FloorClient{host: host, hc: &http.Client{Transport: tr}, tr: tr}
}

// Close closes idle connections.
func (f *FloorClient) Close() { f.tr.CloseIdleConnections() }

func (f *FloorClient) get(ctx context.Context, query string) (*http.Response, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, f.host+"/api/v1/pods?"+query, nil)
	if err != nil {
		return nil, err
	}
	req.Header.Set("Accept", "application/json")
	resp, err := f.hc.Do(req)
	if err != nil {
		return nil, err
	}
	if resp.StatusCode != http.StatusOK {
		resp.Body.Close()
		return nil, fmt.Errorf("GET pods?%s: %s", query, resp.Status)
	}
	return resp, nil
}

// List reads the whole collection in one response (resourceVersion=0, as
// client-go's first LIST). With scan it scans the JSON and returns the
// item count; without, it only reads the bytes and returns their count.
func (f *FloorClient) List(ctx context.Context, scan bool) (int, error) {
	resp, err := f.get(ctx, "resourceVersion=0")
	if err != nil {
		return 0, err
	}
	defer resp.Body.Close()
	if !scan {
		n, err := io.Copy(io.Discard, resp.Body)
		return int(n), err
	}
	return ScanList(resp.Body)
}

// ReadEvents reads until m newline-terminated watch events have arrived,
// looking at nothing but the newlines that end the server's frames.
func ReadEvents(r io.Reader, m int) error {
	buf := make([]byte, scanBuf)
	for seen := 0; seen < m; {
		n, err := r.Read(buf)
		seen += bytes.Count(buf[:n], []byte{'\n'})
		if err != nil && seen < m {
			return fmt.Errorf("read events: %d of %d: %w", seen, m, err)
		}
	}
	return nil
}

// Watch opens a watch from rv, releases the server's events with release
// (nil: none needed), scans m events (or only reads them, without scan)
// and returns the time from release to the last event.
func (f *FloorClient) Watch(ctx context.Context, rv string, m int, release func(), scan bool) (time.Duration, error) {
	// The server flushes the headers before it waits at its gate, so the
	// response arrives first and the events follow the release.
	resp, err := f.get(ctx, "watch=true&allowWatchBookmarks=true&resourceVersion="+rv)
	if err != nil {
		return 0, err
	}
	defer resp.Body.Close()
	start := time.Now()
	if release != nil {
		release()
	}
	if scan {
		err = ScanEvents(resp.Body, m, nil)
	} else {
		err = ReadEvents(resp.Body, m)
	}
	if err != nil {
		return 0, err
	}
	return time.Since(start), nil
}
