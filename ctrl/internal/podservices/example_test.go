package podservices_test

import (
	"fmt"
	"maps"
	"slices"

	"github.com/kcmlab/kcm/ctrl/internal/podservices"
	"github.com/kcmlab/kcm/informer"
	"github.com/kcmlab/kcm/internal/testing/resttest"
	"github.com/kcmlab/kcm/kube/api"
)

// A pod relabelled from app=web to app=api concerns the Service it left
// and the one it joined, not the one that selects every pod.
func ExampleForUpdate() {
	svc := func(name string, selector map[string]string) *api.Service {
		return &api.Service{ObjectMeta: api.ObjectMeta{Namespace: "shop", Name: name}, Spec: api.ServiceSpec{Selector: selector}}
	}
	services := informer.ServiceLister{Lister: resttest.Lister("services",
		svc("web", map[string]string{"app": "web"}), svc("api", map[string]string{"app": "api"}), svc("all", map[string]string{}))}
	old := &api.Pod{ObjectMeta: api.ObjectMeta{Namespace: "shop", Name: "p", ResourceVersion: "1", Labels: map[string]string{"app": "web"}}}
	cur := &api.Pod{ObjectMeta: api.ObjectMeta{Namespace: "shop", Name: "p", ResourceVersion: "2", Labels: map[string]string{"app": "api"}}}
	fmt.Println(slices.Sorted(maps.Keys(podservices.ForUpdate(services, old, cur))))
	// Output:
	// [shop/api shop/web]
}
