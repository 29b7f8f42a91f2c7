package reflector_test

import (
	"context"
	"testing"
	"time"

	"github.com/kcmlab/kcm/internal/testing/fakeapi"
	"github.com/kcmlab/kcm/internal/testing/fakelw"
	"github.com/kcmlab/kcm/kube/api/decode"
	"github.com/kcmlab/kcm/kube/rest"
	"github.com/kcmlab/kcm/reflector"
)

// FromResources reads through a rest client, against the in-process fake
// apiserver: a WatchList the server refuses (its error passes through),
// then LIST, then WATCH over the transport it was given (here WebSocket).
// The zero Clock is the real one.
func TestFromResources(t *testing.T) {
	res := fakeapi.Resource{Version: "v1", Resource: "pods", Kind: "Pod"}
	srv := fakeapi.New(fakeapi.Options{Resources: []fakeapi.Resource{res}, NoWatchList: true})
	defer srv.Close()
	create := func(name string) {
		t.Helper()
		if _, err := srv.Create(res, map[string]any{"metadata": map[string]any{"namespace": "ns", "name": name}}); err != nil {
			t.Fatal(err)
		}
	}
	create("a")
	c, err := rest.NewClient(&rest.Config{Host: srv.URL(), QPS: -1})
	if err != nil {
		t.Fatal(err)
	}
	defer c.CloseIdleConnections()
	ops := make(chan string, 10)
	s := &sink{refuse: func(op string) error { ops <- op; return nil }}
	lw := reflector.FromResources(rest.NewResources(c, rest.Pods, decode.Raw()), rest.WebSocket)
	r := reflector.New(lw, s, reflector.Options{InitialList: reflector.ListStream})
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- r.Run(ctx) }()
	defer func() { cancel(); <-done }()
	next := func() string {
		t.Helper()
		select {
		case op := <-ops:
			return op
		case <-time.After(fakelw.Patience):
			t.Fatal("the reflector handed nothing to the sink")
			return ""
		}
	}
	for _, want := range []string{"start", "replace a@1001", "finish 1001"} {
		if got := next(); got != want {
			t.Fatalf("sink got %q, want %q", got, want)
		}
	}
	create("b")
	if got := next(); got != "add b@1002" {
		t.Fatalf("sink got %q, want add b@1002", got)
	}
	if st := srv.Stats(); st.Lists != 1 || st.Watches != 2 || st.WebSockets < 1 {
		t.Fatalf("requests %+v, want a refused WatchList, one LIST and a WebSocket WATCH", st)
	}
}
