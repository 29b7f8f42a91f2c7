package rest

import (
	"context"
	"errors"
	"net/http"
	"net/http/httptest"
	"testing"
	"time"

	"github.com/kcmlab/kcm/kube/api"
	"go.uber.org/goleak"
)

// TestListIdleTimeout: a LIST that stops sending — before its headers or
// in the middle of its body — ends with ErrIdleTimeout instead of hanging.
func TestListIdleTimeout(t *testing.T) {
	defer goleak.VerifyNone(t, goleak.IgnoreCurrent()) // connections of earlier tests may linger
	for _, tc := range []struct {
		name  string
		serve func(w http.ResponseWriter, stop <-chan struct{})
	}{
		{"headers never come", func(w http.ResponseWriter, stop <-chan struct{}) { <-stop }},
		{"body stalls", func(w http.ResponseWriter, stop <-chan struct{}) {
			w.Header().Set("Content-Type", "application/json")
			_, _ = w.Write([]byte(`{"kind":"PodList","metadata":{"resourceVersion":"5"},"items":[{"metadata":{"name":"a"}},`))
			w.(http.Flusher).Flush()
			<-stop
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			stop := make(chan struct{})
			srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { tc.serve(w, stop) }))
			defer srv.Close()
			defer close(stop)
			c, err := NewClient(&Config{Host: srv.URL, QPS: -1}, WithListIdleTimeout(50*time.Millisecond),
				WithRetryPolicy(RetryPolicy{MaxAttempts: 1}))
			if err != nil {
				t.Fatal(err)
			}
			defer c.CloseIdleConnections()
			ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
			defer cancel()
			_, err = NewResources(c, Pods, api.Raw()).ListEach(ctx, ListOptions{}, func(*api.RawObject) error { return nil })
			if !errors.Is(err, ErrIdleTimeout) {
				t.Fatalf("stalled list: %v, want ErrIdleTimeout", err)
			}
			if ctx.Err() != nil {
				t.Fatal("the test's own deadline ended the list, not the idle timeout")
			}
		})
	}
}
