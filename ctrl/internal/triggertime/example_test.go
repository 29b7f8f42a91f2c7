package triggertime_test

import (
	"fmt"
	"time"

	"github.com/kcmlab/kcm/ctrl/internal/triggertime"
	"github.com/kcmlab/kcm/kube/api"
)

// The first sync of a Service reports its creation; a later sync after a
// pod turned ready reports that pod's transition; a sync where nothing
// moved reports none.
func Example() {
	created := time.Date(2025, 9, 1, 8, 0, 0, 0, time.UTC)
	svc := &api.Service{ObjectMeta: api.ObjectMeta{Namespace: "shop", Name: "web", CreationTimestamp: api.NewTime(created)}}
	readyAt := func(d time.Duration) *api.Pod {
		return &api.Pod{ObjectMeta: api.ObjectMeta{Namespace: "shop", Name: "web-1"},
			Status: api.PodStatus{Conditions: []api.PodCondition{{Type: api.PodReady, Status: api.ConditionTrue,
				LastTransitionTime: api.NewTime(created.Add(d))}}}}
	}
	t := triggertime.New()
	fmt.Println(t.Compute("shop/web", svc, nil).Format(time.TimeOnly))
	fmt.Println(t.Compute("shop/web", svc, []*api.Pod{readyAt(time.Minute)}).Format(time.TimeOnly))
	fmt.Println(t.Compute("shop/web", svc, []*api.Pod{readyAt(time.Minute)}).IsZero())
	// Output:
	// 08:00:00
	// 08:01:00
	// true
}
