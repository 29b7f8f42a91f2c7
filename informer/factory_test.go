package informer_test

import (
	"context"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/rs/zerolog"
	"go.uber.org/goleak"

	"github.com/kcmlab/kcm/informer"
	"github.com/kcmlab/kcm/internal/testing/fakeapi"
	"github.com/kcmlab/kcm/internal/testing/syncbuf"
	"github.com/kcmlab/kcm/kube/api"
	"github.com/kcmlab/kcm/kube/rest"
	"github.com/kcmlab/kcm/processor"
)

// TestFactoryLogsRunErrors: the factory runs its informers itself, so it
// logs what their Run returns: here a handler still busy when the
// FactoryOptions.ShutdownTimeout expired (the handler is released only
// after Shutdown has returned, so the timeout always expires first).
func TestFactoryLogsRunErrors(t *testing.T) {
	defer goleak.VerifyNone(t, goleak.IgnoreCurrent())
	srv := fakeapi.New(fakeapi.Options{Resources: []fakeapi.Resource{chaosPods}})
	defer srv.Close()
	if _, err := srv.Create(chaosPods, map[string]any{"metadata": map[string]any{"namespace": "ns", "name": "a"}}); err != nil {
		t.Fatal(err)
	}
	c, err := rest.NewClient(&rest.Config{Host: srv.URL(), QPS: -1})
	if err != nil {
		t.Fatal(err)
	}
	defer c.CloseIdleConnections()
	var log syncbuf.Buffer
	f := informer.NewFactory(c, informer.FactoryOptions{ShutdownTimeout: time.Millisecond, Logger: zerolog.New(&log)})
	entered, release := make(chan struct{}), make(chan struct{})
	var once sync.Once
	h := processor.HandlerFuncs[*api.Pod]{AddFunc: func(*api.Pod, bool) {
		once.Do(func() { close(entered) })
		<-release
	}}
	if _, err := informer.For[api.Pod](f, rest.Pods).AddEventHandler(h, processor.HandlerOptions{Name: "stuck"}); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	f.Start(ctx)
	select {
	case <-entered:
	case <-ctx.Done():
		t.Fatal("the handler never got the pod")
	}
	down := make(chan struct{})
	go func() { f.Shutdown(); close(down) }()
	select {
	case <-down:
		close(release)
	case <-ctx.Done():
		close(release)
		<-down
		t.Fatal("Shutdown waited for the stuck handler: no shutdown timeout")
	}
	got := log.String()
	for _, want := range []string{`"informer":"pods"`, "informer stopped with errors", processor.ErrShutdownTimeout.Error()} {
		if !strings.Contains(got, want) {
			t.Errorf("factory log lacks %q:\n%s", want, got)
		}
	}
}
