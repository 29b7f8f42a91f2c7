package endpointset_test

import (
	"fmt"

	"github.com/kcmlab/kcm/ctrl/internal/endpointset"
	"github.com/kcmlab/kcm/kube/api"
)

// A pod's endpoint becomes not ready: it keeps its Key (the slice that
// holds it is updated in place) but differs beyond it (the slice needs a
// write).
func ExampleEqualBeyondKey() {
	ready, notReady := true, false
	ref := &api.ObjectReference{Kind: "Pod", Namespace: "shop", Name: "web-1"}
	before := api.Endpoint{Addresses: []string{"10.0.0.1"}, TargetRef: ref, Conditions: api.EndpointConditions{Ready: &ready}}
	after := api.Endpoint{Addresses: []string{"10.0.0.1"}, TargetRef: ref, Conditions: api.EndpointConditions{Ready: &notReady}}
	var desired endpointset.Set
	desired.Insert(&after)
	fmt.Println("same key:", endpointset.KeyOf(&before) == endpointset.KeyOf(&after))
	fmt.Println("found:", desired.Get(&before) == &after)
	fmt.Println("equal beyond key:", endpointset.EqualBeyondKey(&before, &after))
	// Output:
	// same key: true
	// found: true
	// equal beyond key: false
}
