package garbagecollector_test

import (
	"fmt"
	"os"
	"time"

	"github.com/kcmlab/kcm/ctrl/garbagecollector"
	"github.com/kcmlab/kcm/kube/api"
)

// The graph turns informer notifications into work for the collector's
// two queues. A ReplicaSet seen before its Deployment makes a virtual
// owner that a worker must verify; the Deployment's own notification
// then replaces it; its foreground deletion queues every dependent.
func ExampleGraph() {
	yes := true
	g := garbagecollector.NewGraph()
	deployment := &api.ObjectMeta{Namespace: "ns", Name: "web", UID: "d1"}
	rs := &api.ObjectMeta{Namespace: "ns", Name: "web-1", UID: "rs1", OwnerReferences: []api.OwnerReference{
		{APIVersion: "apps/v1", Kind: "Deployment", Name: "web", UID: "d1", Controller: &yes, BlockOwnerDeletion: &yes}}}

	e := g.Apply(garbagecollector.Change{Type: garbagecollector.Added, APIVersion: "apps/v1", Kind: "ReplicaSet", Object: rs})
	owner, _ := g.Item("d1")
	fmt.Println("ReplicaSet added: verify", e.AttemptToDelete, "virtual:", owner.Virtual)

	e = g.Apply(garbagecollector.Change{Type: garbagecollector.Added, APIVersion: "apps/v1", Kind: "Deployment", Object: deployment})
	owner, _ = g.Item("d1")
	fmt.Println("Deployment added: effects", e.Empty(), "virtual:", owner.Virtual)

	deleting := *deployment
	now := api.NewTime(time.Date(2025, 1, 2, 3, 4, 5, 0, time.UTC))
	deleting.DeletionTimestamp, deleting.Finalizers = &now, []string{garbagecollector.FinalizerDeleteDependents}
	e = g.Apply(garbagecollector.Change{Type: garbagecollector.Updated, APIVersion: "apps/v1", Kind: "Deployment", Old: deployment, Object: &deleting})
	fmt.Println("foreground deletion: attempt to delete", e.AttemptToDelete)

	_ = g.WriteDOT(os.Stdout, "rs1")
	// Output:
	// ReplicaSet added: verify [d1] virtual: true
	// Deployment added: effects true virtual: false
	// foreground deletion: attempt to delete [rs1 d1]
	// strict digraph full {
	//   // Node definitions.
	//   "d1" [
	//     label="uid=d1\nnamespace=ns\nDeployment.v1.apps/web\nbeingDeleted,deletingDependents\n"
	//     group="apps"
	//     version="v1"
	//     kind="Deployment"
	//     namespace="ns"
	//     name="web"
	//     uid="d1"
	//     missing="false"
	//     beingDeleted="true"
	//     deletingDependents="true"
	//     virtual="false"
	//   ];
	//   "rs1" [
	//     label="uid=rs1\nnamespace=ns\nReplicaSet.v1.apps/web-1\n"
	//     group="apps"
	//     version="v1"
	//     kind="ReplicaSet"
	//     namespace="ns"
	//     name="web-1"
	//     uid="rs1"
	//     missing="false"
	//     beingDeleted="false"
	//     deletingDependents="false"
	//     virtual="false"
	//   ];
	//   // Edge definitions.
	//   "rs1" -> "d1";
	// }
}
