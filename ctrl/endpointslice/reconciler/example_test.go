package reconciler_test

import (
	"context"
	"fmt"
	"time"

	"github.com/kcmlab/kcm/ctrl/endpointslice/reconciler"
	"github.com/kcmlab/kcm/internal/testing/resttest"
	"github.com/kcmlab/kcm/kube/api"
	"github.com/kcmlab/kcm/kube/rest"
)

// ExampleReconciler_Reconcile: a Service selecting three pods, one of
// them terminating. The first reconcile creates one slice; the second,
// from the slices the first wrote, writes nothing. The apiserver is kcm's
// recording fake.
func ExampleReconciler_Reconcile() {
	apiserver, err := resttest.Start(resttest.Options{})
	if err != nil {
		panic(err)
	}
	defer apiserver.Close()

	svc := &api.Service{ObjectMeta: api.ObjectMeta{Namespace: "shop", Name: "web", UID: "u1"},
		Spec: api.ServiceSpec{Selector: map[string]string{"app": "web"}, ClusterIP: "10.96.0.20", IPFamilies: []string{"IPv4"},
			Ports: []api.ServicePort{{Name: "http", Protocol: "TCP", Port: 80, TargetPort: api.IntOrStringFromInt(8080)}}}}
	mkPod := func(name, ip string, deleting bool) *api.Pod {
		p := &api.Pod{ObjectMeta: api.ObjectMeta{Namespace: "shop", Name: name, Labels: map[string]string{"app": "web"}},
			Status: api.PodStatus{Phase: api.PodRunning, PodIP: ip, PodIPs: []api.PodIP{{IP: ip}},
				Conditions: []api.PodCondition{{Type: api.PodReady, Status: api.ConditionTrue}}}}
		if deleting {
			p.DeletionTimestamp = &api.Time{Time: time.Unix(0, 0)}
		}
		return p
	}
	pods := []*api.Pod{mkPod("web-1", "10.0.0.1", false), mkPod("web-2", "10.0.0.2", false), mkPod("web-3", "10.0.0.3", true)}
	r := reconciler.New(reconciler.Config{Client: apiserver.Client()})

	err = r.Reconcile(context.Background(), svc, pods, nil, time.Time{})
	fmt.Println("first reconcile:", err, resttest.Lines(apiserver.Take()))
	slices := resttest.List[*api.EndpointSlice](apiserver, rest.EndpointSlices, "shop")
	for _, s := range slices {
		fmt.Println(s.Name, s.AddressType, s.Labels[reconciler.LabelServiceName], s.Labels[reconciler.LabelManagedBy])
		for _, ep := range s.Endpoints {
			fmt.Println(" ", ep.Addresses[0], "ready", *ep.Conditions.Ready, "serving", *ep.Conditions.Serving, "terminating", *ep.Conditions.Terminating)
		}
	}
	err = r.Reconcile(context.Background(), svc, pods, slices, time.Time{})
	fmt.Println("second reconcile:", err, len(apiserver.Take()), "actions")
	// Output:
	// first reconcile: <nil> [create endpointslices shop/web-*]
	// web-1 IPv4 web endpointslice-controller.k8s.io
	//   10.0.0.1 ready true serving true terminating false
	//   10.0.0.2 ready true serving true terminating false
	//   10.0.0.3 ready false serving true terminating true
	// second reconcile: <nil> 0 actions
}
