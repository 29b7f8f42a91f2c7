package endpointslice_test

import (
	"context"
	"fmt"
	"slices"
	"strings"

	"github.com/kcmlab/kcm/ctrl/endpointslice"
	"github.com/kcmlab/kcm/informer"
	"github.com/kcmlab/kcm/internal/testing/resttest"
	"github.com/kcmlab/kcm/kube/api"
	"github.com/kcmlab/kcm/kube/rest"
)

// ExampleController_Sync: a Service selecting app=web and two of its
// pods on node-1, one ready and one not. One sync creates one
// EndpointSlice: both pods as endpoints on port 8080, the second not
// ready. The apiserver is kcm's recording fake.
func ExampleController_Sync() {
	apiserver, err := resttest.Start(resttest.Options{})
	if err != nil {
		panic(err)
	}
	defer apiserver.Close()

	svc := &api.Service{ObjectMeta: api.ObjectMeta{Namespace: "shop", Name: "web", UID: "svc-1"},
		Spec: api.ServiceSpec{Selector: map[string]string{"app": "web"}, ClusterIP: "10.96.0.20", IPFamilies: []string{api.IPv4Protocol},
			Ports: []api.ServicePort{{Name: "http", Protocol: "TCP", Port: 80, TargetPort: api.IntOrStringFromInt(8080)}}}}
	mkPod := func(name, ip string, ready api.ConditionStatus) *api.Pod {
		return &api.Pod{ObjectMeta: api.ObjectMeta{Namespace: "shop", Name: name, Labels: map[string]string{"app": "web"}},
			Spec: api.PodSpec{NodeName: "node-1"},
			Status: api.PodStatus{Phase: api.PodRunning, PodIP: ip, PodIPs: []api.PodIP{{IP: ip}},
				Conditions: []api.PodCondition{{Type: api.PodReady, Status: ready}}}}
	}
	c := endpointslice.NewController(
		informer.ServiceLister{Lister: resttest.Lister("services", svc)},
		informer.PodLister{Lister: resttest.Lister("pods", mkPod("web-1", "10.0.0.1", api.ConditionTrue), mkPod("web-2", "10.0.0.2", api.ConditionFalse))},
		informer.EndpointSliceLister{Lister: resttest.Lister[*api.EndpointSlice]("endpointslices")},
		apiserver.Client(), endpointslice.Config{Nodes: resttest.Lister("nodes", &api.Node{ObjectMeta: api.ObjectMeta{Name: "node-1"}})})

	_, err = c.Sync(context.Background(), "shop/web")
	fmt.Println("sync error:", err)
	for _, a := range apiserver.Take() {
		fmt.Println(a)
	}
	for _, s := range resttest.List[*api.EndpointSlice](apiserver, rest.EndpointSlices, "shop") {
		fmt.Println("managed by:", s.Labels["endpointslice.kubernetes.io/managed-by"], "port:", *s.Ports[0].Port)
		var lines []string
		for _, e := range s.Endpoints {
			lines = append(lines, fmt.Sprint(e.Addresses[0], " ready: ", *e.Conditions.Ready))
		}
		slices.Sort(lines) // the endpoints' order in a slice is not part of the contract
		fmt.Println(strings.Join(lines, "\n"))
	}
	// Output:
	// sync error: <nil>
	// create endpointslices shop/web-*
	// managed by: endpointslice-controller.k8s.io port: 8080
	// 10.0.0.1 ready: true
	// 10.0.0.2 ready: false
}
