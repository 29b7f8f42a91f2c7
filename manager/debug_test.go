package manager

import (
	"context"
	"net"
	"net/http"
	"testing"

	"github.com/rs/zerolog"

	"github.com/kcmlab/kcm/ctrl"
)

// debuggable is an idle controller with a debugging page that echoes the
// path it was given.
type debuggable struct{ idle }

func (debuggable) Name() string { return "dbg-controller" }
func (debuggable) DebuggingHandler() http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { _, _ = w.Write([]byte(r.URL.Path)) })
}

// TestDebugHandlers: a Debuggable controller's pages are served under
// /debug/controllers/<name>/ and /debug/controllers/<alias>/ with the
// prefix stripped, as kube-controller-manager mounts the garbage
// collector's graph; other names answer 404.
func TestDebugHandlers(t *testing.T) {
	started := make(chan struct{})
	d, err := ctrl.NewDescriptors(&ctrl.ControllerDescriptor{Name: "dbg-controller", Aliases: []string{"dbg"},
		Constructor: func(context.Context, ctrl.ControllerContext, string) (ctrl.Controller, error) {
			return debuggable{idle{started}}, nil
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
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	done := make(chan error, 1)
	go func() {
		done <- Run(ctx, Config{Options: o, Descriptors: d, REST: nowhere, Listener: ln, Logger: zerolog.Nop()})
	}()
	<-started
	base := "https://" + ln.Addr().String()
	for path, want := range map[string]string{
		"/debug/controllers/dbg-controller/graph": "/graph",
		"/debug/controllers/dbg/graph":            "/graph",
	} {
		if resp, body := tlsGet(t, base+path); resp.StatusCode != 200 || body != want {
			t.Errorf("%s = %d %q, want 200 %q", path, resp.StatusCode, body, want)
		}
	}
	if resp, _ := tlsGet(t, base+"/debug/controllers/other/graph"); resp.StatusCode != 404 {
		t.Errorf("an unknown controller's page = %d, want 404", resp.StatusCode)
	}
	cancel()
	if err := <-done; err != nil {
		t.Fatal(err)
	}
}
