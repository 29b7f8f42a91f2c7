package difftest

import (
	"fmt"
	"maps"
	"slices"
	"sort"
	"strings"
)

// CompareNodeLifecycle returns every difference between two managers'
// runs of RunNodeLifecycle, one line each, sorted within a checkpoint:
//
//   - at each checkpoint, every node's taints and conditions (type, status,
//     reason, message) and every pod's phase, Ready status, DisruptionTarget
//     reason and deletion;
//   - every pod's history of distinct states, in order (Ready=False before
//     the DisruptionTarget condition before the deletion);
//   - every node's taints and condition sets seen, each as a set
//     (nodeFacets): not their order nor their combinations. The NoSchedule
//     taint (from the conditions, every monitor pass) and the NoExecute
//     taint (from the zone's rate-limited queue) are added, and taken off
//     on recovery, by two independent loops in both managers, so a node
//     carries one without the other for a moment, in either order; and of
//     two nodes of a zone that go silent together the queue taints one
//     NoExecute first and the other 1/--node-eviction-rate (10 s) later,
//     which one being a race. kube-controller-manager v1.37.2 and kcm were
//     each seen on either side of both. Which taints and which conditions
//     a node ever had is behaviour, and so is every checkpoint, compared
//     exactly;
//   - the Events of the whole run (object, reason, type, message).
//
// Timestamps, UIDs and resourceVersions never enter the runs.
func CompareNodeLifecycle(a, b *NodeLifecycleRun) []string {
	var out []string
	if len(a.Checkpoints) != len(b.Checkpoints) {
		return []string{fmt.Sprintf("%d checkpoints vs %d", len(a.Checkpoints), len(b.Checkpoints))}
	}
	for i, ca := range a.Checkpoints {
		cb := b.Checkpoints[i]
		var d []string
		for _, n := range unionKeys(ca.View.Nodes, cb.View.Nodes) {
			sa, oka := ca.View.Nodes[n]
			sb, okb := cb.View.Nodes[n]
			if oka != okb || sa.String() != sb.String() {
				d = append(d, fmt.Sprintf("node %s:\n      a: %s\n      b: %s", n, orGone(sa.String(), oka), orGone(sb.String(), okb)))
			}
		}
		for _, p := range unionKeys(ca.View.Pods, cb.View.Pods) {
			sa, oka := ca.View.Pods[p]
			sb, okb := cb.View.Pods[p]
			if oka != okb || sa != sb {
				d = append(d, fmt.Sprintf("pod %s:\n      a: %s\n      b: %s", p, orGone(sa.String(), oka), orGone(sb.String(), okb)))
			}
		}
		for _, l := range d {
			out = append(out, "at "+ca.Name+": "+l)
		}
	}
	for _, k := range unionKeys(a.History, b.History) {
		ha, hb := a.History[k], b.History[k]
		if strings.HasPrefix(k, "Node ") {
			ha, hb = nodeFacets(ha), nodeFacets(hb)
		}
		if !slices.Equal(ha, hb) {
			out = append(out, fmt.Sprintf("history of %s:\n      a: %s\n      b: %s", k,
				strings.Join(ha, "\n         "), strings.Join(hb, "\n         ")))
		}
	}
	if len(a.Checkpoints) > 0 {
		ea := a.Checkpoints[len(a.Checkpoints)-1].View.Events
		eb := b.Checkpoints[len(b.Checkpoints)-1].View.Events
		for _, e := range unionKeys(ea, eb) {
			switch {
			case !eb[e]:
				out = append(out, "event only under a: "+e)
			case !ea[e]:
				out = append(out, "event only under b: "+e)
			}
		}
	}
	return out
}

// unionKeys returns the keys of both maps, sorted.
func unionKeys[V any](a, b map[string]V) []string {
	set := map[string]bool{}
	for k := range a {
		set[k] = true
	}
	for k := range b {
		set[k] = true
	}
	return slices.Sorted(maps.Keys(set))
}

// nodeFacets returns the distinct facets of a node's history of states
// (NodeState.String renderings, or "deleted"), sorted: "taint K:E" for
// every taint the node carried, "conditions [...]" for every set of
// conditions it had, and "deleted" if it was deleted.
func nodeFacets(h []string) []string {
	var out []string
	for _, s := range h {
		taints, conds, ok := strings.Cut(strings.TrimPrefix(s, "taints ["), "] conditions ")
		if !ok {
			out = append(out, s)
			continue
		}
		for _, t := range strings.Fields(taints) {
			out = append(out, "taint "+t)
		}
		out = append(out, "conditions "+conds)
	}
	sort.Strings(out)
	return slices.Compact(out)
}

func orGone(s string, ok bool) string {
	if !ok {
		return "(absent)"
	}
	return s
}
