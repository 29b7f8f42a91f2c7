package deployment_test

import (
	"fmt"

	"github.com/kcmlab/kcm/ctrl/deployment"
	"github.com/kcmlab/kcm/kube/api"
	"github.com/kcmlab/kcm/kube/api/protocodec"
)

// A rolling update of 10 replicas with the default 25% bounds may run 13
// pods (surge rounds up) and must keep 8 available (unavailability rounds
// down); bounds of 0 and 0 would deadlock, so unavailability becomes 1.
func ExampleResolveFenceposts() {
	quarter := api.IntOrStringFromString("25%")
	surge, unavailable, _ := deployment.ResolveFenceposts(&quarter, &quarter, 10)
	fmt.Println(surge, unavailable)
	zero := api.IntOrStringFromInt(0)
	surge, unavailable, _ = deployment.ResolveFenceposts(&zero, &zero, 10)
	fmt.Println(surge, unavailable)
	// Output:
	// 3 2
	// 0 1
}

// The new ReplicaSet is found by template, the hash label ignored: a
// ReplicaSet labelled with kube-controller-manager's hash is current.
func ExampleEqualIgnoreHash() {
	fromDeployment := map[string]any{"metadata": map[string]any{"labels": map[string]any{"app": "web"}}}
	fromKCM := map[string]any{"metadata": map[string]any{"labels": map[string]any{"app": "web", "pod-template-hash": "5d8f9c7b6"}}}
	fmt.Println(deployment.EqualIgnoreHash(fromDeployment, fromKCM))
	// Output: true
}

// On protobuf the templates are messages: equal when their bytes are,
// the hash label taken out of both.
func ExampleEqualIgnoreHashProto() {
	tmpl := func(labels map[string]string) []byte {
		b, _ := protocodec.Marshal(&api.PodTemplateSpec{ObjectMeta: api.ObjectMeta{Labels: labels},
			Spec: api.PodSpec{Containers: []api.Container{{Name: "web", Image: "nginx:1"}}}})
		return b
	}
	fromDeployment := tmpl(map[string]string{"app": "web"})
	fromKCM := tmpl(map[string]string{"app": "web", "pod-template-hash": "5d8f9c7b6"})
	other := tmpl(map[string]string{"app": "api"})
	eq, _ := deployment.EqualIgnoreHashProto(fromDeployment, fromKCM)
	ne, _ := deployment.EqualIgnoreHashProto(fromDeployment, other)
	fmt.Println(eq, ne)
	// Output: true false
}
