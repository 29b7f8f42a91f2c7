package rest

import (
	"context"
	"errors"
	"net"
	"net/http"
	"sync/atomic"
	"testing"
	"time"

	"github.com/kcmlab/kcm/kube/api"
)

// TestClientRetriesDialTimeout: a dial that times out (a blackholed
// apiserver, an address that is not up yet) fails with an error that
// wraps context.DeadlineExceeded, yet the caller's context is alive and the
// request never left: it is retried like a refused connection, reads and
// writes alike. Only the caller's own context ending stops the retries.
func TestClientRetriesDialTimeout(t *testing.T) {
	rcNoLeaks(t)
	for _, tc := range []struct {
		name string
		call func(c *Client) error
	}{
		{"GET", func(c *Client) error { _, err := c.RawGet(context.Background(), "/version"); return err }},
		{"POST", func(c *Client) error {
			_, err := rcConfigMaps(c).Create(context.Background(), &api.ConfigMap{ObjectMeta: api.ObjectMeta{Name: "cm1"}})
			return err
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			sc := &rcScript{replies: []rcReply{{code: 200, body: rcCM}}}
			c := rcClient(t, rcServer(t, sc).URL, nil)
			var dials atomic.Int32
			real := &net.Dialer{}
			rcTransport(c).DialContext = func(ctx context.Context, network, addr string) (net.Conn, error) {
				if dials.Add(1) == 1 {
					// A deadline already past: the dial times out the way a
					// dial to a blackholed address does, at once.
					timedOut := &net.Dialer{Deadline: time.Now().Add(-time.Second)}
					nc, err := timedOut.DialContext(ctx, network, addr)
					if err == nil || !errors.Is(err, context.DeadlineExceeded) {
						t.Errorf("the first dial gave %v, want a timeout wrapping context.DeadlineExceeded", err)
					}
					if nc != nil {
						nc.Close()
					}
					return nil, err
				}
				return real.DialContext(ctx, network, addr)
			}
			if err := tc.call(c); err != nil {
				t.Fatalf("%s after a dial timeout: %v", tc.name, err)
			}
			if n, m := dials.Load(), len(sc.seen()); n != 2 || m != 1 {
				t.Fatalf("%d dials and %d requests served, want 2 and 1", n, m)
			}
		})
	}
	t.Run("the caller's deadline is a stop", func(t *testing.T) {
		c := rcClient(t, "http://127.0.0.1:1", nil)
		ctx, cancel := context.WithDeadline(context.Background(), time.Now().Add(-time.Second))
		defer cancel()
		r := &request{verb: http.MethodGet, path: "/version", idempotent: true}
		if _, retry := c.shouldRetry(ctx, r, ctx.Err(), 1); retry {
			t.Fatal("retried after the caller's own deadline")
		}
	})
}
