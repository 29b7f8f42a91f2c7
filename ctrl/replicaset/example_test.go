package replicaset_test

import (
	"context"
	"fmt"
	"slices"

	"github.com/kcmlab/kcm/ctrl/replicaset"
	"github.com/kcmlab/kcm/informer"
	"github.com/kcmlab/kcm/internal/testing/resttest"
	"github.com/kcmlab/kcm/kube/api"
	"github.com/kcmlab/kcm/kube/rest"
)

// A new ReplicaSet of 3 and no pods yet: one sync creates 3 pods (slow
// start: a batch of 1, then of 2) and writes the status it saw. The
// apiserver is kcm's recording fake, which names the pods.
func ExampleController_Sync() {
	apiserver, err := resttest.Start(resttest.Options{})
	if err != nil {
		panic(err)
	}
	defer apiserver.Close()

	three := int32(3)
	rs := &api.ReplicaSet{
		ObjectMeta: api.ObjectMeta{Name: "web", Namespace: "ns", UID: "u1", Generation: 1},
		Spec: api.ReplicaSetSpec{Replicas: &three,
			Selector: &api.LabelSelector{MatchLabels: map[string]string{"app": "web"}},
			Template: api.PodTemplateSpec{ObjectMeta: api.ObjectMeta{Labels: map[string]string{"app": "web"}},
				Spec: api.PodSpec{Containers: []api.Container{{Name: "web", Image: "nginx"}}}}},
	}
	resttest.Add(apiserver, rest.ReplicaSets, rs)
	events := &resttest.Events{}
	c := replicaset.NewController(
		informer.ReplicaSetLister{Lister: resttest.Lister("replicasets", rs)},
		informer.PodLister{Lister: resttest.Lister[*api.Pod]("pods")},
		apiserver.Client(), replicaset.Config{Recorder: events})

	_, err = c.Sync(context.Background(), "ns/web")
	for _, a := range apiserver.Actions() {
		line := a.String()
		if a.Subresource == "status" {
			st, _ := resttest.Decode[*api.ReplicaSet](a)
			line += fmt.Sprintf(" replicas=%d observedGeneration=%d", st.Status.Replicas, st.Status.ObservedGeneration)
		}
		fmt.Println(line)
	}
	lines := events.Lines()
	slices.Sort(lines)
	for _, l := range lines {
		fmt.Println("event:", l)
	}
	fmt.Println("error:", err)
	// Output:
	// create pods ns/web-*
	// create pods ns/web-*
	// create pods ns/web-*
	// update replicasets/status ns/web replicas=0 observedGeneration=1
	// event: Normal SuccessfulCreate Created pod: web-1
	// event: Normal SuccessfulCreate Created pod: web-2
	// event: Normal SuccessfulCreate Created pod: web-3
	// error: <nil>
}
