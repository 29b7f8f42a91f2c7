//go:build !nocluster

package difftest

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/kcmlab/kcm/ctrl"
	"github.com/kcmlab/kcm/ctrl/resourcequota"
	"github.com/kcmlab/kcm/ctrl/serviceaccount"
)

// kcmResourceQuota is kube-controller-manager v1.37's name of the
// resource quota controller.
const kcmResourceQuota = "resourcequota-controller"

// TestResourceQuotaMatchesKCM runs the quota scenario under kcm's
// resourcequota and serviceaccount controllers and under
// kube-controller-manager's, each on a fresh cluster, and requires the same
// status.hard and status.used of every quota, strings as written, after
// each step — quotas created, objects created, a pod turned Succeeded,
// objects deleted — and the same quotas at the end.
func TestResourceQuotaMatchesKCM(t *testing.T) {
	sc := QuotaScenario()
	ctx, cancel := context.WithTimeout(context.Background(), 8*time.Minute)
	defer cancel()
	kcm := &InProcess{Descriptors: func() []*ctrl.ControllerDescriptor {
		return []*ctrl.ControllerDescriptor{serviceaccount.Descriptor(), resourcequota.Descriptor()}
	}}
	ref := &KubeControllerManager{Controllers: []string{kcmServiceAccount, kcmResourceQuota}}
	ra, rb := record(ctx, t, kcm, sc), record(ctx, t, ref, sc)
	for side, r := range map[string]*Recording{"kcm": ra[sc.Name], "kube-controller-manager": rb[sc.Name]} {
		var states []string
		for _, s := range r.Timeline.States {
			states = append(states, "["+s.Phase+"] "+s.State)
		}
		t.Logf("%s, quota states:\n  %s", side, strings.Join(states, "\n  "))
		// The comparison must have something to compare: a state per
		// step, with compute usage, scoped counts and storage in them.
		all := strings.Join(states, "\n")
		if len(states) != 4 {
			t.Errorf("%s: %d states recorded, want 4", side, len(states))
		}
		for _, want := range []string{"compute hard{", "requests.cpu=", "gold.storageclass.storage.k8s.io/requests.storage=1Gi",
			"cross-namespace hard{pods=5} used{pods=1}", "services.nodeports="} {
			if !strings.Contains(all, want) {
				t.Errorf("%s: no state with %q", side, want)
			}
		}
	}
	compare(t, kcm, ref, ra, rb, nil, sc)
}
