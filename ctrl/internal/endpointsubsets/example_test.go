package endpointsubsets_test

import (
	"fmt"

	"github.com/kcmlab/kcm/ctrl/internal/endpointsubsets"
	"github.com/kcmlab/kcm/kube/api"
)

// Two pods serve port 80, one of them not ready on it; the first also
// serves 443. Repacked, each port set gets its subset, and the pod that
// is not ready on 80 is not ready wherever it shares that subset.
func ExampleRepack() {
	a := api.EndpointAddress{IP: "10.0.0.1"}
	b := api.EndpointAddress{IP: "10.0.0.2"}
	http := api.EndpointPort{Name: "http", Port: 80, Protocol: "TCP"}
	https := api.EndpointPort{Name: "https", Port: 443, Protocol: "TCP"}
	in := []api.EndpointSubset{
		{Addresses: []api.EndpointAddress{a}, Ports: []api.EndpointPort{http, https}},
		{NotReadyAddresses: []api.EndpointAddress{b}, Ports: []api.EndpointPort{http}},
	}
	for _, s := range endpointsubsets.Repack(in) {
		fmt.Print("ready")
		for _, x := range s.Addresses {
			fmt.Print(" ", x.IP)
		}
		fmt.Print("; not ready")
		for _, x := range s.NotReadyAddresses {
			fmt.Print(" ", x.IP)
		}
		fmt.Print("; ports")
		for _, p := range s.Ports {
			fmt.Print(" ", p.Port)
		}
		fmt.Println()
	}
	// Output:
	// ready 10.0.0.1; not ready 10.0.0.2; ports 80
	// ready 10.0.0.1; not ready; ports 443
}
