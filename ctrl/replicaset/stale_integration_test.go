//go:build !nocluster

package replicaset

import (
	"context"
	"crypto/tls"
	"crypto/x509"
	"io"
	"net/http"
	"net/http/httptest"
	"net/http/httputil"
	"net/url"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/rs/zerolog"

	"github.com/kcmlab/kcm/ctrl"
	"github.com/kcmlab/kcm/informer"
	"github.com/kcmlab/kcm/kube/api"
	"github.com/kcmlab/kcm/kube/api/decode"
	"github.com/kcmlab/kcm/kube/rest"
	"github.com/kcmlab/kcm/testenv"
)

// holdingProxy forwards to the apiserver and can hold the pods WATCH
// streams: while held, what the apiserver sends on them is read but not
// handed on, so the pod cache stops where it is, deterministically.
type holdingProxy struct {
	mu   sync.Mutex
	gate chan struct{} // closed: not held
}

func (p *holdingProxy) hold() {
	p.mu.Lock()
	p.gate = make(chan struct{})
	p.mu.Unlock()
}

func (p *holdingProxy) release() {
	p.mu.Lock()
	close(p.gate)
	p.mu.Unlock()
}

func (p *holdingProxy) wait(ctx context.Context) error {
	p.mu.Lock()
	g := p.gate
	p.mu.Unlock()
	select {
	case <-g:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

// heldBody hands on a watch's bytes only while the proxy is not holding.
type heldBody struct {
	io.ReadCloser
	p   *holdingProxy
	ctx context.Context
}

func (b heldBody) Read(buf []byte) (int, error) {
	n, err := b.ReadCloser.Read(buf)
	if werr := b.p.wait(b.ctx); werr != nil {
		return 0, werr
	}
	return n, err
}

func startHoldingProxy(t *testing.T, cfg *rest.Config) (*holdingProxy, string) {
	target, err := url.Parse(cfg.Host)
	if err != nil {
		t.Fatal(err)
	}
	roots := x509.NewCertPool()
	roots.AppendCertsFromPEM(cfg.TLS.CAData)
	p := &holdingProxy{gate: make(chan struct{})}
	close(p.gate)
	rp := &httputil.ReverseProxy{
		Rewrite:       func(r *httputil.ProxyRequest) { r.SetURL(target); r.Out.Host = target.Host },
		Transport:     &http.Transport{TLSClientConfig: &tls.Config{RootCAs: roots, MinVersion: tls.VersionTLS12}},
		FlushInterval: -1,
		ModifyResponse: func(resp *http.Response) error {
			q := resp.Request.URL.Query()
			if strings.HasSuffix(resp.Request.URL.Path, "/pods") && q.Get("watch") != "" {
				resp.Body = heldBody{ReadCloser: resp.Body, p: p, ctx: resp.Request.Context()}
			}
			return nil
		},
	}
	srv := httptest.NewServer(rp)
	t.Cleanup(srv.Close)
	return p, srv.URL
}

// logSignal is a log writer that reports each line containing msg.
type logSignal struct {
	msg  string
	seen chan struct{}
}

func (l logSignal) Write(b []byte) (int, error) {
	if strings.Contains(string(b), l.msg) {
		select {
		case l.seen <- struct{}{}:
		default:
		}
	}
	return len(b), nil
}

// Against a real kube-apiserver, with the pod cache held back (its watch
// stream paused at the proxy): the ReplicaSet's first sync creates its pod
// and writes its status; the status update wakes the ReplicaSet again,
// and that sync is skipped because the pod cache has not seen the
// controller's own create — counted in
// replicaset_controller_stale_sync_skips_total{group="",resource="pods"}.
// Released, the cache catches up and the ReplicaSet's status counts the
// pod. No second pod is ever created.
func TestStaleSyncSkippedOnARealAPIServer(t *testing.T) {
	cl := testenv.Shared(t)
	cfg := cl.ManagerConfig()
	proxy, proxyURL := startHoldingProxy(t, cfg)
	pcfg := &rest.Config{Host: proxyURL, Credentials: cfg.Credentials, QPS: -1, ContentType: cfg.ContentType}
	client, err := rest.NewClient(pcfg)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(client.CloseIdleConnections)
	direct, err := rest.NewClient(cfg)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(direct.CloseIdleConnections)
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	ns := cl.Namespace(t)

	reg := prometheus.NewRegistry()
	skipped := logSignal{msg: "cache older than this controller's last write", seen: make(chan struct{}, 1)}
	cc, err := ctrl.CreateControllerContext(client, ctrl.Config{Version: "vtest", Registerer: reg,
		Logger: zerolog.New(skipped).Level(zerolog.DebugLevel), Factory: informer.FactoryOptions{Namespace: ns}})
	if err != nil {
		t.Fatal(err)
	}
	loop, err := New(ctx, cc, Name)
	if err != nil {
		t.Fatal(err)
	}
	runCtx, stop := context.WithCancel(ctx)
	cc.InformerFactory.Start(runCtx)
	done := make(chan error, 1)
	go func() { done <- loop.Run(runCtx, 2) }()
	t.Cleanup(func() {
		stop()
		if err := <-done; err != nil {
			t.Errorf("Run: %v", err)
		}
		cc.InformerFactory.Shutdown()
	})
	if synced := cc.InformerFactory.WaitForCacheSync(ctx); len(synced) != 2 || !synced["pods"] || !synced["replicasets.apps"] {
		t.Fatalf("caches synced: %v", synced)
	}

	c := &cluster{t: t, ctx: ctx, ns: ns,
		rss:  rest.NewResources(direct, rest.ReplicaSets, decode.Raw()).InNamespace(ns),
		rsT:  rest.NewResources(direct, rest.ReplicaSets, decode.Typed[api.ReplicaSet]()).InNamespace(ns),
		pods: rest.NewResources(direct, rest.Pods, decode.Typed[api.Pod]()).InNamespace(ns)}
	proxy.hold()
	c.createRS("held", "held", 1, "")
	select {
	case <-skipped.seen:
	case <-ctx.Done():
		t.Fatal("no sync was skipped while the pod cache was held")
	}
	if n := skipsOf(t, reg, "", "pods"); n < 1 {
		t.Fatalf("replicaset_controller_stale_sync_skips_total{pods} = %v after a skip", n)
	}
	if pods := c.podsOf("held"); len(pods) != 1 {
		t.Fatalf("%d pods while the cache was held, want 1", len(pods))
	}
	proxy.release()
	c.waitRS("held", "status.replicas = 1", func(rs *api.ReplicaSet) bool { return rs.Status.Replicas == 1 })
	if pods := c.podsOf("held"); len(pods) != 1 {
		t.Fatalf("%d pods after the cache caught up, want 1", len(pods))
	}
}

// skipsOf reads replicaset_controller_stale_sync_skips_total{group, resource}.
func skipsOf(t *testing.T, reg *prometheus.Registry, group, resource string) float64 {
	t.Helper()
	fams, err := reg.Gather()
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range fams {
		if f.GetName() != "replicaset_controller_stale_sync_skips_total" {
			continue
		}
		for _, m := range f.GetMetric() {
			got := map[string]string{}
			for _, l := range m.GetLabel() {
				got[l.GetName()] = l.GetValue()
			}
			if got["group"] == group && got["resource"] == resource {
				return m.GetCounter().GetValue()
			}
		}
	}
	return 0
}
