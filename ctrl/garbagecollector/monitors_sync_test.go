package garbagecollector

import (
	"context"
	"sync"
	"testing"
	"time"

	"github.com/rs/zerolog"

	"github.com/kcmlab/kcm/clock"
	"github.com/kcmlab/kcm/informer"
	"github.com/kcmlab/kcm/internal/testing/fakeapi"
	"github.com/kcmlab/kcm/kube/api"
	"github.com/kcmlab/kcm/kube/rest"
	"github.com/kcmlab/kcm/processor"
)

// TestMonitorSyncedWhenGraphHandlerIs: a monitor has synced once the
// graph's handler has taken its informer's initial list, not as soon as
// the informer has: while the handler is still in the first OnAdd, the
// collector is not synced.
func TestMonitorSyncedWhenGraphHandlerIs(t *testing.T) {
	pods := fakeapi.Resource{Version: "v1", Resource: "pods", Kind: "Pod"}
	srv := fakeapi.New(fakeapi.Options{Resources: []fakeapi.Resource{pods}})
	defer srv.Close()
	if _, err := srv.Create(pods, map[string]any{"metadata": map[string]any{"namespace": "ns", "name": "a", "uid": "u1"}}); err != nil {
		t.Fatal(err)
	}
	client, err := rest.NewClient(&rest.Config{Host: srv.URL(), QPS: -1})
	if err != nil {
		t.Fatal(err)
	}
	defer client.CloseIdleConnections()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()

	entered, release := make(chan struct{}), make(chan struct{})
	var once sync.Once
	m := newMonitors(client, func(rest.Resource) processor.Handler[*api.RawObject] {
		return processor.HandlerFuncs[*api.RawObject]{AddFunc: func(*api.RawObject, bool) {
			once.Do(func() { close(entered) })
			<-release
		}}
	}, nil, clock.Real{}, zerolog.Nop())
	if err := m.Sync(map[rest.Resource]bool{rest.Pods: true}); err != nil {
		t.Fatal(err)
	}
	m.Start(ctx)
	defer m.StopAll()
	select {
	case <-entered:
	case <-ctx.Done():
		close(release)
		t.Fatal("the graph handler never got the pod")
	}
	mon, _ := m.Lookup(rest.Pods)
	inf := mon.Source()
	if !informer.WaitForCacheSync(ctx, clock.Real{}, inf)[inf.Name()] {
		close(release)
		t.Fatal("the monitor's informer never synced")
	}
	if m.Synced() || m.ResourceSynced(rest.Pods) {
		close(release)
		t.Fatal("monitors synced while the graph handler has not taken the initial list: they wait on the informer, not the registration")
	}
	close(release)
	if !informer.WaitForCacheSync(ctx, clock.Real{}, syncedFunc{"monitors", m.Synced})["monitors"] {
		t.Fatal("the monitors never synced after the handler returned")
	}
}
