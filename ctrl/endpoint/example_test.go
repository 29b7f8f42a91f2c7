package endpoint_test

import (
	"context"
	"fmt"

	"github.com/kcmlab/kcm/ctrl/endpoint"
	"github.com/kcmlab/kcm/informer"
	"github.com/kcmlab/kcm/internal/testing/resttest"
	"github.com/kcmlab/kcm/kube/api"
	"github.com/kcmlab/kcm/kube/rest"
)

// ExampleController_Sync: a Service selecting app=web and two of its
// pods, one ready and one not. One sync creates the Endpoints: the ready
// pod in addresses, the other in notReadyAddresses, both on the pods'
// port 8080. The apiserver is kcm's recording fake.
func ExampleController_Sync() {
	apiserver, err := resttest.Start(resttest.Options{})
	if err != nil {
		panic(err)
	}
	defer apiserver.Close()

	svc := &api.Service{ObjectMeta: api.ObjectMeta{Namespace: "shop", Name: "web"},
		Spec: api.ServiceSpec{Selector: map[string]string{"app": "web"}, ClusterIP: "10.96.0.20",
			Ports: []api.ServicePort{{Name: "http", Protocol: "TCP", Port: 80, TargetPort: api.IntOrStringFromInt(8080)}}}}
	mkPod := func(name, ip string, ready api.ConditionStatus) *api.Pod {
		return &api.Pod{ObjectMeta: api.ObjectMeta{Namespace: "shop", Name: name, Labels: map[string]string{"app": "web"}},
			Status: api.PodStatus{Phase: api.PodRunning, PodIP: ip, PodIPs: []api.PodIP{{IP: ip}},
				Conditions: []api.PodCondition{{Type: api.PodReady, Status: ready}}}}
	}
	c := endpoint.NewController(
		informer.ServiceLister{Lister: resttest.Lister("services", svc)},
		informer.PodLister{Lister: resttest.Lister("pods", mkPod("web-1", "10.0.0.1", api.ConditionTrue), mkPod("web-2", "10.0.0.2", api.ConditionFalse))},
		informer.EndpointsLister{Lister: resttest.Lister[*api.Endpoints]("endpoints")},
		apiserver.Client(), endpoint.Config{})

	_, err = c.Sync(context.Background(), "shop/web")
	fmt.Println("sync error:", err)
	for _, a := range apiserver.Actions() {
		fmt.Println(a)
	}
	e, _ := resttest.Get[*api.Endpoints](apiserver, rest.Endpoints, "shop", "web")
	for _, s := range e.Subsets {
		fmt.Println("ready:", s.Addresses[0].IP, "not ready:", s.NotReadyAddresses[0].IP, "port:", s.Ports[0].Port)
	}
	fmt.Println("managed by:", e.Labels[endpoint.LabelManagedBy])
	// Output:
	// sync error: <nil>
	// create endpoints shop/web
	// ready: 10.0.0.1 not ready: 10.0.0.2 port: 8080
	// managed by: endpoint-controller
}
