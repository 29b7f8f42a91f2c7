package hintdiff_test

import (
	"fmt"

	"github.com/kcmlab/kcm/bench/hintdiff"
)

// Two zones of equal CPU and three ready endpoints in zone za, one in zb:
// Kubernetes and kcm both hint one za endpoint to zb.
func ExampleCheckAddHints() {
	ready := true
	ep := func(zone string) hintdiff.Endpoint { return hintdiff.Endpoint{Zone: zone, Ready: &ready} }
	c := hintdiff.Case{
		Nodes:    []hintdiff.Node{{Zone: "za", CPU: "2", Ready: true}, {Zone: "zb", CPU: "2000m", Ready: true}},
		ToCreate: []hintdiff.Slice{{Name: "web-1", Endpoints: []hintdiff.Endpoint{ep("za"), ep("za"), ep("za"), ep("zb")}}},
	}
	fmt.Println(hintdiff.CheckAddHints(c, 1))
	// Output:
	// <nil>
}
