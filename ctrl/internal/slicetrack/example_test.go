package slicetrack_test

import (
	"fmt"

	"github.com/kcmlab/kcm/ctrl/internal/endpointlabels"
	"github.com/kcmlab/kcm/ctrl/internal/slicetrack"
	"github.com/kcmlab/kcm/kube/api"
)

// A controller writes a slice at generation 1; the informer then delivers
// that write (an echo, no sync) and later someone else's change at
// generation 2 (a sync). Listing the slice at generation 0 after the
// write means the cache is behind.
func Example() {
	t := slicetrack.New()
	slice := func(gen int64) *api.EndpointSlice {
		return &api.EndpointSlice{ObjectMeta: api.ObjectMeta{Namespace: "shop", Name: "web-abc", UID: "u1", Generation: gen,
			Labels: map[string]string{endpointlabels.LabelServiceName: "web"}}}
	}
	svc := &api.Service{ObjectMeta: api.ObjectMeta{Namespace: "shop", Name: "web"}}
	t.Update(slice(1))
	fmt.Println("echo syncs:", t.ShouldSync(slice(1)))
	fmt.Println("other writer's change syncs:", t.ShouldSync(slice(2)))
	fmt.Println("cache behind:", t.StaleSlices(svc, []*api.EndpointSlice{slice(0)}))
	// Output:
	// echo syncs: false
	// other writer's change syncs: true
	// cache behind: true
}
