package nodelifecycle_test

import (
	"fmt"

	"github.com/kcmlab/kcm/ctrl/nodelifecycle"
	"github.com/kcmlab/kcm/kube/api"
)

// ExampleComputeZoneState: the state of a zone from its nodes' Ready
// conditions, with the default --unhealthy-zone-threshold 0.55.
func ExampleComputeZoneState() {
	ready := &api.NodeCondition{Type: "Ready", Status: api.ConditionTrue}
	gone := &api.NodeCondition{Type: "Ready", Status: api.ConditionUnknown}
	for _, zone := range [][]*api.NodeCondition{
		{ready, ready, gone},             // one of three silent
		{ready, ready, gone, gone, gone}, // three of five: 0.6
		{gone, gone},                     // nobody Ready
	} {
		unhealthy, state := nodelifecycle.ComputeZoneState(zone, nodelifecycle.DefaultUnhealthyZoneThreshold)
		fmt.Println(unhealthy, state)
	}
	// Output:
	// 1 Normal
	// 3 PartialDisruption
	// 2 FullDisruption
}
