package quota_test

import (
	"testing"
	"time"

	"github.com/kcmlab/kcm/ctrl/resourcequota/quota"
	"github.com/kcmlab/kcm/kube/api"
)

// TestPodUsage: what one pod counts for, rule by rule (Kubernetes'
// PodUsageFunc, podComputeUsageHelper and component-helpers'
// PodRequests/PodLimits with status resources and pod-level resources on,
// as 1.37's feature gates default).
func TestPodUsage(t *testing.T) {
	always := func(p *api.Pod) {}
	for _, c := range []struct {
		name string
		rule string
		pod  *api.Pod
		want string
	}{
		{"no resources", "every pod is count/pods 1 and pods 1",
			mkPod("a", []api.Container{ctr("c", "", "")}, always),
			"count/pods=1,pods=1"},
		{"containers sum", "requests and limits sum over containers; bare names are requests",
			mkPod("a", []api.Container{ctr("c1", "cpu=100m,memory=1Gi", "cpu=1,memory=1Gi"), ctr("c2", "cpu=200m,memory=512Mi", "memory=1Gi")}),
			"count/pods=1,pods=1,cpu=300m,requests.cpu=300m,limits.cpu=1,memory=1536Mi,requests.memory=1536Mi,limits.memory=2Gi"},
		{"ephemeral storage", "ephemeral-storage counts like cpu and memory",
			mkPod("a", []api.Container{ctr("c", "ephemeral-storage=1Gi", "ephemeral-storage=2Gi")}),
			"count/pods=1,pods=1,ephemeral-storage=1Gi,requests.ephemeral-storage=1Gi,limits.ephemeral-storage=2Gi"},
		{"init containers maximum", "init containers run one at a time: the pod needs their maximum if it is larger",
			mkPod("a", []api.Container{ctr("c1", "cpu=100m", ""), ctr("c2", "cpu=100m", "")}, inits(ctr("i1", "cpu=500m", "cpu=2"), ctr("i2", "cpu=50m", ""))),
			"count/pods=1,pods=1,cpu=500m,requests.cpu=500m,limits.cpu=2"},
		{"init smaller than containers", "the containers' sum wins when larger",
			mkPod("a", []api.Container{ctr("c1", "memory=1Gi", ""), ctr("c2", "memory=1Gi", "")}, inits(ctr("i", "memory=1Gi", ""))),
			"count/pods=1,pods=1,memory=2Gi,requests.memory=2Gi"},
		{"sidecars", "a restartable init container runs beside later init containers and the containers",
			mkPod("a", []api.Container{ctr("c", "cpu=200m", "")}, inits(sidecar("s", "cpu=100m", ""), ctr("i", "cpu=300m", ""))),
			"count/pods=1,pods=1,cpu=400m,requests.cpu=400m"},
		{"sidecar after init", "an init container before a sidecar does not run beside it",
			mkPod("a", []api.Container{ctr("c", "cpu=200m", "")}, inits(ctr("i", "cpu=300m", ""), sidecar("s", "cpu=100m", ""))),
			"count/pods=1,pods=1,cpu=300m,requests.cpu=300m"},
		{"overhead", "the pod overhead adds to every request, and to limits that are set",
			mkPod("a", []api.Container{ctr("c", "cpu=100m", "cpu=1")}, func(p *api.Pod) { p.Spec.Overhead = rl("cpu=10m,memory=64Mi") }),
			"count/pods=1,pods=1,cpu=110m,requests.cpu=110m,limits.cpu=1010m,memory=64Mi,requests.memory=64Mi"},
		{"pod-level resources", "pod-level cpu and memory replace the containers' totals",
			mkPod("a", []api.Container{ctr("c", "cpu=100m,memory=1Gi,ephemeral-storage=1Gi", "cpu=1")}, func(p *api.Pod) {
				p.Spec.Resources = &api.ResourceRequirements{Requests: rl("cpu=2"), Limits: rl("memory=4Gi")}
			}),
			"count/pods=1,pods=1,cpu=2,requests.cpu=2,limits.cpu=1,memory=1Gi,requests.memory=1Gi,limits.memory=4Gi,ephemeral-storage=1Gi,requests.ephemeral-storage=1Gi"},
		{"allocated larger", "the larger of spec and allocated requests counts (in-place resize)",
			mkPod("a", []api.Container{ctr("c", "cpu=100m", "cpu=1")}, func(p *api.Pod) {
				p.Status.ContainerStatuses = []api.ContainerStatus{{Name: "c", AllocatedResources: rl("cpu=300m"),
					Resources: &api.ResourceRequirements{Requests: rl("cpu=200m"), Limits: rl("cpu=2")}}}
			}),
			"count/pods=1,pods=1,cpu=300m,requests.cpu=300m,limits.cpu=2"},
		{"resize infeasible", "an Infeasible resize counts what is actuated and allocated, not the spec",
			mkPod("a", []api.Container{ctr("c", "cpu=4", "cpu=8")}, func(p *api.Pod) {
				p.Status.Conditions = []api.PodCondition{{Type: api.PodResizePending, Status: "True", Reason: api.PodReasonInfeasible}}
				p.Status.ContainerStatuses = []api.ContainerStatus{{Name: "c", AllocatedResources: rl("cpu=1"),
					Resources: &api.ResourceRequirements{Requests: rl("cpu=1"), Limits: rl("cpu=2")}}}
			}),
			"count/pods=1,pods=1,cpu=1,requests.cpu=1,limits.cpu=2"},
		{"hugepages", "hugepages requests count under their name and requests.<name>",
			mkPod("a", []api.Container{ctr("c", "hugepages-2Mi=4Mi,memory=1Gi", "hugepages-2Mi=4Mi,memory=1Gi")}),
			"count/pods=1,pods=1,hugepages-2Mi=4Mi,requests.hugepages-2Mi=4Mi,memory=1Gi,requests.memory=1Gi,limits.memory=1Gi"},
		{"extended resources", "extended and device-class resources count as requests.<name> only",
			mkPod("a", []api.Container{ctr("c", "example.com/gpu=2,deviceclass.resource.kubernetes.io/fast=1", "example.com/gpu=2")}),
			"count/pods=1,pods=1,requests.example.com/gpu=2,requests.deviceclass.resource.kubernetes.io/fast=1"},
		{"succeeded", "a terminal pod counts only as an object (QuotaV1Pod)",
			mkPod("a", []api.Container{ctr("c", "cpu=1", "")}, phase(api.PodSucceeded)),
			"count/pods=1"},
		{"failed", "a terminal pod counts only as an object (QuotaV1Pod)",
			mkPod("a", []api.Container{ctr("c", "cpu=1", "")}, phase(api.PodFailed)),
			"count/pods=1"},
		{"deleted within grace", "a deleted pod counts until its grace period is over",
			mkPod("a", []api.Container{ctr("c", "cpu=1", "")}, func(p *api.Pod) {
				p.DeletionTimestamp = &api.Time{Time: t0.Add(-10 * time.Second)}
				p.DeletionGracePeriodSeconds = ptr(int64(30))
			}),
			"count/pods=1,pods=1,cpu=1,requests.cpu=1"},
		{"deleted past grace", "a deleted pod past its grace period counts only as an object",
			mkPod("a", []api.Container{ctr("c", "cpu=1", "")}, func(p *api.Pod) {
				p.DeletionTimestamp = &api.Time{Time: t0.Add(-31 * time.Second)}
				p.DeletionGracePeriodSeconds = ptr(int64(30))
			}),
			"count/pods=1"},
		{"canonical sums", "sums print in apimachinery's canonical form, in the first term's format",
			mkPod("a", []api.Container{ctr("c1", "cpu=0.5,memory=1000M", ""), ctr("c2", "cpu=0.5,memory=1Gi", "")}),
			"count/pods=1,pods=1,cpu=1,requests.cpu=1,memory=2073741824,requests.memory=2073741824"},
	} {
		got, err := quota.PodUsage(c.pod, t0)
		if err != nil {
			t.Errorf("%s: %v", c.name, err)
			continue
		}
		equalLists(t, c.name+" ("+c.rule+")", got, rl(c.want))
	}
}

// TestPodCountsAtGraceBoundary: a deleted pod counts up to and including
// the instant its grace period ends, and not after (now.After(end)).
func TestPodCountsAtGraceBoundary(t *testing.T) {
	p := mkPod("a", nil, func(p *api.Pod) {
		p.DeletionTimestamp = &api.Time{Time: t0}
		p.DeletionGracePeriodSeconds = ptr(int64(30))
	})
	if !quota.PodCounts(p, t0.Add(30*time.Second)) || quota.PodCounts(p, t0.Add(30*time.Second+time.Nanosecond)) {
		t.Errorf("grace boundary: %v %v", quota.PodCounts(p, t0.Add(30*time.Second)), quota.PodCounts(p, t0.Add(30*time.Second+1)))
	}
	p.DeletionGracePeriodSeconds = nil
	if !quota.PodCounts(p, t0.Add(time.Hour)) {
		t.Error("a deleted pod without a grace period stopped counting")
	}
}

// TestPodUsageBadQuantity: a quantity that does not parse is an error,
// not a silent zero.
func TestPodUsageBadQuantity(t *testing.T) {
	if _, err := quota.PodUsage(mkPod("a", []api.Container{ctr("c", "cpu=lots", "")}), t0); err == nil {
		t.Error("no error for cpu=lots")
	}
}
