package triggertime

import (
	"strconv"
	"testing"
	"time"

	"github.com/kcmlab/kcm/kube/api"
)

var t0 = time.Date(2025, 9, 1, 8, 0, 0, 0, time.UTC)

func service(created time.Time) *api.Service {
	return &api.Service{ObjectMeta: api.ObjectMeta{Namespace: "ns", Name: "web", CreationTimestamp: api.NewTime(created)}}
}

// pod is a pod whose Ready condition (true or not) last moved minutes
// after t0.
func pod(name string, ready bool, minutes int) *api.Pod {
	status := api.ConditionFalse
	if ready {
		status = api.ConditionTrue
	}
	return &api.Pod{ObjectMeta: api.ObjectMeta{Namespace: "ns", Name: name},
		Status: api.PodStatus{Conditions: []api.PodCondition{{Type: api.PodReady, Status: status,
			LastTransitionTime: api.NewTime(t0.Add(time.Duration(minutes) * time.Minute))}}}}
}

// TestCompute follows util's TestNewServiceNoPods,
// TestNewServiceExistingPods, TestPodUpdated, TestServiceUpdated... : the
// first sync of a Service its creation; then the earliest moved trigger;
// nothing when none moved.
func TestCompute(t *testing.T) {
	tr := New()
	svc := service(t0)
	// Pod a turned ready an hour before the Service was made.
	a, b := pod("a", true, -60), pod("b", true, 6)
	steps := []struct {
		name string
		svc  *api.Service
		pods []*api.Pod
		want string // minutes after t0, or "none"
	}{
		{"first sync, a pod ready before the Service: still the Service's creation", svc, []*api.Pod{a, b}, "0"},
		{"nothing moved: none", svc, []*api.Pod{a, b}, "none"},
		{"pod b moved: b's", svc, []*api.Pod{a, pod("b", false, 9)}, "9"},
		{"pod c appears, a moves later: the earliest moved", svc, []*api.Pod{pod("a", true, 12), pod("b", false, 9), pod("c", true, 11)}, "11"},
		{"pod b goes: none", svc, []*api.Pod{pod("a", true, 12), pod("c", true, 11)}, "none"},
		{"Service re-created later: its creation", service(t0.Add(20 * time.Minute)), []*api.Pod{pod("a", true, 12), pod("c", true, 11)}, "20"},
	}
	for _, s := range steps {
		got := tr.Compute("ns/web", s.svc, s.pods)
		want := "none"
		if !got.IsZero() {
			want = strconv.Itoa(int(got.Sub(t0) / time.Minute))
		}
		if want != s.want {
			t.Fatalf("%s: trigger %v (%s), want %s", s.name, got, want, s.want)
		}
	}
	tr.Forget("ns/web")
	if got := tr.Compute("ns/web", svc, []*api.Pod{a}); !got.Equal(t0) {
		t.Fatalf("after Forget: %v, want the Service's creation again", got)
	}
}
