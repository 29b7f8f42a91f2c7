package monitorset_test

import (
	"context"
	"fmt"
	"time"

	"github.com/rs/zerolog"

	"github.com/kcmlab/kcm/clock"
	"github.com/kcmlab/kcm/ctrl/internal/monitorset"
	"github.com/kcmlab/kcm/informer"
	"github.com/kcmlab/kcm/internal/testing/fakeapi"
	"github.com/kcmlab/kcm/kube/api"
	"github.com/kcmlab/kcm/kube/api/decode"
	"github.com/kcmlab/kcm/kube/rest"
	"github.com/kcmlab/kcm/processor"
	"github.com/kcmlab/kcm/store"
)

// Example: a set that monitors pods, counted per namespace in the
// monitor's store as the quota controller counts them; then discovery
// drops pods, and Lookup says the monitor is gone.
func Example() {
	pods := fakeapi.Resource{Version: "v1", Resource: "pods", Kind: "Pod"}
	srv := fakeapi.New(fakeapi.Options{Resources: []fakeapi.Resource{pods}})
	defer srv.Close()
	for _, p := range [][2]string{{"a", "p1"}, {"a", "p2"}, {"b", "p3"}} {
		if _, err := srv.Create(pods, map[string]any{"metadata": map[string]any{"namespace": p[0], "name": p[1], "uid": p[1]}}); err != nil {
			panic(err)
		}
	}
	client, err := rest.NewClient(&rest.Config{Host: srv.URL(), QPS: -1})
	if err != nil {
		panic(err)
	}
	defer client.CloseIdleConnections()

	set := monitorset.New(monitorset.Options[rest.Resource]{
		Client: client, Key: monitorset.ByResource, Codec: decode.Raw(),
		Indexers: store.BuiltinIndexers[*api.RawObject](store.IndexNamespace),
		Handler: func(rest.Resource) processor.Handler[*api.RawObject] {
			return processor.HandlerFuncs[*api.RawObject]{}
		},
		Owner: "example", HandlerName: "example", Clock: clock.Real{}, Logger: zerolog.Nop(),
	})
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	defer set.StopAll()

	next := map[rest.Resource]bool{rest.Pods: true}
	added, _ := monitorset.Diff(nil, next)
	fmt.Println("added", added)
	if err := set.Sync(next); err != nil {
		panic(err)
	}
	set.Start(ctx)
	informer.WaitForCacheSync(ctx, clock.Real{}, synced{set})
	mon, _ := set.Lookup(rest.Pods)
	for _, ns := range []string{"a", "b"} {
		n, _ := mon.Source().IndexLen(store.IndexNamespace, ns)
		fmt.Printf("pods in %s: %d\n", ns, n)
	}

	_, removed := monitorset.Diff(next, nil)
	fmt.Println("removed", removed)
	if err := set.Sync(nil); err != nil {
		panic(err)
	}
	mon, gone := set.Lookup(rest.Pods)
	fmt.Println("monitor:", mon != nil, "gone:", gone, "synced:", set.Synced())
	// Output:
	// added [pods.v1]
	// pods in a: 2
	// pods in b: 1
	// removed [pods.v1]
	// monitor: false gone: true synced: false
}

// synced adapts a set to informer.Synced.
type synced struct {
	s *monitorset.Set[rest.Resource]
}

func (s synced) HasSynced() bool { return s.s.Synced() }
func (synced) Name() string      { return "monitors" }
