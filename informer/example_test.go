package informer_test

import (
	"context"
	"fmt"
	"time"

	"github.com/kcmlab/kcm/clock"
	"github.com/kcmlab/kcm/informer"
	"github.com/kcmlab/kcm/kube/api"
	"github.com/kcmlab/kcm/kube/labels"
	"github.com/kcmlab/kcm/kube/rest"
	"github.com/kcmlab/kcm/processor"
	"github.com/kcmlab/kcm/reflector"
)

// staticSource serves a fixed set of pods and then watches forever without
// events: just enough of an apiserver for an example. Like a current
// apiserver it does WatchList: asked for sendInitialEvents, the watch
// starts with the pods as ADDED events and a bookmark that ends them.
type staticSource struct{ pods []*api.Pod }

func (s staticSource) ListEach(_ context.Context, _ rest.ListOptions, fn func(*api.Pod) error) (rest.ListMeta, error) {
	for _, p := range s.pods {
		if err := fn(p); err != nil {
			return rest.ListMeta{}, err
		}
	}
	return rest.ListMeta{ResourceVersion: "10"}, nil
}

func (s staticSource) Watch(ctx context.Context, o rest.WatchOptions) (reflector.Watch[*api.Pod], error) {
	w := &quietWatch{ctx: ctx}
	if o.SendInitialEvents != nil && *o.SendInitialEvents {
		for _, p := range s.pods {
			w.initial = append(w.initial, rest.WatchEvent[*api.Pod]{Type: rest.Added, Object: p})
		}
		end := &api.Pod{ObjectMeta: api.ObjectMeta{ResourceVersion: "10",
			Annotations: map[string]string{rest.InitialEventsEndAnnotation: "true"}}}
		w.initial = append(w.initial, rest.WatchEvent[*api.Pod]{Type: rest.Bookmark, Object: end})
	}
	return w, nil
}

type quietWatch struct {
	ctx     context.Context
	initial []rest.WatchEvent[*api.Pod]
}

func (w *quietWatch) Next() (rest.WatchEvent[*api.Pod], error) {
	if len(w.initial) > 0 {
		ev := w.initial[0]
		w.initial = w.initial[1:]
		return ev, nil
	}
	<-w.ctx.Done()
	return rest.WatchEvent[*api.Pod]{}, w.ctx.Err()
}
func (*quietWatch) Close() error { return nil }

func examplePod(ns, name, app string) *api.Pod {
	return &api.Pod{ObjectMeta: api.ObjectMeta{Namespace: ns, Name: name, ResourceVersion: "10", Labels: map[string]string{"app": app}}}
}

// An informer over a source, a handler, and a lister query once synced.
func Example() {
	src := staticSource{pods: []*api.Pod{examplePod("shop", "web-0", "web"), examplePod("shop", "db-0", "db"), examplePod("blog", "web-0", "web")}}
	inf, err := informer.New[*api.Pod](src, informer.Options[*api.Pod]{Name: "pods"})
	if err != nil {
		panic(err)
	}
	added := make(chan string, 10)
	_, _ = inf.AddEventHandler(processor.HandlerFuncs[*api.Pod]{
		AddFunc: func(p *api.Pod, initial bool) { added <- fmt.Sprintf("add %s initial=%v", p.Key(), initial) },
	}, processor.HandlerOptions{Name: "printer"})

	ctx, cancel := context.WithCancel(context.Background())
	go inf.Run(ctx)
	for i := 0; i < 3; i++ {
		fmt.Println(<-added)
	}
	sctx, scancel := context.WithTimeout(ctx, 10*time.Second)
	defer scancel()
	if synced := informer.WaitForCacheSync(sctx, clock.Real{}, inf); !synced["pods"] {
		fmt.Println("not synced:", sctx.Err())
	}
	web, _ := labels.ParseSelector("app=web")
	for _, p := range inf.Lister().Namespace("shop").List(web) {
		fmt.Println("shop web pod:", p.Name)
	}
	if _, err := inf.Lister().Namespace("shop").Get("nope"); rest.IsNotFound(err) {
		fmt.Println("shop/nope: not found")
	}
	cancel()
	<-inf.Done()
	// Output:
	// add shop/web-0 initial=true
	// add shop/db-0 initial=true
	// add blog/web-0 initial=true
	// shop web pod: web-0
	// shop/nope: not found
}
