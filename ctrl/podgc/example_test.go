package podgc_test

import (
	"context"
	"fmt"
	"time"

	"github.com/kcmlab/kcm/clock"
	"github.com/kcmlab/kcm/ctrl/podgc"
	"github.com/kcmlab/kcm/informer"
	"github.com/kcmlab/kcm/internal/testing/resttest"
	"github.com/kcmlab/kcm/kube/api"
	"github.com/kcmlab/kcm/kube/rest"
	"github.com/kcmlab/kcm/store"
)

// ExampleController_Pass: three passes of the collector on a fake clock.
// The cache holds two finished pods (the threshold is 1: the older goes
// in the first pass) and a running pod bound to node "gone", which neither the
// cache nor the apiserver has. That pod waits out the quarantine (40s);
// the pass after it asks the apiserver, is told 404, marks the pod
// Failed with the DisruptionTarget condition and deletes it. The
// apiserver is kcm's recording fake.
func ExampleController_Pass() {
	clk := clock.NewFake(time.Date(2026, 12, 6, 12, 0, 0, 0, time.UTC))
	apiserver, err := resttest.Start(resttest.Options{Clock: clk})
	if err != nil {
		panic(err)
	}
	defer apiserver.Close()
	created := func(ago time.Duration) api.ObjectMeta {
		return api.ObjectMeta{Namespace: "ns", CreationTimestamp: api.NewTime(clk.Now().Add(-ago))}
	}
	old, recent, orphan := created(time.Hour), created(time.Minute), created(time.Minute)
	old.Name, old.UID, recent.Name, recent.UID, orphan.Name, orphan.UID = "job-1", "u1", "job-2", "u2", "web", "u3"
	resttest.Add(apiserver, rest.Pods,
		&api.Pod{ObjectMeta: old, Status: api.PodStatus{Phase: api.PodSucceeded}},
		&api.Pod{ObjectMeta: recent, Status: api.PodStatus{Phase: api.PodSucceeded}},
		&api.Pod{ObjectMeta: orphan, Spec: api.PodSpec{NodeName: "gone"}, Status: api.PodStatus{Phase: api.PodRunning}})

	// The pod cache: a store the example refreshes from the apiserver
	// before each pass, as an informer would.
	pods := store.New(store.Options[*api.Pod]{Indexers: store.BuiltinIndexers[*api.Pod]()})
	c := podgc.NewController(informer.PodLister{Lister: informer.NewLister(pods.View(), "pods")},
		informer.NodeLister{Lister: resttest.Lister[*api.Node]("nodes")},
		apiserver.Client(), podgc.Config{Clock: clk, TerminatedPodGCThreshold: 1})
	for _, at := range []time.Duration{0, 20 * time.Second, 20 * time.Second} {
		clk.Step(at)
		pods.Replace(resttest.List[*api.Pod](apiserver, rest.Pods, ""))
		c.Pass(context.Background())
		fmt.Printf("pass at %s:\n", clk.Now().Format(time.TimeOnly))
		for _, a := range apiserver.Take() {
			fmt.Println(" ", a)
		}
	}
	// Output:
	// pass at 12:00:00:
	//   delete pods ns/job-1 grace=0
	// pass at 12:00:20:
	// pass at 12:00:40:
	//   get nodes gone
	//   patch pods/status ns/web strategic {"metadata":{"uid":"u3"},"status":{"conditions":[{"type":"DisruptionTarget","status":"True","lastProbeTime":null,"lastTransitionTime":"2026-12-06T12:00:40Z","reason":"DeletionByPodGC","message":"PodGC: node no longer exists"}],"phase":"Failed"}}
	//   delete pods ns/web grace=0
}
