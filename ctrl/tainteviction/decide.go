package tainteviction

import (
	"slices"
	"time"

	"github.com/kcmlab/kcm/kube/api"
)

// Verdict is what the taints of a node mean for one pod on it.
type Verdict uint8

// The verdicts Decide returns.
const (
	// NoTaint: the node has no NoExecute taint; nothing is evicted and an
	// eviction scheduled earlier is cancelled.
	NoTaint Verdict = iota
	// EvictNow: a NoExecute taint is not tolerated; the pod is deleted at
	// once, replacing any eviction scheduled for later.
	EvictNow
	// EvictAt: every NoExecute taint is tolerated and the least
	// tolerationSeconds among the tolerations used is finite; the pod is
	// deleted at Decision.At unless an eviction is already scheduled.
	EvictAt
	// Tolerated: every NoExecute taint is tolerated forever (no
	// tolerationSeconds); an eviction scheduled earlier is cancelled.
	Tolerated
)

var verdictNames = [...]string{NoTaint: "NoTaint", EvictNow: "EvictNow", EvictAt: "EvictAt", Tolerated: "Tolerated"}

func (v Verdict) String() string {
	if int(v) < len(verdictNames) {
		return verdictNames[v]
	}
	return "Verdict(?)"
}

// Decision is Decide's answer: the verdict and, for EvictAt, the time.
type Decision struct {
	Verdict Verdict
	// At is when the pod is to be deleted (EvictAt only): now plus the
	// least tolerationSeconds, or now itself when one is zero or less.
	At time.Time
}

// Decide is the taint eviction rule, with no state and no clock: given a
// node's taints (only the NoExecute ones count), a pod's tolerations and
// the time now, evict now, at a time, or never. It follows
// kube-controller-manager's processPodOnNode (pkg/controller/tainteviction
// taint_eviction.go) with v1helper.GetMatchingTolerations and
// getMinTolerationTime:
//
//   - no NoExecute taint: NoTaint;
//   - each NoExecute taint is matched, in the node's order, by the FIRST
//     of the pod's tolerations that tolerates it (api.Toleration.
//     ToleratesTaint); a taint that none tolerates: EvictNow;
//   - over the tolerations so used: one with tolerationSeconds ≤ 0 means
//     evict at now; otherwise the least tolerationSeconds wins; none set
//     means Tolerated (forever). A toleration that also matches but comes
//     after the first match does not count, so a first match without
//     tolerationSeconds tolerates forever even if a later one has a limit.
func Decide(taints []api.Taint, tolerations []api.Toleration, now time.Time) Decision {
	tainted := false
	least, finite := int64(0), false
	for i := range taints {
		if taints[i].Effect != api.TaintEffectNoExecute {
			continue
		}
		tainted = true
		j := slices.IndexFunc(tolerations, func(t api.Toleration) bool { return t.ToleratesTaint(&taints[i]) })
		if j < 0 {
			return Decision{Verdict: EvictNow}
		}
		if s := tolerations[j].TolerationSeconds; s != nil {
			if !finite || *s < least {
				least, finite = *s, true
			}
		}
	}
	switch {
	case !tainted:
		return Decision{Verdict: NoTaint}
	case !finite:
		return Decision{Verdict: Tolerated}
	case least <= 0:
		return Decision{Verdict: EvictAt, At: now}
	default:
		return Decision{Verdict: EvictAt, At: now.Add(time.Duration(least) * time.Second)}
	}
}

// noExecuteTaints returns the NoExecute taints of taints, in order
// (upstream's getNoExecuteTaints); nil when there are none.
func noExecuteTaints(taints []api.Taint) []api.Taint {
	var out []api.Taint
	for _, t := range taints {
		if t.Effect == api.TaintEffectNoExecute {
			out = append(out, t)
		}
	}
	return out
}

// taintsEqual compares two taint lists field by field, timeAdded by its
// instant; nil and empty are equal (apimachinery's Semantic.DeepEqual).
func taintsEqual(a, b []api.Taint) bool {
	return slices.EqualFunc(a, b, func(x, y api.Taint) bool {
		return x.Key == y.Key && x.Value == y.Value && x.Effect == y.Effect &&
			(x.TimeAdded == nil) == (y.TimeAdded == nil) && (x.TimeAdded == nil || x.TimeAdded.Equal(y.TimeAdded.Time))
	})
}

// tolerationsEqual compares two toleration lists field by field,
// tolerationSeconds by value; nil and empty are equal.
func tolerationsEqual(a, b []api.Toleration) bool {
	return slices.EqualFunc(a, b, func(x, y api.Toleration) bool {
		return x.Key == y.Key && x.Operator == y.Operator && x.Value == y.Value && x.Effect == y.Effect &&
			(x.TolerationSeconds == nil) == (y.TolerationSeconds == nil) &&
			(x.TolerationSeconds == nil || *x.TolerationSeconds == *y.TolerationSeconds)
	})
}
