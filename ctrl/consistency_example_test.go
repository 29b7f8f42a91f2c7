package ctrl_test

import (
	"errors"
	"fmt"

	"github.com/kcmlab/kcm/ctrl"
	"github.com/kcmlab/kcm/kube/rest"
)

// podCache stands for an informer's cache: the resourceVersion it is
// current at (informer.Informer and its Lister answer the same).
type podCache struct{ rv string }

func (c *podCache) LastStoreSyncResourceVersion() string { return c.rv }

// A controller records the resourceVersion of each write it makes for an
// owner; a sync of that owner waits until the cache has seen it.
func ExampleConsistency() {
	pods := &podCache{rv: "100"}
	podsGR := ctrl.GroupResourceOf(rest.Pods)
	c := ctrl.NewConsistency(map[ctrl.GroupResource]ctrl.ResourceVersionSource{podsGR: pods}, nil)

	c.WroteAt("ns/web", "uid-web", podsGR, "105") // the controller created a pod for ns/web
	err := c.EnsureReady("ns/web")
	fmt.Println(errors.Is(err, ctrl.ErrStale), err)

	pods.rv = "105" // the pod's ADDED event was applied
	fmt.Println(c.EnsureReady("ns/web"))
	// Output:
	// true read version: 100 is not as new as written version: 105 for group resource pods
	// <nil>
}
