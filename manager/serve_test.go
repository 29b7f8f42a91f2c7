package manager

import (
	"context"
	"errors"
	"io"
	"net"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/rs/zerolog"

	"github.com/kcmlab/kcm/clock"
	"github.com/kcmlab/kcm/ctrl"
	"github.com/kcmlab/kcm/internal/testing/syncbuf"
	"github.com/kcmlab/kcm/kube/rest"
)

// nowhere is an apiserver address that answers nothing: the tests below
// never need one to answer.
var nowhere = &rest.Config{Host: "https://127.0.0.1:1"}

// idle is a controller that runs until its context ends.
type idle struct{ started chan struct{} }

func (idle) Name() string { return "idle-controller" }
func (i idle) Run(ctx context.Context, _ int) error {
	close(i.started)
	<-ctx.Done()
	return nil
}

func tlsGet(t *testing.T, url string) (*http.Response, string) {
	t.Helper()
	c := &http.Client{Transport: &http.Transport{TLSClientConfig: adminTLS(t)}}
	defer c.CloseIdleConnections()
	resp, err := c.Get(url)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	return resp, string(b)
}

// TestRunServesAndStops: without leader election Run builds and starts
// the controllers at once, serves HTTPS with a certificate made at the
// injected clock's time, reports ready once the caches synced (here:
// none), logs what it runs, and returns nil when its context ends.
func TestRunServesAndStops(t *testing.T) {
	t0 := time.Date(2020, 5, 6, 7, 8, 9, 0, time.UTC)
	started := make(chan struct{})
	d, err := ctrl.NewDescriptors(&ctrl.ControllerDescriptor{Name: "idle-controller",
		Constructor: func(context.Context, ctrl.ControllerContext, string) (ctrl.Controller, error) {
			return idle{started}, nil
		}})
	if err != nil {
		t.Fatal(err)
	}
	o := NewOptions(d)
	trustTestClients(t, o)
	o.LeaderElection.LeaderElect = false
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	var logs syncbuf.Buffer
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	done := make(chan error, 1)
	go func() {
		done <- Run(ctx, Config{Options: o, Descriptors: d, REST: nowhere, Listener: ln,
			Clock: clock.NewFake(t0), Logger: zerolog.New(&logs)})
	}()
	<-started
	resp, body := tlsGet(t, "https://"+ln.Addr().String()+"/readyz?verbose")
	if want := "[+]idle-controller ok\n[+]informer-sync ok\nreadyz check passed\n"; resp.StatusCode != 200 || body != want {
		t.Errorf("/readyz = %d %q, want 200 %q", resp.StatusCode, body, want)
	}
	if nb := resp.TLS.PeerCertificates[0].NotBefore; !nb.Equal(t0.Add(-time.Hour)) {
		t.Errorf("certificate valid from %v; want the injected clock's now less an hour, %v", nb, t0.Add(-time.Hour))
	}
	cancel()
	if err := <-done; err != nil {
		t.Fatalf("Run = %v, want nil", err)
	}
	for _, want := range []string{`"leaderElect":false`, `"controllers":["idle-controller"]`} {
		if !strings.Contains(logs.String(), want) {
			t.Errorf("the log lacks %q:\n%s", want, logs.String())
		}
	}
	if _, err := net.Dial("tcp", ln.Addr().String()); err == nil {
		t.Error("the server still listens after Run returned")
	}
}

// TestRunStandbyStops: with leader election and an apiserver that never
// answers, Run serves (leaderElection passes: a candidate is healthy),
// runs no controller, and returns nil when its context ends.
func TestRunStandbyStops(t *testing.T) {
	d, err := ctrl.NewDescriptors(&ctrl.ControllerDescriptor{Name: "never-controller",
		Constructor: func(context.Context, ctrl.ControllerContext, string) (ctrl.Controller, error) {
			t.Error("a standby built a controller")
			return nil, nil
		}})
	if err != nil {
		t.Fatal(err)
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	done := make(chan error, 1)
	go func() {
		done <- Run(ctx, Config{Options: NewOptions(d), Descriptors: d, REST: nowhere, Listener: ln, Identity: "me",
			Logger: zerolog.Nop()})
	}()
	resp, body := tlsGet(t, "https://"+ln.Addr().String()+"/livez?verbose")
	if want := "[+]leaderElection ok\nlivez check passed\n"; resp.StatusCode != 200 || body != want {
		t.Errorf("/livez = %d %q, want 200 %q", resp.StatusCode, body, want)
	}
	cancel()
	if err := <-done; err != nil {
		t.Fatalf("Run = %v, want nil", err)
	}
}

// TestRunStartupErrors: a cluster that cannot be found and a certificate
// that cannot be read end Run before anything runs, and the listener
// handed in is closed.
func TestRunStartupErrors(t *testing.T) {
	o := NewOptions(NewControllerDescriptors())
	o.Kubeconfig = "/nonexistent/kubeconfig"
	if err := Run(context.Background(), Config{Options: o}); err == nil || !strings.HasPrefix(err.Error(), "finding the cluster: ") {
		t.Errorf("Run with a missing kubeconfig = %v", err)
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	o = NewOptions(NewControllerDescriptors())
	o.Serving.TLSCertFile, o.Serving.TLSPrivateKeyFile = "/nonexistent.crt", "/nonexistent.key"
	err = Run(context.Background(), Config{Options: o, REST: nowhere, Listener: ln, Identity: "me"})
	if err == nil || !strings.HasPrefix(err.Error(), "--tls-cert-file/--tls-private-key-file: ") {
		t.Errorf("Run with a missing certificate = %v", err)
	}
	_ = ln.(*net.TCPListener).SetDeadline(time.Now()) // an open listener times out instead of blocking
	if _, err := ln.Accept(); !errors.Is(err, net.ErrClosed) {
		t.Errorf("the listener was left open: Accept = %v", err)
	}
}

// TestBuildAndStartControllers: a constructor's nil controller is skipped
// (kube-controller-manager's "disabled by its configuration"); a
// controller whose Run fails is reported by name and the others run on.
func TestBuildAndStartControllers(t *testing.T) {
	started := make(chan struct{})
	boom := errors.New("boom")
	cons := func(c ctrl.Controller) ctrl.ControllerConstructor {
		return func(context.Context, ctrl.ControllerContext, string) (ctrl.Controller, error) { return c, nil }
	}
	enabled := []*ctrl.ControllerDescriptor{
		{Name: "off-controller", Constructor: cons(nil)},
		{Name: "failing-controller", Constructor: cons(failing{boom})},
		{Name: "idle-controller", Constructor: cons(idle{started})},
	}
	cc := ctrl.ControllerContext{Logger: zerolog.Nop()}
	cs, err := BuildControllers(context.Background(), cc, enabled)
	if err != nil {
		t.Fatal(err)
	}
	if len(cs) != 2 || cs[0].Name() != "failing-controller" || cs[1].Name() != "idle-controller" {
		t.Fatalf("built %v, want the failing and the idle controller", cs)
	}
	ctx, cancel := context.WithCancel(context.Background())
	var mu sync.Mutex
	failed := map[string]error{}
	go func() { <-started; cancel() }()
	StartControllers(ctx, cc, cs, func(name string, err error) { mu.Lock(); failed[name] = err; mu.Unlock() })
	if len(failed) != 1 || !errors.Is(failed["failing-controller"], boom) {
		t.Errorf("failed = %v, want only failing-controller's error", failed)
	}
}

type failing struct{ err error }

func (failing) Name() string                     { return "failing-controller" }
func (f failing) Run(context.Context, int) error { return f.err }
