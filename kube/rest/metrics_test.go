package rest

import (
	"context"
	"fmt"
	"net/http"
	"net/url"
	"strings"
	"sync"
	"testing"
	"time"
)

type recordedMetrics struct {
	mu   sync.Mutex
	seen []string
}

func (m *recordedMetrics) Request(verb, host, code string, latency time.Duration) {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.seen = append(m.seen, fmt.Sprintf("%s %s %s", verb, host, code))
}

func (m *recordedMetrics) RateLimited(verb, host string, wait time.Duration) {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.seen = append(m.seen, fmt.Sprintf("wait %s %s", verb, host))
}

// Every attempt is reported with its verb, host and status code, or
// <error> when no response came (client-go's rest_client_requests_total
// labels), each after its rate-limiter wait; a derived client keeps the
// hook.
func TestRequestMetrics(t *testing.T) {
	rcNoLeaks(t)
	mux := http.NewServeMux()
	mux.HandleFunc("/api/v1/namespaces/ns/pods/a", func(w http.ResponseWriter, r *http.Request) {
		w.Write([]byte(`{"metadata":{"name":"a"}}`))
	})
	mux.HandleFunc("/api/v1/namespaces/ns/pods/b", func(w http.ResponseWriter, r *http.Request) {
		http.Error(w, `{"kind":"Status","code":403,"reason":"Forbidden"}`, http.StatusForbidden)
	})
	srv := rcServer(t, mux)
	m := &recordedMetrics{}
	c := rcClient(t, srv.URL, nil, WithRequestMetrics(m), WithRetryPolicy(RetryPolicy{MaxAttempts: 1}))
	host := strings.TrimPrefix(srv.URL, "http://")
	ctx := context.Background()
	if _, err := c.RawGet(ctx, "/api/v1/namespaces/ns/pods/a"); err != nil {
		t.Fatal(err)
	}
	if _, err := c.WithOptions("other", 0, 0).RawGet(ctx, "/api/v1/namespaces/ns/pods/b"); !IsForbidden(err) {
		t.Fatalf("err = %v, want Forbidden", err)
	}
	u, _ := url.Parse(srv.URL)
	u.Host = "127.0.0.1:1" // nothing listens there
	dead := rcClient(t, u.String(), nil, WithRequestMetrics(m), WithRetryPolicy(RetryPolicy{MaxAttempts: 1}))
	if _, err := dead.RawGet(ctx, "/version"); err == nil {
		t.Fatal("a request to a closed port succeeded")
	}
	want := strings.Join([]string{
		"wait GET " + host, "GET " + host + " 200",
		"wait GET " + host, "GET " + host + " 403",
		"wait GET 127.0.0.1:1", "GET 127.0.0.1:1 <error>",
	}, "\n")
	if got := strings.Join(m.seen, "\n"); got != want {
		t.Fatalf("observed:\n%s\nwant:\n%s", got, want)
	}
}
