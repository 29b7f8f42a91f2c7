package main

import (
	"cmp"
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/kcmlab/kcm/kube/api"
	"github.com/kcmlab/kcm/kube/rest"
)

// This file is the pure half of the failover test's pod accounting: the
// ledger of every ReplicaSet and pod event one namespace saw, and its
// replay. The watches that fill it are in failover_integration_test.go.
//
// What "a pod is never created twice" means, and why it is exactly what
// kube-controller-manager guarantees:
//
// Pods get generated names, so the apiserver never refuses a second
// creation: a controller that acts twice on one need simply gets one pod
// too many. The ReplicaSet controller prevents that with expectations
// (kube-controller-manager's ControllerExpectations): a sync compares the
// active pods in its informer cache with spec.replicas, creates the
// difference, and does not sync that ReplicaSet again until the cache has
// observed every one of those creations. The cache is a prefix of the
// apiserver's history and nobody but the controller creates the
// ReplicaSet's pods, so each creation happens while the active pods that
// exist — cached or still in flight — are fewer than spec.replicas. Hence
// the rule the replay checks at every pod ADDED, in the order the store
// applied the writes:
//
//	active pods controlled by the ReplicaSet, the new one included
//	  ≤ the ReplicaSet's spec.replicas at that moment
//
// "Active" is Kubernetes' FilterActivePods: not terminating and not in
// phase Succeeded or Failed. The rule is checked at creations, not at
// every moment: when spec.replicas goes down (the old ReplicaSet of a
// rollout) the active pods exceed it until the controller's deletions
// land, which is correct; a creation at such a moment is not. The rule
// holds in a rollout because the Deployment controller only raises the new
// ReplicaSet's spec.replicas and only lowers the old one's, so a
// controller acting on a slightly stale spec never sees one higher than
// the current. Leader failover adds no exception: expectations live in
// one process's memory and die with it; what protects a takeover is that
// the new leader starts with empty expectations and lists the whole state
// only after it acquired the lease — LeaseDuration after it last saw the
// old leader renew, while a live old leader stops acting RenewDeadline
// after its last renewal and a killed one at once — so the creations the
// old leader made are in its list. (That list is read from the
// apiserver's watch cache, at resourceVersion "0", as
// kube-controller-manager's is: one apiserver's cache trails etcd by
// milliseconds, but in a control plane of several a lagging one could
// answer with an older state; reflector/doc.go says what the first list
// may serve stale.) (Kubernetes' leader election has no
// fencing: a write the old leader sent and the apiserver still held past
// that gap would slip through; a second pod for one need is exactly how
// that would show.) Two managers acting at once (no leader election)
// break the rule at once: each counts only its own in-flight creations.
//
// Besides, a pod's UID and name are seen ADDED once each: a second ADDED
// of a UID would mean the accounting itself is broken (a watch replayed),
// and a name used twice, a pod deleted and recreated under its name.

// ledgerKind tells the two streams of the ledger apart.
type ledgerKind int

const (
	kindReplicaSet ledgerKind = iota // sorted first among equal resourceVersions
	kindPod
)

// ledgerEvent is one watch event, reduced to what the replay needs.
type ledgerEvent struct {
	// RV is the object's resourceVersion as a number: with one etcd
	// behind the apiserver it is the store's revision of the write, global
	// across resources (a DELETED event carries the revision of the
	// deletion). Kubernetes calls resourceVersions opaque; this test owns
	// its single-etcd cluster and relies on that only to merge streams.
	RV       uint64
	Kind     ledgerKind
	Type     rest.EventType
	Name     string
	UID      string
	Owner    string // pods: the controller's UID, "" when none
	Replicas int32  // ReplicaSets: spec.replicas
	Active   bool   // pods: FilterActivePods would keep it
}

// replicaSetEvent reduces a ReplicaSet event.
func replicaSetEvent(rv uint64, typ rest.EventType, rs *api.ReplicaSet) ledgerEvent {
	n := int32(1) // the apiserver defaults spec.replicas to 1
	if rs.Spec.Replicas != nil {
		n = *rs.Spec.Replicas
	}
	return ledgerEvent{RV: rv, Kind: kindReplicaSet, Type: typ, Name: rs.Name, UID: rs.UID, Replicas: n}
}

// podEvent reduces a pod event.
func podEvent(rv uint64, typ rest.EventType, p *api.Pod) ledgerEvent {
	ev := ledgerEvent{RV: rv, Kind: kindPod, Type: typ, Name: p.Name, UID: p.UID, Active: api.IsPodActive(p)}
	if ref := p.ControllerRef(); ref != nil {
		ev.Owner = ref.UID
	}
	return ev
}

// creationReport is the replay's result.
type creationReport struct {
	// Created and Deleted count pods per controlling ReplicaSet UID.
	Created, Deleted map[string]int
	// Names maps ReplicaSet UIDs to names, for messages.
	Names map[string]string
	// Violations describe every broken rule, in store order.
	Violations []string
}

// total returns the number of pods created for any ReplicaSet.
func (r creationReport) total() int {
	n := 0
	for _, c := range r.Created {
		n += c
	}
	return n
}

// replayCreations sorts events by store revision and replays them,
// checking the rules above.
func replayCreations(events []ledgerEvent) creationReport {
	events = slices.Clone(events)
	slices.SortStableFunc(events, func(a, b ledgerEvent) int {
		return cmp.Or(cmp.Compare(a.RV, b.RV), cmp.Compare(a.Kind, b.Kind))
	})
	r := creationReport{Created: map[string]int{}, Deleted: map[string]int{}, Names: map[string]string{}}
	spec := map[string]int32{}                                  // ReplicaSet UID → spec.replicas
	active := map[string]map[string]bool{}                      // ReplicaSet UID → active pod UIDs
	owner := map[string]string{}                                // live pod UID → controller UID
	seenUID, seenName := map[string]bool{}, map[string]string{} // pod name → UID
	fail := func(format string, args ...any) { r.Violations = append(r.Violations, fmt.Sprintf(format, args...)) }

	for _, ev := range events {
		if ev.Kind == kindReplicaSet {
			if ev.Type == rest.Deleted {
				delete(spec, ev.UID)
				continue
			}
			spec[ev.UID] = ev.Replicas
			r.Names[ev.UID] = ev.Name
			continue
		}
		switch ev.Type {
		case rest.Added:
			if seenUID[ev.UID] {
				fail("pod %s (uid %s) was ADDED twice (rv %d)", ev.Name, ev.UID, ev.RV)
				continue
			}
			seenUID[ev.UID] = true
			if other, ok := seenName[ev.Name]; ok {
				fail("pod name %s was created twice (uids %s and %s, rv %d)", ev.Name, other, ev.UID, ev.RV)
			}
			seenName[ev.Name] = ev.UID
			if ev.Owner == "" {
				fail("pod %s has no controller (rv %d): only ReplicaSets may create pods here", ev.Name, ev.RV)
				continue
			}
			want, known := spec[ev.Owner]
			if !known {
				fail("pod %s is controlled by ReplicaSet uid %s, which the store did not hold at rv %d", ev.Name, ev.Owner, ev.RV)
				continue
			}
			r.Created[ev.Owner]++
			owner[ev.UID] = ev.Owner
			if active[ev.Owner] == nil {
				active[ev.Owner] = map[string]bool{}
			}
			if ev.Active {
				active[ev.Owner][ev.UID] = true
			}
			if n := len(active[ev.Owner]); int32(n) > want {
				fail("pod %s of ReplicaSet %s was created at rv %d while the ReplicaSet already had %d active pods for spec.replicas %d",
					ev.Name, r.Names[ev.Owner], ev.RV, n-1, want)
			}
		case rest.Modified:
			if o, ok := owner[ev.UID]; ok && !ev.Active {
				delete(active[o], ev.UID)
			}
		case rest.Deleted:
			if o, ok := owner[ev.UID]; ok {
				delete(active[o], ev.UID)
				delete(owner, ev.UID)
				r.Deleted[o]++
			}
		}
	}
	return r
}

// TestReplayCreations checks the replay against histories that keep and
// break the rules (Kubernetes' ReplicaSet expectations: a creation only
// while active pods < spec.replicas).
func TestReplayCreations(t *testing.T) {
	rs := func(rv uint64, typ rest.EventType, uid string, n int32) ledgerEvent {
		return ledgerEvent{RV: rv, Kind: kindReplicaSet, Type: typ, Name: "rs-" + uid, UID: uid, Replicas: n}
	}
	pod := func(rv uint64, typ rest.EventType, name, owner string, active bool) ledgerEvent {
		return ledgerEvent{RV: rv, Kind: kindPod, Type: typ, Name: name, UID: "uid-" + name, Owner: owner, Active: active}
	}
	add := func(rv uint64, name, owner string) ledgerEvent { return pod(rv, rest.Added, name, owner, true) }
	tests := []struct {
		name    string
		events  []ledgerEvent
		want    string // a substring of the first violation; "" for none
		created int
	}{
		{"a rollout: new scaled up, old scaled down and deleted", []ledgerEvent{
			rs(1, rest.Added, "old", 2), add(2, "o1", "old"), add(3, "o2", "old"),
			rs(4, rest.Added, "new", 1), add(5, "n1", "new"), rs(6, rest.Modified, "old", 1),
			pod(7, rest.Deleted, "o1", "old", true), rs(8, rest.Modified, "new", 2), add(9, "n2", "new"),
			rs(10, rest.Modified, "old", 0), pod(11, rest.Deleted, "o2", "old", true),
		}, "", 4},
		{"events arrive out of store order (two streams): sorted by rv", []ledgerEvent{
			add(3, "p1", "a"), add(5, "p2", "a"), rs(1, rest.Added, "a", 1), rs(4, rest.Modified, "a", 2),
		}, "", 2},
		{"two managers acting at once: one pod over spec", []ledgerEvent{
			rs(1, rest.Added, "a", 2), add(2, "p1", "a"), add(3, "p2", "a"), add(4, "p3", "a"),
		}, "pod p3 of ReplicaSet rs-a was created at rv 4 while the ReplicaSet already had 2 active pods for spec.replicas 2", 3},
		{"a creation while spec went down and deletions are pending", []ledgerEvent{
			rs(1, rest.Added, "a", 2), add(2, "p1", "a"), add(3, "p2", "a"), rs(4, rest.Modified, "a", 1),
			add(5, "p3", "a"),
		}, "already had 2 active pods for spec.replicas 1", 3},
		{"a replacement for a pod deleted by someone else is allowed", []ledgerEvent{
			rs(1, rest.Added, "a", 1), add(2, "p1", "a"), pod(3, rest.Deleted, "p1", "a", true), add(4, "p2", "a"),
		}, "", 2},
		{"a replacement for a terminating or failed pod is allowed (not active)", []ledgerEvent{
			rs(1, rest.Added, "a", 1), add(2, "p1", "a"), pod(3, rest.Modified, "p1", "a", false), add(4, "p2", "a"),
		}, "", 2},
		{"a uid ADDED twice", []ledgerEvent{
			rs(1, rest.Added, "a", 2), add(2, "p1", "a"), add(3, "p1", "a"),
		}, "pod p1 (uid uid-p1) was ADDED twice", 1},
		{"a name created twice", []ledgerEvent{
			rs(1, rest.Added, "a", 2), add(2, "p1", "a"), pod(3, rest.Deleted, "p1", "a", true),
			{RV: 4, Kind: kindPod, Type: rest.Added, Name: "p1", UID: "other", Owner: "a", Active: true},
		}, "pod name p1 was created twice", 2},
		{"a pod without a controller", []ledgerEvent{add(1, "p1", "")}, "pod p1 has no controller", 0},
		{"a pod of a ReplicaSet the store did not hold", []ledgerEvent{add(1, "p1", "gone")}, "which the store did not hold", 0},
	}
	for _, tt := range tests {
		r := replayCreations(tt.events)
		switch {
		case tt.want == "" && len(r.Violations) > 0:
			t.Errorf("%s: violations %q, want none", tt.name, r.Violations)
		case tt.want != "" && (len(r.Violations) == 0 || !strings.Contains(r.Violations[0], tt.want)):
			t.Errorf("%s: violations %q, want the first to contain %q", tt.name, r.Violations, tt.want)
		}
		if r.total() != tt.created {
			t.Errorf("%s: created %d pods, want %d", tt.name, r.total(), tt.created)
		}
	}
}
