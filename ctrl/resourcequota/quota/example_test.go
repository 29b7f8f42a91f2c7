package quota_test

import (
	"fmt"
	"time"

	"github.com/kcmlab/kcm/clock"
	"github.com/kcmlab/kcm/ctrl/resourcequota/quota"
	"github.com/kcmlab/kcm/kube/api"
	"github.com/kcmlab/kcm/kube/api/resource"
)

// A quota's status.used, computed as the resourcequota controller does:
// the registry kube-controller-manager installs, over a namespace with a
// running pod, a succeeded one (it counts only as an object) and two
// ConfigMaps.
func ExampleCalculateUsage() {
	pods := []*api.Pod{
		{ObjectMeta: api.ObjectMeta{Name: "web", Namespace: "shop"}, Status: api.PodStatus{Phase: api.PodRunning},
			Spec: api.PodSpec{Containers: []api.Container{{Name: "web", Resources: api.ResourceRequirements{
				Requests: api.ResourceList{"cpu": "250m", "memory": "512Mi"}, Limits: api.ResourceList{"memory": "1Gi"}}}}}},
		{ObjectMeta: api.ObjectMeta{Name: "migrate", Namespace: "shop"}, Status: api.PodStatus{Phase: api.PodSucceeded},
			Spec: api.PodSpec{Containers: []api.Container{{Name: "migrate", Resources: api.ResourceRequirements{
				Requests: api.ResourceList{"cpu": "2"}}}}}},
	}
	r := quota.NewRegistry(
		func(string) ([]*api.Pod, error) { return pods, nil },
		func(string) ([]*api.Service, error) { return nil, nil },
		func(string) ([]*api.PersistentVolumeClaim, error) { return nil, nil },
		func(gr quota.GroupResource) quota.CountFunc {
			return func(string) (int, error) {
				if gr.Resource == "configmaps" {
					return 2, nil
				}
				return 0, nil
			}
		},
		clock.NewFake(time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)))
	hard, _ := resource.ParseList(api.ResourceList{"pods": "10", "count/pods": "20", "requests.cpu": "4",
		"requests.memory": "8Gi", "limits.memory": "16Gi", "configmaps": "5", "services": "2"})
	used, err := quota.CalculateUsage("shop", nil, hard, r, nil)
	if err != nil {
		fmt.Println(err)
		return
	}
	s := used.Strings()
	for _, name := range quota.ResourceNames(used) {
		fmt.Printf("%s=%s\n", name, s[name])
	}
	// Output:
	// configmaps=2
	// count/pods=2
	// limits.memory=1Gi
	// pods=1
	// requests.cpu=250m
	// requests.memory=512Mi
	// services=0
}
