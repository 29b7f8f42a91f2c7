package podgc

import (
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus/testutil"

	"github.com/kcmlab/kcm/internal/testing/resttest"
	"github.com/kcmlab/kcm/kube/api"
	"github.com/kcmlab/kcm/kube/rest"
)

// TestStatusPatchBeforeDelete follows upstream's
// TestGCInspectingPatchedPodBeforeDeletion: when the DELETE arrives, the
// apiserver already holds the pod Failed, with the DisruptionTarget
// condition (reason DeletionByPodGC, message "PodGC: node no longer
// exists", observedGeneration the pod's generation) and
// status.observedGeneration its generation; the pod's other conditions
// are kept; an earlier DisruptionTarget with the same status keeps its
// lastTransitionTime (podutil.UpdatePodCondition).
func TestStatusPatchBeforeDelete(t *testing.T) {
	earlier := api.NewTime(t0.Add(-time.Hour))
	withConditions := func(p *api.Pod) {
		p.Generation = 3
		p.Status.Conditions = []api.PodCondition{
			{Type: api.PodReady, Status: api.ConditionTrue, LastTransitionTime: earlier},
			{Type: api.DisruptionTarget, Status: api.ConditionTrue, Reason: "DeletionByTaintManager", LastTransitionTime: earlier},
		}
	}
	f := newFixture(t, Config{QuarantineTime: -1}, []*api.Pod{pod("a", time.Minute, onNode("gone"), withConditions),
		pod("b", time.Minute, onNode("gone"))}, nil)
	var atDelete []*api.Pod
	f.api.Intercept(resttest.On("delete", "pods"), func(a resttest.Action) error {
		p, ok := resttest.Get[*api.Pod](f.api, rest.Pods, a.Namespace, a.Name)
		if !ok {
			t.Errorf("pod %s gone before its delete", a.Name)
			return nil
		}
		atDelete = append(atDelete, p)
		return nil
	})
	f.pass()
	f.clock.Step(time.Second)
	f.pass()
	if len(atDelete) != 2 {
		t.Fatalf("%d pods deleted, want 2", len(atDelete))
	}
	now := api.NewTime(t0.Add(time.Second))
	for _, tc := range []struct {
		p          *api.Pod
		generation int64
		conditions []api.PodCondition
	}{
		{atDelete[0], 3, []api.PodCondition{
			{Type: api.PodReady, Status: api.ConditionTrue, LastTransitionTime: earlier},
			{Type: api.DisruptionTarget, ObservedGeneration: 3, Status: api.ConditionTrue, LastTransitionTime: earlier,
				Reason: ReasonDeletionByPodGC, Message: MessageNodeGone}}},
		{atDelete[1], 1, []api.PodCondition{{Type: api.DisruptionTarget, ObservedGeneration: 1, Status: api.ConditionTrue,
			LastTransitionTime: now, Reason: ReasonDeletionByPodGC, Message: MessageNodeGone}}},
	} {
		st := tc.p.Status
		if st.Phase != api.PodFailed || st.ObservedGeneration != tc.generation || !slices.EqualFunc(st.Conditions, tc.conditions, sameCondition) {
			t.Errorf("pod %s at its delete: phase %q observedGeneration %d conditions %+v\nwant Failed, %d, %+v",
				tc.p.Name, st.Phase, st.ObservedGeneration, st.Conditions, tc.generation, tc.conditions)
		}
	}
}

func sameCondition(a, b api.PodCondition) bool {
	return a.Type == b.Type && a.ObservedGeneration == b.ObservedGeneration && a.Status == b.Status &&
		a.LastTransitionTime.Equal(b.LastTransitionTime.Time) && a.Reason == b.Reason && a.Message == b.Message
}

// TestForceDeleteFailures: a failed status patch skips the pod's delete
// (markFailedAndDeletePodWithCondition returns before it); a failed
// delete, NotFound included, is an error too. Each attempt counts in
// pod_gc_collector_force_delete_pods_total and each failure in
// pod_gc_collector_force_delete_pod_errors_total, by namespace and rule;
// the pass goes on with the next pod.
func TestForceDeleteFailures(t *testing.T) {
	pods := []*api.Pod{
		pod("a", 3*time.Minute, phase(api.PodSucceeded)), pod("b", 2*time.Minute, phase(api.PodFailed)),
		pod("c", time.Minute, phase(api.PodFailed)),
		pod("u1", time.Minute, terminating), pod("u2", time.Minute, terminating, inNamespace("other")),
		pod("o", time.Minute, terminating, onNode("oos")),
	}
	f := newFixture(t, Config{TerminatedPodGCThreshold: 1}, pods, []*api.Node{node("oos", api.ConditionFalse, outOfService)})
	f.api.Fail(resttest.On("delete", "pods").Named("ns/a"), resttest.Failure(500, "InternalError", "etcd is slow"))
	f.api.Fail(resttest.On("patch", "pods/status").Named("ns/u1"), resttest.Failure(409, "Conflict", "uid precondition failed"))
	f.api.Fail(resttest.On("delete", "pods").Named("ns/o"), resttest.Failure(404, "NotFound", `pods "o" not found`))
	want := []string{deleteLine("a"), deleteLine("b"), patchLine("o"), deleteLine("o"), patchLine("u1"),
		"patch pods/status other/u2 strategic " + `{"metadata":{"uid":"uid-u2"},"status":{"phase":"Failed"}}`,
		"delete pods other/u2 grace=0"}
	if got := f.pass(); !slices.Equal(got, want) {
		t.Fatalf("requests\n%q\nwant\n%q", got, want)
	}
	if got, want := f.remaining(), []string{"ns/a", "ns/c", "ns/o", "ns/u1"}; !slices.Equal(got, want) {
		t.Fatalf("pods left %q, want %q", got, want)
	}
	const metrics = `
# HELP pod_gc_collector_force_delete_pod_errors_total Number of errors encountered when forcefully deleting the pods since the Pod GC Controller started.
# TYPE pod_gc_collector_force_delete_pod_errors_total counter
pod_gc_collector_force_delete_pod_errors_total{namespace="ns",reason="out-of-service"} 1
pod_gc_collector_force_delete_pod_errors_total{namespace="ns",reason="terminated"} 1
pod_gc_collector_force_delete_pod_errors_total{namespace="ns",reason="unscheduled"} 1
# HELP pod_gc_collector_force_delete_pods_total Number of pods that are being forcefully deleted since the Pod GC Controller started.
# TYPE pod_gc_collector_force_delete_pods_total counter
pod_gc_collector_force_delete_pods_total{namespace="ns",reason="out-of-service"} 1
pod_gc_collector_force_delete_pods_total{namespace="ns",reason="terminated"} 2
pod_gc_collector_force_delete_pods_total{namespace="ns",reason="unscheduled"} 1
pod_gc_collector_force_delete_pods_total{namespace="other",reason="unscheduled"} 1
`
	if err := testutil.GatherAndCompare(f.reg, strings.NewReader(metrics)); err != nil {
		t.Fatal(err)
	}
}

// TestOrphanMetrics: an orphaned pod counts under reason "orphaned".
func TestOrphanMetrics(t *testing.T) {
	f := newFixture(t, Config{QuarantineTime: -1}, []*api.Pod{pod("a", time.Minute, onNode("gone"))}, nil)
	f.pass()
	f.pass()
	if got := testutil.ToFloat64(f.c.metrics.deleting.WithLabelValues("ns", ReasonOrphaned)); got != 1 {
		t.Fatalf("pod_gc_collector_force_delete_pods_total{namespace=ns,reason=orphaned} = %v, want 1", got)
	}
}

// TestNewMetricsTwice: a second registration on the same registry reuses
// the first's counters (a manager builds the controller once, a test may
// build it twice).
func TestNewMetricsTwice(t *testing.T) {
	f := newFixture(t, Config{}, nil, nil)
	m, err := NewMetrics(f.reg)
	if err != nil || m.deleting != f.c.metrics.deleting {
		t.Fatalf("second NewMetrics: %v, same counters %v", err, err == nil && m.deleting == f.c.metrics.deleting)
	}
	if _, err := NewMetrics(nil); err == nil {
		t.Fatal("NewMetrics(nil) succeeded")
	}
	var none *Metrics
	none.attempt("ns", ReasonOrphaned, true) // records nothing, does not panic
}
