package pipeview_test

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"time"

	"github.com/gorilla/websocket"

	"github.com/kcmlab/kcm/clock"
	"github.com/kcmlab/kcm/pipeview"
	"github.com/kcmlab/kcm/tap"
)

// A Hub behind /debug/pipeline: the pipeline reports to its Tap, a browser
// (here a WebSocket client) gets updates and follows one object.
func Example() {
	hub := pipeview.New(pipeview.Options{Clock: clock.NewFake(time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC))})
	mux := http.NewServeMux()
	hub.Install(mux)
	srv := httptest.NewServer(mux)
	defer srv.Close()
	ctx, cancel := context.WithCancel(context.Background())
	ran := make(chan struct{})
	go func() { defer close(ran); _ = hub.Run(ctx) }()
	defer func() { cancel(); <-ran }()

	ws, _, err := websocket.DefaultDialer.Dial("ws"+strings.TrimPrefix(srv.URL, "http")+pipeview.Path+"/ws", nil)
	if err != nil {
		fmt.Println(err)
		return
	}
	defer ws.Close()
	type update struct {
		View struct {
			Informers []struct {
				Name   string
				Socket struct {
					Total  int
					Recent []struct{ Op, Key, RV string }
				}
			}
		}
		Follow *struct {
			Steps []struct{ Stage, Op, RV string }
		}
	}
	var u update
	_ = ws.ReadJSON(&u) // the first update, sent on connecting; the Tap is on now

	// What the reflector of the pods informer reports for one watch event:
	socket := hub.Tap().Point(tap.Socket, "pods", "")
	socket.Emit(tap.Event{Op: "ADDED", Resource: "pods", Key: "default/web-0", RV: "42"})

	_ = ws.WriteJSON(map[string]any{"follow": map[string]string{"resource": "pods", "key": "default/web-0"}})
	u = update{}
	_ = ws.ReadJSON(&u) // sent at once for the command
	for _, inf := range u.View.Informers {
		e := inf.Socket.Recent[0]
		fmt.Printf("informer %s: socket %d event(s), newest %s %s@%s\n", inf.Name, inf.Socket.Total, e.Op, e.Key, e.RV)
	}
	for _, s := range u.Follow.Steps {
		fmt.Printf("following default/web-0: %s %s rv %s\n", s.Stage, s.Op, s.RV)
	}
	// Output:
	// informer pods: socket 1 event(s), newest ADDED default/web-0@42
	// following default/web-0: socket ADDED rv 42
}
