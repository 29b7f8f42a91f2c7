package processor_test

import (
	"context"
	"fmt"

	"github.com/kcmlab/kcm/kube/api"
	"github.com/kcmlab/kcm/processor"
)

func newPod(name, rv string) *api.Pod {
	return &api.Pod{ObjectMeta: api.ObjectMeta{Namespace: "default", Name: name, ResourceVersion: rv}}
}

// A handler added while the cache already holds a pod starts from that pod
// (isInitialList=true), then follows the live changes in store order.
func Example() {
	web1 := newPod("web", "1")
	cached := []*api.Pod{web1}
	p, err := processor.New(processor.Options[*api.Pod]{
		Name:   "pods",
		Lister: processor.ListFunc[*api.Pod](func() []*api.Pod { return cached }),
	})
	if err != nil {
		panic(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	stopped := make(chan error)
	go func() { stopped <- p.Run(ctx) }()

	lines := make(chan string, 10)
	reg, _ := p.AddHandler(processor.HandlerFuncs[*api.Pod]{
		AddFunc: func(pod *api.Pod, isInitialList bool) {
			lines <- fmt.Sprintf("add %s@%s initial=%v", pod.Key(), pod.ResourceVersion, isInitialList)
		},
		UpdateFunc: func(oldPod, newPod *api.Pod) {
			lines <- fmt.Sprintf("update %s@%s -> @%s", newPod.Key(), oldPod.ResourceVersion, newPod.ResourceVersion)
		},
		DeleteFunc: func(pod *api.Pod, finalStateUnknown bool) {
			lines <- fmt.Sprintf("delete %s@%s unknown=%v", pod.Key(), pod.ResourceVersion, finalStateUnknown)
		},
	}, processor.HandlerOptions{Name: "example"})

	// The informer's apply loop: write the store, then distribute.
	web2 := newPod("web", "2")
	p.Apply(func(emit func(processor.Notification[*api.Pod])) {
		cached = []*api.Pod{web2}
		emit(processor.UpdateNotification(web1, web2))
	})
	p.Apply(func(emit func(processor.Notification[*api.Pod])) {
		cached = nil
		emit(processor.DeleteNotification(web2, false))
	})

	for range 3 {
		fmt.Println(<-lines)
	}
	fmt.Println("synced:", reg.HasSynced())
	cancel()
	fmt.Println("run:", <-stopped)
	// Output:
	// add default/web@1 initial=true
	// update default/web@1 -> @2
	// delete default/web@2 unknown=false
	// synced: true
	// run: <nil>
}

// FilteringHandler turns an update that moves an object out of the filter
// into a delete for the inner handler.
func ExampleFilteringHandler() {
	running := func(p *api.Pod) bool { return p.Status.Phase == "Running" }
	h := processor.FilteringHandler[*api.Pod]{
		Filter: running,
		Handler: processor.HandlerFuncs[*api.Pod]{
			AddFunc:    func(p *api.Pod, _ bool) { fmt.Println("add", p.Name) },
			UpdateFunc: func(_, p *api.Pod) { fmt.Println("update", p.Name) },
			DeleteFunc: func(p *api.Pod, _ bool) { fmt.Println("delete", p.Name) },
		},
	}
	pending, up, done := newPod("job", "1"), newPod("job", "2"), newPod("job", "3")
	pending.Status.Phase, up.Status.Phase, done.Status.Phase = "Pending", "Running", "Succeeded"

	processor.UpdateNotification(pending, up).Deliver(h)
	processor.UpdateNotification(up, up).Deliver(h)
	processor.UpdateNotification(up, done).Deliver(h)
	// Output:
	// add job
	// update job
	// delete job
}
