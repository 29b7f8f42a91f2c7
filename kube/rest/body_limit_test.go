package rest

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strings"
	"testing"
)

// rcZeros writes n bytes of JSON whitespace: a body that parses as
// nothing, only large.
func rcZeros(w io.Writer, n int64) {
	chunk := []byte(strings.Repeat(" ", 64<<10))
	for n > 0 {
		k := min(n, int64(len(chunk)))
		if _, err := w.Write(chunk[:k]); err != nil {
			return
		}
		n -= k
	}
}

// TestResponseBodiesAreBounded: the body of a non-streamed request (GET,
// discovery, a write's answer) is read whole, so it is bounded:
// DefaultMaxResponseBytes, or WithMaxResponseBytes. Past it the request
// fails with ErrResponseTooLarge naming the request and the limit. A
// DELETE of a collection, whose answer nobody reads, is drained up to the
// limit and succeeds.
func TestResponseBodiesAreBounded(t *testing.T) {
	rcNoLeaks(t)
	var size, announce int64
	srv := rcServer(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		if announce > 0 {
			w.Header().Set("Content-Length", fmt.Sprint(announce))
		}
		rcZeros(w, size)
		io.WriteString(w, `{"gitVersion":"v1"}`)
	}))
	versionFails := func(t *testing.T, c *Client, limit int64) {
		t.Helper()
		_, err := c.ServerVersion(context.Background())
		if !errors.Is(err, ErrResponseTooLarge) || !strings.Contains(err.Error(), "/version") ||
			!strings.Contains(err.Error(), fmt.Sprint(limit)) {
			t.Fatalf("err = %v, want ErrResponseTooLarge naming /version and %d", err, limit)
		}
	}
	t.Run("WithMaxResponseBytes", func(t *testing.T) {
		const limit = 4 << 10
		c := rcClient(t, srv.URL, nil, WithMaxResponseBytes(limit))
		size, announce = limit-64, 0 // fits
		if v, err := c.ServerVersion(context.Background()); err != nil || v != "v1" {
			t.Fatalf("a body under the limit: %q, %v", v, err)
		}
		size = limit // over by the JSON after the blanks, not announced
		versionFails(t, c, limit)
		if err := rcConfigMaps(c).DeleteCollection(context.Background(), DeleteOptions{}, ListOptions{}); err != nil {
			t.Fatalf("DeleteCollection with a large answer: %v", err)
		}
	})
	t.Run("default limit, announced", func(t *testing.T) {
		c := rcClient(t, srv.URL, nil)
		size, announce = 0, DefaultMaxResponseBytes+1
		versionFails(t, c, DefaultMaxResponseBytes)
	})
}
