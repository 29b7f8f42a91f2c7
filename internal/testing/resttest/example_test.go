package resttest_test

import (
	"context"
	"fmt"

	"github.com/kcmlab/kcm/internal/testing/resttest"
	"github.com/kcmlab/kcm/kube/api"
	"github.com/kcmlab/kcm/kube/api/decode"
	"github.com/kcmlab/kcm/kube/rest"
)

// A controller's writes, as a test sees them: a ConfigMap the server
// holds is updated from a stale copy (409) and from a fresh one; the
// second create of a pod fails by a fault; every request is recorded.
func Example() {
	s, err := resttest.Start(resttest.Options{})
	if err != nil {
		panic(err)
	}
	defer s.Close()
	resttest.Add(s, rest.ConfigMaps, &api.ConfigMap{ObjectMeta: api.ObjectMeta{Namespace: "ns", Name: "cfg", ResourceVersion: "7"}})
	s.Fail(resttest.On("create", "pods").Nth(2), resttest.Failure(500, "InternalError", "etcd timeout"))

	ctx := context.Background()
	cms := rest.NewResources(s.Client(), rest.ConfigMaps, decode.Typed[api.ConfigMap]()).InNamespace("ns")
	stale := &api.ConfigMap{ObjectMeta: api.ObjectMeta{Namespace: "ns", Name: "cfg", ResourceVersion: "6"}, Data: map[string]string{"k": "v"}}
	_, err = cms.Update(ctx, stale)
	fmt.Println("stale update:", rest.IsConflict(err))
	fresh, _ := cms.Get(ctx, "cfg")
	fresh.Data = map[string]string{"k": "v"}
	updated, err := cms.Update(ctx, fresh)
	fmt.Println("fresh update:", err, "resourceVersion", updated.ResourceVersion)

	pods := rest.NewResources(s.Client(), rest.Pods, decode.Typed[api.Pod]()).InNamespace("ns")
	for range 3 {
		p, err := pods.Create(ctx, &api.Pod{ObjectMeta: api.ObjectMeta{GenerateName: "web-"}})
		if err != nil {
			fmt.Println("create:", err)
			continue
		}
		fmt.Println("created", p.Name, p.UID)
	}
	for _, a := range s.Actions() {
		fmt.Println(a)
	}
	// Output:
	// stale update: true
	// fresh update: <nil> resourceVersion 8
	// created web-1 uid-2
	// create: POST /api/v1/namespaces/ns/pods: 500 InternalError: etcd timeout
	// created web-2 uid-3
	// update configmaps ns/cfg
	// get configmaps ns/cfg
	// update configmaps ns/cfg
	// create pods ns/web-*
	// create pods ns/web-*
	// create pods ns/web-*
}
