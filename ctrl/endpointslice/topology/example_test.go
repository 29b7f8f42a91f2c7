package topology_test

import (
	"fmt"

	"github.com/rs/zerolog"

	"github.com/kcmlab/kcm/ctrl/endpointslice/topology"
	"github.com/kcmlab/kcm/kube/api"
)

// A Service annotated topology-mode: Auto with four endpoints, three in
// zone-a and one in zone-b, on two zones of equal CPU: the cache hints one
// zone-a endpoint to zone-b, so each zone's clients get two. When the
// annotation goes away and the Service asks for PreferClose instead, each
// endpoint is hinted to its own zone again.
func Example() {
	ready := true
	node := func(name, zone string) *api.Node {
		n := &api.Node{ObjectMeta: api.ObjectMeta{Name: name, Labels: map[string]string{topology.LabelTopologyZone: zone}}}
		n.Status.Allocatable = api.ResourceList{"cpu": "4"}
		n.Status.Conditions = []api.NodeCondition{{Type: "Ready", Status: api.ConditionTrue}}
		return n
	}
	endpoint := func(ip, zone string) api.Endpoint {
		return api.Endpoint{Addresses: []string{ip}, Zone: &zone, Conditions: api.EndpointConditions{Ready: &ready}}
	}
	show := func(slices []*api.EndpointSlice, events []topology.Event) {
		for _, s := range slices {
			for _, e := range s.Endpoints {
				fmt.Printf("  %s in %s → hint %s\n", e.Addresses[0], *e.Zone, e.Hints.ForZones[0].Name)
			}
		}
		for _, ev := range events {
			fmt.Printf("  event %s %s: %s\n", ev.Type, ev.Reason, ev.Message)
		}
	}

	cache := topology.NewCache()
	cache.SetNodes(zerolog.Nop(), []*api.Node{node("n1", "zone-a"), node("n2", "zone-b")})

	slice := &api.EndpointSlice{ObjectMeta: api.ObjectMeta{Name: "web-x1", Namespace: "default"}, AddressType: api.AddressTypeIPv4,
		Endpoints: []api.Endpoint{endpoint("10.0.0.1", "zone-a"), endpoint("10.0.0.2", "zone-a"), endpoint("10.0.0.3", "zone-a"), endpoint("10.0.0.4", "zone-b")}}
	si := &topology.SliceInfo{ServiceKey: "default/web", AddressType: api.AddressTypeIPv4, ToCreate: []*api.EndpointSlice{slice}}
	annotations := map[string]string{topology.AnnotationTopologyMode: "Auto"}
	toCreate, _, events := topology.Apply(zerolog.Nop(), cache, annotations, nil, si)
	fmt.Println("topology-mode: Auto")
	show(toCreate, events)

	// The next sync: the slice is now the informer's, unchanged by the packing.
	preferClose := topology.TrafficDistributionPreferClose
	si = &topology.SliceInfo{ServiceKey: "default/web", AddressType: api.AddressTypeIPv4, Unchanged: toCreate}
	_, toUpdate, events := topology.Apply(zerolog.Nop(), cache, nil, &preferClose, si)
	fmt.Println("trafficDistribution: PreferClose")
	show(toUpdate, events)
	// Output:
	// topology-mode: Auto
	//   10.0.0.1 in zone-a → hint zone-b
	//   10.0.0.2 in zone-a → hint zone-a
	//   10.0.0.3 in zone-a → hint zone-a
	//   10.0.0.4 in zone-b → hint zone-b
	//   event Normal TopologyAwareHintsEnabled: Topology Aware Hints has been enabled, addressType: IPv4
	// trafficDistribution: PreferClose
	//   10.0.0.1 in zone-a → hint zone-a
	//   10.0.0.2 in zone-a → hint zone-a
	//   10.0.0.3 in zone-a → hint zone-a
	//   10.0.0.4 in zone-b → hint zone-b
	//   event Warning TopologyAwareHintsDisabled: Topology Aware Hints has been disabled, addressType: IPv4
}
