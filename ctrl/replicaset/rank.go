package replicaset

import (
	"math"
	"slices"
	"strconv"
	"time"

	"github.com/kcmlab/kcm/kube/api"
)

// PodDeletionCostAnnotation lets a user say which pods of a ReplicaSet
// should go first on scale-down: lower cost goes first (the
// PodDeletionCost feature, beta and on by default, still in Kubernetes 1.37).
const PodDeletionCostAnnotation = "controller.kubernetes.io/pod-deletion-cost"

// rankedPod is one candidate for deletion with what the ordering reads.
type rankedPod struct {
	pod *api.Pod
	// colocated is the number of active pods of the same owner (the
	// ReplicaSet's controller, e.g. its Deployment) on the pod's node.
	colocated int
}

// podsToDelete picks the n pods of active to delete on scale-down
// (Kubernetes' getPodsToDelete): the first n in deletion order, or all of
// them when n covers them all. related are the pods of every ReplicaSet
// with the same controller as this one; they decide how crowded each node
// is. active is not modified.
func podsToDelete(active, related []*api.Pod, n int, now time.Time) []*api.Pod {
	if n >= len(active) {
		return slices.Clone(active)
	}
	onNode := map[string]int{}
	for _, p := range related {
		if api.IsPodActive(p) {
			onNode[p.Spec.NodeName]++
		}
	}
	ranked := make([]rankedPod, len(active))
	for i, p := range active {
		ranked[i] = rankedPod{pod: p, colocated: onNode[p.Spec.NodeName]}
	}
	slices.SortStableFunc(ranked, func(a, b rankedPod) int {
		switch {
		case deleteBefore(a, b, now):
			return -1
		case deleteBefore(b, a, now):
			return 1
		}
		return 0
	})
	out := make([]*api.Pod, n)
	for i := range out {
		out[i] = ranked[i].pod
	}
	return out
}

// phaseOrder ranks phases for deletion: the earlier in a pod's life, the
// sooner it goes.
func phaseOrder(p api.PodPhase) int {
	switch p {
	case api.PodPending:
		return 0
	case api.PodUnknown:
		return 1
	case api.PodRunning:
		return 2
	}
	return 0 // no phase yet: as Pending
}

// deleteBefore reports whether a should be deleted before b: Kubernetes'
// ActivePodsWithRanks.Less as of v1.37, where PodDeletionCost is on and
// LogarithmicScaleDown, its gate removed, always applies. The first rule that tells them apart wins:
//
//  1. a pod not yet scheduled before a scheduled one;
//  2. Pending before Unknown before Running;
//  3. not Ready before Ready;
//  4. the lower pod-deletion-cost first;
//  5. the pod with more colocated pods of its owner first;
//  6. both Ready: the one Ready for less time first;
//  7. the pod whose containers restarted most first;
//  8. the newer pod first.
//
// Rules 6 and 8 compare ages on a base-2 logarithmic scale (1 s and 1.9 s
// are alike, 1 s and 2 s are not), so that among pods of about the same
// age the choice is spread by UID rather than always hitting the very
// newest; a zero time counts as newest.
func deleteBefore(a, b rankedPod, now time.Time) bool {
	pa, pb := a.pod, b.pod
	if (pa.Spec.NodeName == "") != (pb.Spec.NodeName == "") {
		return pa.Spec.NodeName == ""
	}
	if oa, ob := phaseOrder(pa.Status.Phase), phaseOrder(pb.Status.Phase); oa != ob {
		return oa < ob
	}
	ra, rb := api.IsPodReady(pa), api.IsPodReady(pb)
	if ra != rb {
		return !ra
	}
	if ca, cb := deletionCost(pa), deletionCost(pb); ca != cb {
		return ca < cb
	}
	if a.colocated != b.colocated {
		return a.colocated > b.colocated
	}
	if ra { // both Ready
		ta, tb := readySince(pa), readySince(pb)
		if !ta.Equal(tb) {
			return newerFirst(pa, pb, ta, tb, now)
		}
	}
	if xa, xb := restarts(pa), restarts(pb); xa != xb {
		return xa.more(xb)
	}
	ta, tb := pa.CreationTimestamp.Time, pb.CreationTimestamp.Time
	if !ta.Equal(tb) {
		return newerFirst(pa, pb, ta, tb, now)
	}
	return false
}

// newerFirst orders two different times ta (of pa) and tb (of pb): the
// newer first, a zero time newest of all; times in the same logarithmic
// age bucket are ordered by UID.
func newerFirst(pa, pb *api.Pod, ta, tb, now time.Time) bool {
	if ta.IsZero() || tb.IsZero() {
		return ta.IsZero()
	}
	d := ageBucket(ta, now) - ageBucket(tb, now)
	if d == 0 {
		return pa.UID < pb.UID
	}
	return d < 0
}

// ageBucket is floor(log2(age in nanoseconds)), or -1 for a time not in
// the past.
func ageBucket(t, now time.Time) int64 {
	age := now.Sub(t)
	if age <= 0 {
		return -1
	}
	return int64(math.Log2(float64(age)))
}

// readySince is when the pod's Ready condition last became True; zero
// when it is not Ready.
func readySince(p *api.Pod) time.Time {
	c := api.GetPodCondition(&p.Status, api.PodReady)
	if c == nil || c.Status != api.ConditionTrue {
		return time.Time{}
	}
	return c.LastTransitionTime.Time
}

// restartCounts are the highest restart count among a pod's regular
// containers, and among its sidecars (init containers with restartPolicy
// Always).
type restartCounts struct{ regular, sidecar int32 }

// more reports whether r restarted more: regular containers decide,
// sidecars break a tie.
func (r restartCounts) more(o restartCounts) bool {
	if r.regular != o.regular {
		return r.regular > o.regular
	}
	return r.sidecar > o.sidecar
}

func restarts(p *api.Pod) restartCounts {
	var r restartCounts
	for _, c := range p.Status.ContainerStatuses {
		r.regular = max(r.regular, c.RestartCount)
	}
	sidecars := map[string]bool{}
	for _, c := range p.Spec.InitContainers {
		if c.RestartPolicy != nil && *c.RestartPolicy == string(api.RestartPolicyAlways) {
			sidecars[c.Name] = true
		}
	}
	for _, c := range p.Status.InitContainerStatuses {
		if sidecars[c.Name] {
			r.sidecar = max(r.sidecar, c.RestartCount)
		}
	}
	return r
}

// deletionCost is the pod's pod-deletion-cost annotation; 0 when absent
// or not a canonical 32-bit decimal (a leading "+" or zero is invalid, as
// the apiserver's validation says).
func deletionCost(p *api.Pod) int32 {
	v, ok := p.Annotations[PodDeletionCostAnnotation]
	if !ok || !canonicalFirstDigit(v) {
		return 0
	}
	n, err := strconv.ParseInt(v, 10, 32)
	if err != nil {
		return 0
	}
	return int32(n)
}

// canonicalFirstDigit: a minus sign, the single digit "0", or 1-9.
func canonicalFirstDigit(v string) bool {
	if v == "" {
		return false
	}
	return v[0] == '-' || v == "0" || (v[0] >= '1' && v[0] <= '9')
}
