package pipeview_test

import (
	"context"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/gorilla/websocket"

	"github.com/kcmlab/kcm/clock"
	"github.com/kcmlab/kcm/ctrl"
	"github.com/kcmlab/kcm/informer"
	"github.com/kcmlab/kcm/internal/testing/fakeapi"
	"github.com/kcmlab/kcm/kube/api"
	"github.com/kcmlab/kcm/kube/rest"
	"github.com/kcmlab/kcm/pipeview"
	"github.com/kcmlab/kcm/processor"
)

// Only metadata leaves the manager. A real informer, handler and
// controller loop run against an in-process apiserver, reporting to the
// view; a browser selects every stage in turn (the fullest updates) and
// follows the pod. Its spec and its annotations carry marked values: no
// update ever contains them, while the pod's key, resourceVersion and
// label (an index entry) do appear.
func TestUpdatesCarryMetadataOnly(t *testing.T) {
	const specSecret, annotationSecret = "SPEC-SECRET-4711", "ANNOTATION-SECRET-0815"
	api1 := fakeapi.New(fakeapi.Options{Resources: []fakeapi.Resource{{Version: "v1", Resource: "pods", Kind: "Pod"}}})
	defer api1.Close()
	hub := pipeview.New(pipeview.Options{Period: 10 * time.Millisecond})
	mux := http.NewServeMux()
	hub.Install(mux)
	srv := httptest.NewServer(mux)
	defer srv.Close()
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	hubDone := make(chan struct{})
	go func() { defer close(hubDone); _ = hub.Run(ctx) }()
	defer func() { cancel(); <-hubDone }()

	client, err := rest.NewClient(&rest.Config{Host: api1.URL(), QPS: -1}, rest.WithTap(hub.Tap()))
	if err != nil {
		t.Fatal(err)
	}
	defer client.CloseIdleConnections()
	f := informer.NewFactory(client, informer.FactoryOptions{Tap: hub.Tap()})
	pods := informer.ForRaw(f, rest.Pods)
	loop := ctrl.NewLoop("test-controller", func(context.Context, string) (ctrl.Result, error) { return ctrl.Result{}, nil },
		ctrl.LoopOptions{Tap: hub.Tap(), Synced: []informer.Synced{pods}})
	if _, err := pods.AddEventHandler(processor.HandlerFuncs[*api.RawObject]{
		AddFunc: func(o *api.RawObject, _ bool) { loop.Queue().Add(o.Key()) },
	}, processor.HandlerOptions{Name: "test-controller"}); err != nil {
		t.Fatal(err)
	}
	f.Start(ctx)
	defer f.Shutdown()
	loopDone := make(chan struct{})
	go func() { defer close(loopDone); _ = loop.Run(ctx, 1) }()
	defer func() { cancel(); <-loopDone }()

	ws, _, err := websocket.DefaultDialer.Dial("ws"+strings.TrimPrefix(srv.URL, "http")+pipeview.Path+"/ws", nil)
	if err != nil {
		t.Fatal(err)
	}
	defer ws.Close()
	if err := ws.WriteJSON(map[string]any{"follow": map[string]string{"resource": "pods", "key": "ns/web-0"}}); err != nil {
		t.Fatal(err)
	}
	// The pod changes once: its events must find the hub already holding
	// the browser (which turns the Tap on) and its follow (which makes the
	// stages keep the pod's events for the trail), or the trail stays
	// empty. Dial returns before the hub has taken the browser in, and the
	// hub applies commands in order, after the previous one's follow was
	// handed to the stages: an update that shows a second command applied
	// proves both.
	if err := ws.WriteJSON(map[string]any{"select": "socket:pods(raw)"}); err != nil {
		t.Fatal(err)
	}
	var all strings.Builder
	deadline := time.Now().Add(20 * time.Second)
	_ = ws.SetReadDeadline(deadline)
	for {
		_, msg, err := ws.ReadMessage()
		if err != nil {
			t.Fatalf("waiting for the hub to take the follow: %v; so far:\n%s", err, all.String())
		}
		all.Write(msg)
		all.WriteByte('\n')
		if s := string(msg); strings.Contains(s, `"follow":{"target":{"resource":"pods","key":"ns/web-0"}`) &&
			strings.Contains(s, `"selected":"socket:pods(raw)"`) {
			break
		}
	}
	// The pod is created once the (empty) initial list is in, so that it
	// arrives as a watch event (op ADDED) rather than as a listed item.
	sctx, scancel := context.WithTimeout(ctx, 20*time.Second)
	synced := informer.WaitForCacheSync(sctx, clock.Real{}, pods)
	scancel()
	for name, ok := range synced {
		if !ok {
			t.Fatalf("informer %s did not sync", name)
		}
	}
	if _, err := api1.Create(fakeapi.Resource{Version: "v1", Resource: "pods", Kind: "Pod"}, map[string]any{
		"metadata": map[string]any{"namespace": "ns", "name": "web-0", "labels": map[string]any{"app": "web"},
			"annotations": map[string]any{"note": annotationSecret}},
		"spec": map[string]any{"containers": []any{map[string]any{"name": "c", "image": "nginx",
			"env": []any{map[string]any{"name": "PASSWORD", "value": specSecret}}}}},
	}); err != nil {
		t.Fatal(err)
	}
	stages := []string{"socket:pods(raw)", "fifo:pods(raw)", "store:pods(raw)", "handler:pods(raw):test-controller",
		"enqueue:test-controller", "sync:test-controller"}
	for i := 0; ; i++ {
		if err := ws.WriteJSON(map[string]any{"select": stages[i%len(stages)]}); err != nil {
			t.Fatal(err)
		}
		_ = ws.SetReadDeadline(deadline)
		_, msg, err := ws.ReadMessage()
		if err != nil {
			t.Fatalf("reading updates: %v; so far:\n%s", err, all.String())
		}
		all.Write(msg)
		all.WriteByte('\n')
		s := all.String()
		if i >= len(stages) && strings.Contains(s, `"stage":"sync","where":"test-controller","op":"success"`) {
			break
		}
	}
	s := all.String()
	for _, secret := range []string{specSecret, annotationSecret, "PASSWORD", "nginx"} {
		if strings.Contains(s, secret) {
			t.Errorf("an update carries %q", secret)
		}
	}
	for _, meta := range []string{`"key":"ns/web-0"`, `+label:app=web`, `"op":"ADDED"`} {
		if !strings.Contains(s, meta) {
			t.Errorf("no update carries %s", meta)
		}
	}
}
