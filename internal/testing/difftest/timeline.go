package difftest

import (
	"fmt"
	"sort"
	"strconv"
	"strings"

	"github.com/kcmlab/kcm/kube/api"
)

// A timeline is what a rollout looked like while it happened, not only
// where it ended. Two managers may take different numbers of intermediate
// steps only because their timing differs (a pod becomes Ready between
// two syncs in one run and during one in the other), so a timeline is not
// a list of snapshots to compare one by one. It keeps two streams, each in
// the order kube-apiserver committed the writes (one watch per resource
// keeps that order; two watches do not keep it between each other):
//
//   - Specs: the distinct consecutive values of spec.replicas per
//     ReplicaSet, from the ReplicaSet watch. These are the controller's
//     decisions. With a driver that marks one pod Ready only when the
//     controllers are idle (see the rolling-update scenario), the
//     decisions do not depend on timing, and two managers that implement
//     the same algorithm produce the same sequence, which is compared
//     exactly.
//   - Pods: the distinct consecutive (total, ready) pod counts per
//     template, from the pod watch. These depend on timing (pods appear
//     and are deleted in batches), so they are not compared with each
//     other; instead each run is checked against the strategy's
//     invariants at every step: a rolling update never has fewer than
//     replicas − maxUnavailable Ready pods, and a Recreate rollout never
//     has pods of two templates at once.
//
// ReplicaSets and pods are told apart by their template's first container
// image, which is what the scenarios change between revisions; names and
// hashes would differ between managers.

// Step is one entry of a timeline stream: the phase the scenario was in
// and the state, rendered as text ("nginx:1=3 nginx:2=1").
type Step struct {
	Phase string
	State string
}

// PodCount is how many pods of one template exist and how many are Ready.
type PodCount struct{ Total, Ready int }

// PodStep is one entry of the pod stream.
type PodStep struct {
	Phase  string
	Counts map[string]PodCount // by image
}

// Total returns the number of pods and of Ready pods over all images.
func (s PodStep) Total() PodCount {
	var t PodCount
	for _, c := range s.Counts {
		t.Total += c.Total
		t.Ready += c.Ready
	}
	return t
}

// String renders the step as "nginx:1 3/3, nginx:2 1/0" (total/ready).
func (s PodStep) String() string {
	images := make([]string, 0, len(s.Counts))
	for im := range s.Counts {
		images = append(images, im)
	}
	sort.Strings(images)
	parts := make([]string, len(images))
	for i, im := range images {
		parts[i] = fmt.Sprintf("%s %d/%d", im, s.Counts[im].Total, s.Counts[im].Ready)
	}
	return strings.Join(parts, ", ")
}

// Deletion is one Deployment, ReplicaSet or pod seen deleted: the phase
// it happened in, its kind and name, and the resourceVersion of the
// deletion. Deletions of the three resources come from three watches; the
// resourceVersion (etcd's revision, which every write increments) orders
// them across the watches. A test harness may compare resourceVersions:
// it runs against its own etcd, and clients must not, in general, read
// meaning into them.
type Deletion struct {
	Phase, Kind, Name string
	RV                uint64
}

// Timeline holds the streams of one namespace's recording: the spec and
// pod streams, the deletions in the order kube-apiserver committed them,
// and the states a scenario records itself (Observer.Record), such as a
// terminating namespace's conditions: the distinct consecutive states, in
// the order the scenario saw them, compared exactly like Specs. A scenario
// records there only what does not depend on timing.
type Timeline struct {
	Specs     []Step
	Pods      []PodStep
	States    []Step
	Deletions []Deletion
}

// timelineState is the state machine that builds a Timeline from watch
// events: it applies one event at a time and appends a step whenever the
// rendered state differs from the last one (consecutive duplicates, such
// as a status-only update, are dropped). It is not safe for concurrent
// use; the observer holds its lock around it.
type timelineState struct {
	phase string
	specs map[string]rsSpec  // by ReplicaSet name
	pods  map[string]podSeen // by pod name
	tl    Timeline
}

type rsSpec struct {
	image    string
	replicas int32
}

type podSeen struct {
	image string
	ready bool
}

func newTimelineState() *timelineState {
	return &timelineState{specs: map[string]rsSpec{}, pods: map[string]podSeen{}}
}

// setPhase names the steps recorded from now on.
func (s *timelineState) setPhase(p string) { s.phase = p }

// applyReplicaSet records a ReplicaSet event (deleted: the ReplicaSet is
// gone).
func (s *timelineState) applyReplicaSet(rs *api.ReplicaSet, deleted bool) {
	if deleted {
		delete(s.specs, rs.Name)
	} else {
		s.specs[rs.Name] = rsSpec{image: templateImage(rs.Spec.Template), replicas: replicasOrOne(rs.Spec.Replicas)}
	}
	// As in addState: a repeat of the last spec state is not a step, even
	// when the scenario moved to its next phase in between (an update that
	// renders the same, e.g. a status write, may land on either side).
	st := Step{Phase: s.phase, State: s.renderSpecs()}
	if n := len(s.tl.Specs); n == 0 || s.tl.Specs[n-1].State != st.State {
		s.tl.Specs = append(s.tl.Specs, st)
	}
}

// applyPod records a pod event.
func (s *timelineState) applyPod(p *api.Pod, deleted bool) {
	if deleted {
		delete(s.pods, p.Name)
	} else {
		s.pods[p.Name] = podSeen{image: podImage(p), ready: api.IsPodReady(p)}
	}
	st := PodStep{Phase: s.phase, Counts: map[string]PodCount{}}
	for _, ps := range s.pods {
		c := st.Counts[ps.image]
		c.Total++
		if ps.ready {
			c.Ready++
		}
		st.Counts[ps.image] = c
	}
	if n := len(s.tl.Pods); n == 0 || s.tl.Pods[n-1].Phase != st.Phase || s.tl.Pods[n-1].String() != st.String() {
		s.tl.Pods = append(s.tl.Pods, st)
	}
}

// applyDeleted records the deletion of an object at resourceVersion rv.
func (s *timelineState) applyDeleted(kind, name, rv string) {
	n, _ := strconv.ParseUint(rv, 10, 64)
	s.tl.Deletions = append(s.tl.Deletions, Deletion{Phase: s.phase, Kind: kind, Name: name, RV: n})
}

// renderSpecs renders spec.replicas per image. Two ReplicaSets with the
// same image (which the scenarios never make) would be summed.
func (s *timelineState) renderSpecs() string {
	byImage := map[string]int32{}
	for _, r := range s.specs {
		byImage[r.image] += r.replicas
	}
	images := make([]string, 0, len(byImage))
	for im := range byImage {
		images = append(images, im)
	}
	sort.Strings(images)
	parts := make([]string, len(images))
	for i, im := range images {
		parts[i] = fmt.Sprintf("%s=%d", im, byImage[im])
	}
	return strings.Join(parts, " ")
}

// addState records a scenario's state, unless it repeats the last one,
// whatever phase that was recorded in: a phase boundary that changes
// nothing is not a step. (An update that renders the same, such as a
// condition message that differs only in the text normalisation hides,
// may arrive just before or just after the scenario moves to its next
// phase; which one is timing, not behaviour.)
func (s *timelineState) addState(state string) {
	if n := len(s.tl.States); n == 0 || s.tl.States[n-1].State != state {
		s.tl.States = append(s.tl.States, Step{Phase: s.phase, State: state})
	}
}

// snapshot returns a copy of the timeline so far.
func (s *timelineState) snapshot() Timeline {
	tl := Timeline{Specs: append([]Step(nil), s.tl.Specs...), Pods: make([]PodStep, len(s.tl.Pods)),
		States: append([]Step(nil), s.tl.States...), Deletions: append([]Deletion(nil), s.tl.Deletions...)}
	sort.SliceStable(tl.Deletions, func(i, j int) bool { return tl.Deletions[i].RV < tl.Deletions[j].RV })
	for i, p := range s.tl.Pods {
		c := make(map[string]PodCount, len(p.Counts))
		for k, v := range p.Counts {
			c[k] = v
		}
		tl.Pods[i] = PodStep{Phase: p.Phase, Counts: c}
	}
	return tl
}

// templateImage is the first container's image of a pod template.
func templateImage(t api.PodTemplateSpec) string {
	if len(t.Spec.Containers) == 0 {
		return ""
	}
	return t.Spec.Containers[0].Image
}

// podImage is the first container's image of a pod.
func podImage(p *api.Pod) string {
	if len(p.Spec.Containers) == 0 {
		return ""
	}
	return p.Spec.Containers[0].Image
}

// replicasOrOne is spec.replicas with the API's default (1) for nil.
func replicasOrOne(r *int32) int32 {
	if r == nil {
		return 1
	}
	return *r
}
