package endpointslicemirroring_test

import (
	"context"
	"fmt"

	"github.com/kcmlab/kcm/ctrl/endpointslicemirroring"
	"github.com/kcmlab/kcm/informer"
	"github.com/kcmlab/kcm/internal/testing/resttest"
	"github.com/kcmlab/kcm/kube/api"
	"github.com/kcmlab/kcm/kube/rest"
)

// ExampleController_Sync: a Service without a selector and the Endpoints
// its owner wrote by hand, one ready and one not-ready address on port
// 5432. One sync creates one EndpointSlice holding both, owned by the
// Endpoints and labelled as the mirroring controller's. The apiserver is
// kcm's recording fake.
func ExampleController_Sync() {
	apiserver, err := resttest.Start(resttest.Options{})
	if err != nil {
		panic(err)
	}
	defer apiserver.Close()

	svc := &api.Service{ObjectMeta: api.ObjectMeta{Namespace: "shop", Name: "db"},
		Spec: api.ServiceSpec{ClusterIP: "10.96.0.30", Ports: []api.ServicePort{{Name: "pg", Protocol: "TCP", Port: 5432}}}}
	eps := &api.Endpoints{ObjectMeta: api.ObjectMeta{Namespace: "shop", Name: "db", UID: "eps-uid"},
		Subsets: []api.EndpointSubset{{
			Addresses:         []api.EndpointAddress{{IP: "192.168.1.10"}},
			NotReadyAddresses: []api.EndpointAddress{{IP: "192.168.1.11"}},
			Ports:             []api.EndpointPort{{Name: "pg", Port: 5432, Protocol: "TCP"}},
		}}}
	c := endpointslicemirroring.NewController(
		informer.EndpointsLister{Lister: resttest.Lister("endpoints", eps)},
		informer.EndpointSliceLister{Lister: resttest.Lister[*api.EndpointSlice]("endpointslices")},
		informer.ServiceLister{Lister: resttest.Lister("services", svc)},
		apiserver.Client(), endpointslicemirroring.Config{})

	_, err = c.Sync(context.Background(), "shop/db")
	fmt.Println("sync error:", err)
	for _, a := range apiserver.Actions() {
		fmt.Println(a)
	}
	for _, s := range resttest.List[*api.EndpointSlice](apiserver, rest.EndpointSlices, "shop") {
		fmt.Println("slice:", s.Name, s.AddressType, "port", *s.Ports[0].Port)
		for _, ep := range s.Endpoints {
			fmt.Println("  endpoint:", ep.Addresses[0], "ready", *ep.Conditions.Ready)
		}
		fmt.Println("  managed by:", s.Labels[endpointslicemirroring.LabelManagedBy])
		fmt.Println("  owner:", s.OwnerReferences[0].Kind, s.OwnerReferences[0].Name)
	}
	// Output:
	// sync error: <nil>
	// create endpointslices shop/db-*
	// slice: db-1 IPv4 port 5432
	//   endpoint: 192.168.1.10 ready true
	//   endpoint: 192.168.1.11 ready false
	//   managed by: endpointslicemirroring-controller.k8s.io
	//   owner: Endpoints db
}
