package difftest

import (
	"strings"
	"testing"

	"github.com/kcmlab/kcm/kube/api"
)

func testRS(name, uid, image string, replicas int32) *api.ReplicaSet {
	rs := &api.ReplicaSet{ObjectMeta: api.ObjectMeta{Name: name, UID: uid}}
	rs.Spec.Replicas = &replicas
	rs.Spec.Template.Spec.Containers = []api.Container{{Name: "c", Image: image}}
	return rs
}

func testPod(name, ownerUID, image string, ready bool) *api.Pod {
	p := &api.Pod{ObjectMeta: api.ObjectMeta{Name: name,
		OwnerReferences: []api.OwnerReference{{Kind: "ReplicaSet", Name: "rs", UID: ownerUID, Controller: ptr(true)}}}}
	p.Spec.Containers = []api.Container{{Name: "c", Image: image}}
	if ready {
		p.Status.Conditions = []api.PodCondition{{Type: api.PodReady, Status: api.ConditionTrue}}
	}
	return p
}

func ptr[T any](v T) *T { return &v }

func specStates(tl Timeline) string {
	var s []string
	for _, st := range tl.Specs {
		s = append(s, st.Phase+":"+st.State)
	}
	return strings.Join(s, " | ")
}

// The spec stream has one step per change of some ReplicaSet's
// spec.replicas; status-only updates and repeats add none.
func TestTimelineSpecStream(t *testing.T) {
	s := newTimelineState()
	s.applyReplicaSet(testRS("old", "1", "v1", 4), false)
	s.applyReplicaSet(testRS("old", "1", "v1", 4), false) // a status update
	s.setPhase("rollout")
	s.applyReplicaSet(testRS("new", "2", "v2", 1), false)
	s.applyReplicaSet(testRS("old", "1", "v1", 3), false)
	s.applyReplicaSet(testRS("old", "1", "v1", 0), false)
	s.applyReplicaSet(testRS("old", "1", "v1", 0), true) // deleted
	rs := testRS("nil", "3", "v3", 0)
	rs.Spec.Replicas = nil // the API's default is 1
	s.applyReplicaSet(rs, false)
	want := ":v1=4 | rollout:v1=4 v2=1 | rollout:v1=3 v2=1 | rollout:v1=0 v2=1 | rollout:v2=1 | rollout:v2=1 v3=1"
	if got := specStates(s.snapshot()); got != want {
		t.Errorf("spec stream\n got %s\nwant %s", got, want)
	}
}

// The pod stream counts pods and Ready pods per image, one step per
// change, a phase change included.
func TestTimelinePodStream(t *testing.T) {
	s := newTimelineState()
	s.applyPod(testPod("a", "1", "v1", false), false)
	s.applyPod(testPod("a", "1", "v1", true), false)
	s.applyPod(testPod("a", "1", "v1", true), false) // no change
	s.setPhase("rollout")
	s.applyPod(testPod("a", "1", "v1", true), false) // same counts, new phase
	s.applyPod(testPod("b", "2", "v2", false), false)
	s.applyPod(testPod("a", "1", "v1", true), true)
	tl := s.snapshot()
	var got []string
	for _, p := range tl.Pods {
		got = append(got, p.Phase+":"+p.String())
	}
	want := ":v1 1/0 | :v1 1/1 | rollout:v1 1/1 | rollout:v1 1/1, v2 1/0 | rollout:v2 1/0"
	if strings.Join(got, " | ") != want {
		t.Errorf("pod stream\n got %s\nwant %s", strings.Join(got, " | "), want)
	}
	if tot := tl.Pods[3].Total(); tot != (PodCount{Total: 2, Ready: 1}) {
		t.Errorf("Total = %+v", tot)
	}
	// The snapshot is a copy.
	tl.Pods[0].Counts["v1"] = PodCount{Total: 9}
	if s.snapshot().Pods[0].Counts["v1"].Total != 1 {
		t.Error("snapshot shares its counts with the state")
	}
}
