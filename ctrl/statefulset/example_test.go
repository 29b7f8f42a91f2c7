package statefulset_test

import (
	"context"
	"fmt"

	"github.com/kcmlab/kcm/ctrl/statefulset"
	"github.com/kcmlab/kcm/informer"
	"github.com/kcmlab/kcm/internal/testing/resttest"
	"github.com/kcmlab/kcm/kube/api"
	"github.com/kcmlab/kcm/kube/api/decode"
	"github.com/kcmlab/kcm/kube/rest"
)

// A new OrderedReady StatefulSet of 3 with no pods yet: one sync records
// the template as the set's first ControllerRevision, creates web-0 only
// (web-1 waits until web-0 is Running and Ready) and writes the status
// naming the revision. The apiserver is kcm's recording fake; the set is
// decoded from JSON, as a cache holds it.
func ExampleController_Sync() {
	apiserver, err := resttest.Start(resttest.Options{})
	if err != nil {
		panic(err)
	}
	defer apiserver.Close()

	set, err := decode.Typed[api.StatefulSet]().Decode([]byte(`{"apiVersion":"apps/v1","kind":"StatefulSet",
	"metadata":{"name":"web","namespace":"ns","uid":"u1","resourceVersion":"1","generation":1},
	"spec":{"replicas":3,"serviceName":"web","selector":{"matchLabels":{"app":"web"}},
	"template":{"metadata":{"labels":{"app":"web"}},"spec":{"containers":[{"name":"web","image":"nginx"}]}},
	"podManagementPolicy":"OrderedReady","updateStrategy":{"type":"RollingUpdate","rollingUpdate":{"partition":0}},
	"revisionHistoryLimit":10}}`))
	if err != nil {
		panic(err)
	}
	resttest.Add(apiserver, rest.StatefulSets, set)
	events := &resttest.Events{}
	c := statefulset.NewController(
		informer.StatefulSetLister{Lister: resttest.Lister("statefulsets", set)},
		informer.PodLister{Lister: resttest.Lister[*api.Pod]("pods")},
		informer.ControllerRevisionLister{Lister: resttest.Lister[*api.ControllerRevision]("controllerrevisions")},
		informer.PersistentVolumeClaimLister{Lister: resttest.Lister[*api.PersistentVolumeClaim]("persistentvolumeclaims")},
		apiserver.Client(), statefulset.Config{Recorder: events})

	_, err = c.Sync(context.Background(), "ns/web")
	for _, a := range apiserver.Actions() {
		line := a.String()
		if a.Subresource == "status" {
			st, _ := resttest.Decode[*api.StatefulSet](a)
			line += fmt.Sprintf(" replicas=%d currentRevision=%s updateRevision=%s observedGeneration=%d",
				st.Status.Replicas, st.Status.CurrentRevision, st.Status.UpdateRevision, st.Status.ObservedGeneration)
		}
		fmt.Println(line)
	}
	for _, l := range events.Lines() {
		fmt.Println("event:", l)
	}
	fmt.Println("error:", err)
	// Output:
	// create controllerrevisions ns/web-96fccfb96
	// create pods ns/web-0
	// update statefulsets/status ns/web replicas=0 currentRevision=web-96fccfb96 updateRevision=web-96fccfb96 observedGeneration=1
	// event: Normal SuccessfulCreate Create Pod web-0 in StatefulSet web successful
	// error: <nil>
}
