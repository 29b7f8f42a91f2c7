package tainteviction_test

import (
	"fmt"
	"time"

	"github.com/kcmlab/kcm/ctrl/tainteviction"
	"github.com/kcmlab/kcm/kube/api"
)

// Decide on a node the node lifecycle controller found unreachable: a pod
// without a toleration goes at once, the default five-minute toleration
// (DefaultTolerationSeconds admission) gives the node 300 s to come back,
// and a toleration without tolerationSeconds keeps the pod.
func ExampleDecide() {
	now := time.Date(2026, 12, 6, 12, 0, 0, 0, time.UTC)
	taints := []api.Taint{
		{Key: api.TaintNodeUnreachable, Effect: api.TaintEffectNoExecute},
		{Key: api.TaintNodeUnreachable, Effect: api.TaintEffectNoSchedule},
	}
	fiveMinutes := int64(300)
	for _, pod := range []struct {
		name        string
		tolerations []api.Toleration
	}{
		{"web", nil},
		{"api", []api.Toleration{{Key: api.TaintNodeUnreachable, Operator: api.TolerationOpExists,
			Effect: api.TaintEffectNoExecute, TolerationSeconds: &fiveMinutes}}},
		{"agent", []api.Toleration{{Operator: api.TolerationOpExists}}},
	} {
		d := tainteviction.Decide(taints, pod.tolerations, now)
		switch d.Verdict {
		case tainteviction.EvictAt:
			fmt.Printf("%s: %s in %v\n", pod.name, d.Verdict, d.At.Sub(now))
		default:
			fmt.Printf("%s: %s\n", pod.name, d.Verdict)
		}
	}
	// Output:
	// web: EvictNow
	// api: EvictAt in 5m0s
	// agent: Tolerated
}
