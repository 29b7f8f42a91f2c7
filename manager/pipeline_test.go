package manager

import (
	"context"
	"net"
	"strings"
	"testing"
	"time"

	"github.com/gorilla/websocket"
	"github.com/rs/zerolog"

	"github.com/kcmlab/kcm/clock"
	"github.com/kcmlab/kcm/ctrl"
	"github.com/kcmlab/kcm/pipeview"
)

// runIdle runs the manager with one idle controller, no leader election
// and o edited by edit, until the test ends; it returns the base URL and
// a func that stops Run and returns its result.
func runIdle(t *testing.T, edit func(*Options), hub *pipeview.Hub) (string, func() error) {
	t.Helper()
	started := make(chan struct{})
	d, err := ctrl.NewDescriptors(&ctrl.ControllerDescriptor{Name: "idle-controller",
		Constructor: func(context.Context, ctrl.ControllerContext, string) (ctrl.Controller, error) {
			return idle{started}, nil
		}})
	if err != nil {
		t.Fatal(err)
	}
	o := NewOptions(d)
	o.LeaderElection.LeaderElect = false
	trustTestClients(t, o)
	edit(o)
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() {
		done <- Run(ctx, Config{Options: o, Descriptors: d, REST: nowhere, Listener: ln, Pipeline: hub,
			Clock: clock.NewFake(time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)), Logger: zerolog.Nop()})
	}()
	<-started
	stopped := false
	stop := func() error {
		stopped = true
		cancel()
		select {
		case err := <-done:
			return err
		case <-time.After(30 * time.Second):
			t.Fatal("Run did not return")
			return nil
		}
	}
	t.Cleanup(func() {
		if !stopped {
			_ = stop()
		}
	})
	return "https://" + ln.Addr().String(), stop
}

// /debug/pipeline is off by default: the secure port answers 404 for it,
// even to system:masters — also when the manager feeds a view of the caller's
// (kcm dev serves that one elsewhere, on loopback).
func TestPipelineViewIsOffByDefault(t *testing.T) {
	for name, hub := range map[string]*pipeview.Hub{"no view": nil, "a view fed by the manager": pipeview.New(pipeview.Options{})} {
		t.Run(name, func(t *testing.T) {
			url, stop := runIdle(t, func(*Options) {}, hub)
			for _, path := range []string{pipeview.Path, pipeview.Path + "/ws", pipeview.Path + "/static/app.js"} {
				if resp, _ := tlsGet(t, url+path); resp.StatusCode != 404 {
					t.Errorf("GET %s without --enable-pipeline-view: %d, want 404", path, resp.StatusCode)
				}
			}
			if err := stop(); err != nil {
				t.Fatal(err)
			}
		})
	}
}

// With --enable-pipeline-view the secure port serves the page and its
// WebSocket, which sends the view (here the idle manager's: no informers
// yet); stopping the manager disconnects the browser and Run returns.
func TestPipelineViewWhenEnabled(t *testing.T) {
	url, stop := runIdle(t, func(o *Options) { o.EnablePipelineView = true }, nil)
	resp, body := tlsGet(t, url+pipeview.Path)
	if resp.StatusCode != 200 || !strings.Contains(body, "kcm pipeline") {
		t.Fatalf("GET %s: %d %.80q", pipeview.Path, resp.StatusCode, body)
	}
	d := websocket.Dialer{TLSClientConfig: adminTLS(t), HandshakeTimeout: 20 * time.Second}
	ws, _, err := d.Dial("wss"+strings.TrimPrefix(url, "https")+pipeview.Path+"/ws", nil)
	if err != nil {
		t.Fatal(err)
	}
	defer ws.Close()
	_ = ws.SetReadDeadline(time.Now().Add(20 * time.Second))
	var u struct {
		View struct {
			Informers []any `json:"informers"`
			Now       int64 `json:"now"`
		} `json:"view"`
	}
	if err := ws.ReadJSON(&u); err != nil {
		t.Fatal(err)
	}
	if u.View.Now != time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC).UnixMilli() {
		t.Fatalf("update at %d: not from the manager's clock", u.View.Now)
	}
	if err := stop(); err != nil {
		t.Fatal(err)
	}
	if _, _, err := ws.ReadMessage(); err == nil {
		t.Fatal("the browser is still connected after the manager stopped")
	}
}
