package garbagecollector

import (
	"reflect"
	"slices"
	"testing"
	"time"

	"github.com/kcmlab/kcm/kube/api"
)

// Fixtures: a Deployment "web" (uid d1) owning ReplicaSet "web-1" (rs1)
// owning pod "web-1-a" (p1), in namespace "ns".

func ownerRef(apiVersion, kind, name, uid string, block bool) api.OwnerReference {
	t := true
	r := api.OwnerReference{APIVersion: apiVersion, Kind: kind, Name: name, UID: uid, Controller: &t}
	if block {
		r.BlockOwnerDeletion = &t
	}
	return r
}

var (
	refD1  = ownerRef("apps/v1", "Deployment", "web", "d1", true)
	refRS1 = ownerRef("apps/v1", "ReplicaSet", "web-1", "rs1", true)
)

func meta(ns, name, uid string, owners ...api.OwnerReference) *api.ObjectMeta {
	return &api.ObjectMeta{Namespace: ns, Name: name, UID: uid, OwnerReferences: owners}
}

// deleting returns a copy of m being deleted with the given finalizers.
func deleting(m *api.ObjectMeta, finalizers ...string) *api.ObjectMeta {
	c := *m
	ts := api.NewTime(time.Date(2025, 1, 2, 3, 4, 5, 0, time.UTC))
	c.DeletionTimestamp = &ts
	c.Finalizers = finalizers
	return &c
}

func add(apiVersion, kind string, m *api.ObjectMeta) Change {
	return Change{Type: Added, APIVersion: apiVersion, Kind: kind, Object: m}
}

func update(apiVersion, kind string, old, cur *api.ObjectMeta) Change {
	return Change{Type: Updated, APIVersion: apiVersion, Kind: kind, Old: old, Object: cur}
}

func del(apiVersion, kind string, m *api.ObjectMeta) Change {
	return Change{Type: Deleted, APIVersion: apiVersion, Kind: kind, Object: m}
}

func virtualDel(r objectRef) Change {
	return Change{Type: Deleted, Virtual: true, APIVersion: r.APIVersion, Kind: r.Kind,
		Object: &api.ObjectMeta{Namespace: r.Namespace, Name: r.Name, UID: r.UID}}
}

var (
	deployment = meta("ns", "web", "d1")
	replicaSet = meta("ns", "web-1", "rs1", refD1)
	pod        = meta("ns", "web-1-a", "p1", refRS1)
	idD1       = objectRef{"apps/v1", "Deployment", "ns", "web", "d1"}
	idRS1      = objectRef{"apps/v1", "ReplicaSet", "ns", "web-1", "rs1"}
)

// nodeState is what a test checks of one node.
type nodeState struct {
	identity                                  objectRef
	virtual, beingDeleted, deletingDependents bool
	dependents                                []string // uids, sorted
}

func stateOf(g *Graph, uid string) (nodeState, bool) {
	it, ok := g.Item(uid)
	if !ok {
		return nodeState{}, false
	}
	s := nodeState{identity: it.Identity, virtual: it.Virtual, beingDeleted: it.BeingDeleted, deletingDependents: it.DeletingDependents}
	for _, d := range it.Dependents {
		s.dependents = append(s.dependents, d.Identity.UID)
	}
	slices.Sort(s.dependents)
	return s, true
}

// TestGraph feeds changes to a graph and checks the effects of the last
// one and the nodes afterwards. Each case cites the rule of Kubernetes'
// GraphBuilder (pkg/controller/garbagecollector/graph_builder.go) that it
// checks.
func TestGraph(t *testing.T) {
	cm := meta("ns", "cm", "c1")
	for _, tc := range []struct {
		name   string
		before []Change
		change Change
		want   Effects
		nodes  map[string]*nodeState // nil value: the node must be absent
	}{
		{
			name:   "addDependentToOwners: an unseen owner becomes a virtual node, sent to be verified",
			change: add("apps/v1", "ReplicaSet", replicaSet),
			want:   Effects{AttemptToDelete: []string{"d1"}},
			nodes: map[string]*nodeState{
				"d1":  {identity: idD1, virtual: true, dependents: []string{"rs1"}},
				"rs1": {identity: idRS1},
			},
		},
		{
			name:   "processGraphChanges: the owner observed after its dependent replaces the virtual node, nothing to do",
			before: []Change{add("apps/v1", "ReplicaSet", replicaSet)},
			change: add("apps/v1", "Deployment", deployment),
			want:   Effects{},
			nodes:  map[string]*nodeState{"d1": {identity: idD1, dependents: []string{"rs1"}}},
		},
		{
			name:   "addDependentToOwners: an owner seen first gets no virtual node and no verification",
			before: []Change{add("apps/v1", "Deployment", deployment)},
			change: add("apps/v1", "ReplicaSet", replicaSet),
			want:   Effects{},
			nodes:  map[string]*nodeState{"d1": {identity: idD1, dependents: []string{"rs1"}}},
		},
		{
			name:   "processGraphChanges: observed coordinates differ from the dependent's reference → the dependent is checked",
			before: []Change{add("apps/v1", "ReplicaSet", meta("ns", "web-1", "rs1", ownerRef("apps/v1", "Deployment", "other-name", "d1", true)))},
			change: add("apps/v1", "Deployment", deployment),
			want:   Effects{AttemptToDelete: []string{"rs1"}},
			nodes:  map[string]*nodeState{"d1": {identity: idD1, dependents: []string{"rs1"}}},
		},
		{
			name:   "processGraphChanges: owner observed in another namespace → OwnerRefInvalidNamespace and the dependent is checked",
			before: []Change{add("v1", "Pod", meta("other", "p", "p9", ownerRef("v1", "ConfigMap", "cm", "c1", false)))},
			change: add("v1", "ConfigMap", cm),
			want: Effects{AttemptToDelete: []string{"p9"}, Invalid: []InvalidOwnerRef{{
				Dependent: objectRef{"v1", "Pod", "other", "p", "p9"}, Owner: objectRef{"v1", "ConfigMap", "other", "cm", "c1"}}}},
			nodes: map[string]*nodeState{"c1": {identity: objectRef{"v1", "ConfigMap", "ns", "cm", "c1"}, dependents: []string{"p9"}}},
		},
		{
			name:   "addDependentToOwners: a dependent naming an owner observed in another namespace → OwnerRefInvalidNamespace, checked",
			before: []Change{add("v1", "ConfigMap", cm)},
			change: add("v1", "Pod", meta("other", "p", "p9", ownerRef("v1", "ConfigMap", "cm", "c1", false))),
			want: Effects{AttemptToDelete: []string{"p9"}, Invalid: []InvalidOwnerRef{{
				Dependent: objectRef{"v1", "Pod", "other", "p", "p9"}, Owner: objectRef{"v1", "ConfigMap", "other", "cm", "c1"}}}},
		},
		{
			name:   "addDependentToOwners: a cluster-scoped dependent of an observed namespaced owner → OwnerRefInvalidNamespace, checked",
			before: []Change{add("v1", "ConfigMap", cm)},
			change: add("rbac.authorization.k8s.io/v1", "ClusterRole", meta("", "cr", "cr1", ownerRef("v1", "ConfigMap", "cm", "c1", false))),
			want: Effects{AttemptToDelete: []string{"cr1"}, Invalid: []InvalidOwnerRef{{
				Dependent: objectRef{"rbac.authorization.k8s.io/v1", "ClusterRole", "", "cr", "cr1"}, Owner: objectRef{"v1", "ConfigMap", "", "cm", "c1"}}}},
		},
		{
			name:   "addDependentToOwners: a virtual owner guessed namespaced, named by a dependent of another namespace → checked, no event yet",
			before: []Change{add("v1", "Pod", meta("a", "p", "pa", ownerRef("v1", "ConfigMap", "cm", "c1", false)))},
			change: add("v1", "Pod", meta("b", "p", "pb", ownerRef("v1", "ConfigMap", "cm", "c1", false))),
			want:   Effects{AttemptToDelete: []string{"pb"}},
		},
		{
			name:   "addDependentToOwners (#98040): a virtual owner guessed cluster-scoped, named by a namespaced dependent → checked",
			before: []Change{add("v1", "Namespace", meta("", "n", "n1", ownerRef("v1", "Thing", "t", "t1", false)))},
			change: add("v1", "Pod", meta("a", "p", "pa", ownerRef("v1", "Thing", "t", "t1", false))),
			want:   Effects{AttemptToDelete: []string{"pa"}},
		},
		{
			name:   "addDependentToOwners: a cluster-scoped owner observed, named by a namespaced dependent → valid, nothing to do",
			before: []Change{add("v1", "Node", meta("", "n", "n1"))},
			change: add("v1", "Pod", meta("a", "p", "pa", ownerRef("v1", "Node", "n", "n1", false))),
			want:   Effects{},
		},
		{
			name:   "processGraphChanges: an informer delete removes the node, marks it absent and wakes its dependents",
			before: []Change{add("apps/v1", "Deployment", deployment), add("apps/v1", "ReplicaSet", replicaSet)},
			change: del("apps/v1", "Deployment", deployment),
			want:   Effects{AttemptToDelete: []string{"rs1"}, Absent: []objectRef{idD1}},
			nodes:  map[string]*nodeState{"d1": nil, "rs1": {identity: idRS1}},
		},
		{
			name: "processGraphChanges: a deleted dependent wakes an owner that is deleting its dependents",
			before: []Change{add("apps/v1", "ReplicaSet", deleting(replicaSet, FinalizerDeleteDependents)),
				add("v1", "Pod", pod)},
			change: del("v1", "Pod", pod),
			want:   Effects{AttemptToDelete: []string{"rs1"}},
			nodes:  map[string]*nodeState{"p1": nil},
		},
		{
			name:   "processTransitions: foregroundDeletion starts → deletingDependents, every dependent and the owner queued",
			before: []Change{add("apps/v1", "ReplicaSet", replicaSet), add("v1", "Pod", pod), add("v1", "Pod", meta("ns", "web-1-b", "p2", refRS1))},
			change: update("apps/v1", "ReplicaSet", replicaSet, deleting(replicaSet, FinalizerDeleteDependents)),
			want:   Effects{AttemptToDelete: []string{"p1", "p2", "rs1"}},
			nodes: map[string]*nodeState{"rs1": {identity: idRS1, beingDeleted: true, deletingDependents: true,
				dependents: []string{"p1", "p2"}}},
		},
		{
			name:   "processTransitions: the orphan finalizer → the owner goes to attemptToOrphan",
			before: []Change{add("apps/v1", "Deployment", deployment), add("apps/v1", "ReplicaSet", replicaSet)},
			change: update("apps/v1", "Deployment", deployment, deleting(deployment, FinalizerOrphanDependents)),
			want:   Effects{AttemptToOrphan: []string{"d1"}},
			nodes:  map[string]*nodeState{"d1": {identity: idD1, beingDeleted: true, dependents: []string{"rs1"}}},
		},
		{
			name:   "deletionStartsWithFinalizer: a resync of an object already being deleted starts nothing",
			before: []Change{add("apps/v1", "Deployment", deleting(deployment, FinalizerOrphanDependents))},
			change: update("apps/v1", "Deployment", deleting(deployment, FinalizerOrphanDependents), deleting(deployment, FinalizerOrphanDependents)),
			want:   Effects{},
		},
		{
			name:   "processGraphChanges: creation and foreground deletion folded into one add",
			change: add("apps/v1", "Deployment", deleting(deployment, FinalizerDeleteDependents)),
			want:   Effects{AttemptToDelete: []string{"d1"}},
			nodes:  map[string]*nodeState{"d1": {identity: idD1, beingDeleted: true, deletingDependents: true}},
		},
		{
			name:   "addUnblockedOwnersToDeleteQueue: a removed blocking reference wakes the owner",
			before: []Change{add("apps/v1", "ReplicaSet", deleting(replicaSet, FinalizerDeleteDependents)), add("v1", "Pod", pod)},
			change: update("v1", "Pod", pod, meta("ns", "web-1-a", "p1")),
			want:   Effects{AttemptToDelete: []string{"rs1"}},
			nodes:  map[string]*nodeState{"rs1": {identity: idRS1, beingDeleted: true, deletingDependents: true}},
		},
		{
			name: "kcm: a dependent that loses one of several references is checked again (the one that went may have kept it)",
			before: []Change{add("apps/v1", "ReplicaSet", replicaSet),
				add("v1", "Pod", meta("ns", "web-1-a", "p1", refRS1, ownerRef("v1", "ConfigMap", "cm", "c1", false)))},
			change: update("v1", "Pod", meta("ns", "web-1-a", "p1", refRS1, ownerRef("v1", "ConfigMap", "cm", "c1", false)), pod),
			want:   Effects{AttemptToDelete: []string{"p1"}},
		},
		{
			name:   "addUnblockedOwnersToDeleteQueue: blockOwnerDeletion true → false wakes the owner",
			before: []Change{add("apps/v1", "ReplicaSet", replicaSet), add("v1", "Pod", pod)},
			change: update("v1", "Pod", pod, meta("ns", "web-1-a", "p1", ownerRef("apps/v1", "ReplicaSet", "web-1", "rs1", false))),
			want:   Effects{AttemptToDelete: []string{"rs1"}},
			nodes:  map[string]*nodeState{"rs1": {identity: idRS1, dependents: []string{"p1"}}},
		},
		{
			name:   "processGraphChanges: a virtual delete of a virtual node all of whose dependents agree removes it",
			before: []Change{add("apps/v1", "ReplicaSet", replicaSet)},
			change: virtualDel(idD1),
			want:   Effects{AttemptToDelete: []string{"rs1"}, Absent: []objectRef{idD1}},
			nodes:  map[string]*nodeState{"d1": nil},
		},
		{
			name: "processGraphChanges: dependents disagreeing on a virtual owner keep it; it moves on to their identity",
			before: []Change{add("apps/v1", "ReplicaSet", replicaSet),
				add("apps/v1", "ReplicaSet", meta("ns", "web-2", "rs2", ownerRef("apps/v1", "Deployment", "web-old", "d1", true)))},
			change: virtualDel(idD1),
			want: Effects{AttemptToDelete: []string{"rs1"}, AttemptToDeleteLater: []string{"d1"},
				Absent: []objectRef{idD1}},
			nodes: map[string]*nodeState{"d1": {identity: objectRef{"apps/v1", "Deployment", "ns", "web-old", "d1"},
				virtual: true, dependents: []string{"rs1", "rs2"}}},
		},
		{
			name:   "processGraphChanges: a virtual delete under other coordinates never removes an observed node",
			before: []Change{add("apps/v1", "Deployment", deployment), add("apps/v1", "ReplicaSet", meta("ns", "web-1", "rs1", ownerRef("apps/v1", "Deployment", "wrong", "d1", true)))},
			change: virtualDel(objectRef{"apps/v1", "Deployment", "ns", "wrong", "d1"}),
			want:   Effects{AttemptToDelete: []string{"rs1"}, Absent: []objectRef{{"apps/v1", "Deployment", "ns", "wrong", "d1"}}},
			nodes:  map[string]*nodeState{"d1": {identity: idD1, dependents: []string{"rs1"}}},
		},
		{
			name:   "processGraphChanges: a delete of a node the graph never had does nothing",
			change: del("v1", "Pod", pod),
			want:   Effects{},
		},
		{
			name:   "processGraphChanges: a changed apiVersion is taken from the informer",
			before: []Change{add("apps/v1beta2", "Deployment", deployment)},
			change: update("apps/v1", "Deployment", deployment, deployment),
			want:   Effects{},
			nodes:  map[string]*nodeState{"d1": {identity: idD1}},
		},
		{
			name: "a cycle of ownerReferences: each node is the other's dependent, and foreground deletion of one queues both",
			before: []Change{add("v1", "ConfigMap", meta("ns", "a", "a1", ownerRef("v1", "ConfigMap", "b", "b1", true))),
				add("v1", "ConfigMap", meta("ns", "b", "b1", ownerRef("v1", "ConfigMap", "a", "a1", true)))},
			change: update("v1", "ConfigMap", meta("ns", "a", "a1", ownerRef("v1", "ConfigMap", "b", "b1", true)),
				deleting(meta("ns", "a", "a1", ownerRef("v1", "ConfigMap", "b", "b1", true)), FinalizerDeleteDependents)),
			want: Effects{AttemptToDelete: []string{"b1", "a1"}},
			nodes: map[string]*nodeState{
				"a1": {identity: objectRef{"v1", "ConfigMap", "ns", "a", "a1"}, beingDeleted: true, deletingDependents: true, dependents: []string{"b1"}},
				"b1": {identity: objectRef{"v1", "ConfigMap", "ns", "b", "b1"}, dependents: []string{"a1"}},
			},
		},
	} {
		t.Run(tc.name, func(t *testing.T) {
			g := NewGraph()
			for _, c := range tc.before {
				g.Apply(c)
			}
			if got := g.Apply(tc.change); !reflect.DeepEqual(got, tc.want) {
				t.Errorf("effects\n got %+v\nwant %+v", got, tc.want)
			}
			for uid, want := range tc.nodes {
				got, ok := stateOf(g, uid)
				switch {
				case want == nil && ok:
					t.Errorf("node %s still in the graph: %+v", uid, got)
				case want != nil && !ok:
					t.Errorf("node %s missing", uid)
				case want != nil && !reflect.DeepEqual(got, *want):
					t.Errorf("node %s\n got %+v\nwant %+v", uid, got, *want)
				}
			}
		})
	}
}

// TestGraphRemovesEdges: a dependent that drops an ownerReference, or is
// deleted, leaves its owner's dependents; an owner is never left pointing
// at a node the graph no longer has.
func TestGraphRemovesEdges(t *testing.T) {
	g := NewGraph()
	g.Apply(add("apps/v1", "Deployment", deployment))
	g.Apply(add("apps/v1", "ReplicaSet", replicaSet))
	g.Apply(add("v1", "Pod", pod))
	g.Apply(update("apps/v1", "ReplicaSet", replicaSet, meta("ns", "web-1", "rs1")))
	if s, _ := stateOf(g, "d1"); len(s.dependents) != 0 {
		t.Errorf("the deployment still lists %v after the reference was dropped", s.dependents)
	}
	g.Apply(del("v1", "Pod", pod))
	if s, _ := stateOf(g, "rs1"); len(s.dependents) != 0 {
		t.Errorf("the replicaset still lists %v after the pod went", s.dependents)
	}
	if g.Len() != 2 {
		t.Errorf("graph has %d nodes, want 2", g.Len())
	}
}
