package hashorder_test

import (
	"fmt"

	"github.com/kcmlab/kcm/ctrl/internal/hashorder"
	"github.com/kcmlab/kcm/kube/api"
)

// Two ports of an EndpointSlice, put in the order kube-controller-manager
// writes them: by the hash of their spew text, not by name or number.
func ExampleSort() {
	port := func(name string, num int32) api.EndpointSlicePort {
		proto := "TCP"
		return api.EndpointSlicePort{Name: &name, Port: &num, Protocol: &proto}
	}
	ports := []api.EndpointSlicePort{port("http", 80), port("https", 443)}
	hashorder.Sort(ports, hashorder.SlicePortText)
	for _, p := range ports {
		fmt.Println(*p.Name, *p.Port)
	}
	fmt.Println(hashorder.SlicePortText(ports[0]))
	// Output:
	// https 443
	// http 80
	// (v1.EndpointPort){Name:(*string)https Protocol:(*v1.Protocol)TCP Port:(*int32)443 AppProtocol:(*string)<nil>}
}
