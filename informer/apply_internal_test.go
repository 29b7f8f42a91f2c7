package informer

import (
	"context"
	"slices"
	"sync"
	"testing"
	"testing/synctest"

	"github.com/kcmlab/kcm/kube/api"
	"github.com/kcmlab/kcm/processor"
)

func podAt(name, rv string) *api.Pod {
	return &api.Pod{ObjectMeta: api.ObjectMeta{Namespace: "ns", Name: name, ResourceVersion: rv}}
}

// A watch DELETE of a key that a pending relist already dropped reaches
// the apply loop after the relist's swap (the FIFO queues every Delete
// while a ReplacedAll is pending): the handlers heard of the key's end
// with the swap, and are not told twice.
func TestDeleteAfterTheSwapDroppedTheKeyIsNotNotified(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		inf, err := New[*api.Pod](staticLW{}, Options[*api.Pod]{Name: "pods"})
		if err != nil {
			t.Fatal(err)
		}
		var mu sync.Mutex
		var notes []string
		note := func(s string) { mu.Lock(); notes = append(notes, s); mu.Unlock() }
		if _, err := inf.AddEventHandler(processor.HandlerFuncs[*api.Pod]{
			AddFunc:    func(o *api.Pod, _ bool) { note("add " + o.Name + "@" + o.ResourceVersion) },
			UpdateFunc: func(_, o *api.Pod) { note("update " + o.Name + "@" + o.ResourceVersion) },
			DeleteFunc: func(o *api.Pod, _ bool) { note("delete " + o.Name + "@" + o.ResourceVersion) },
		}, processor.HandlerOptions{Name: "notes"}); err != nil {
			t.Fatal(err)
		}
		ctx, cancel := context.WithCancel(context.Background())
		done := make(chan error)
		go func() { done <- inf.proc.Run(ctx) }()
		apply := func() {
			for inf.fifo.Queued() > 0 {
				if err := inf.fifo.Pop(ctx, 100, inf.applyBatch); err != nil {
					t.Fatal(err)
				}
			}
		}
		must := func(err error) {
			if err != nil {
				t.Fatal(err)
			}
		}
		must(inf.fifo.Replace([]*api.Pod{podAt("a", "5"), podAt("y", "6")}, "10"))
		apply()
		must(inf.fifo.Replace([]*api.Pod{podAt("a", "5")}, "20")) // the relist: y is gone
		must(inf.fifo.Delete(podAt("y", "21")))                   // y's DELETE, before the swap
		apply()
		synctest.Wait()
		mu.Lock()
		got := slices.Clone(notes)
		mu.Unlock()
		want := []string{"add a@5", "add y@6", "delete y@6", "update a@5"}
		if !slices.Equal(got, want) {
			t.Fatalf("handler heard %q, want %q", got, want)
		}
		if _, ok := inf.store.Get("ns/y"); ok || inf.LastStoreSyncResourceVersion() != "21" {
			t.Fatalf("store holds y: %v, at %q; want no y, at 21", ok, inf.LastStoreSyncResourceVersion())
		}
		cancel()
		<-done
	})
}
