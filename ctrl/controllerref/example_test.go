package controllerref_test

import (
	"context"
	"fmt"

	"github.com/kcmlab/kcm/ctrl/controllerref"
	"github.com/kcmlab/kcm/kube/api"
	"github.com/kcmlab/kcm/kube/labels"
)

// A ReplicaSet claims the pods of its namespace: its own stay, a matching
// orphan is adopted with a patch, another controller's pod is left alone.
func ExampleManager_Claim() {
	rs := &api.ReplicaSet{ObjectMeta: api.ObjectMeta{Name: "web", Namespace: "ns", UID: "rs-uid"}}
	owner := controllerref.OwnerOf(rs, "apps/v1", "ReplicaSet")
	mine := owner.Ref
	theirs := controllerref.NewControllerRef(&api.ObjectMeta{Name: "other", UID: "x"}, "apps/v1", "ReplicaSet")
	app := map[string]string{"app": "web"}
	pods := []*api.Pod{
		{ObjectMeta: api.ObjectMeta{Name: "web-1", Namespace: "ns", Labels: app, OwnerReferences: []api.OwnerReference{mine}}},
		{ObjectMeta: api.ObjectMeta{Name: "stray", Namespace: "ns", UID: "p2", Labels: app}},
		{ObjectMeta: api.ObjectMeta{Name: "other-1", Namespace: "ns", Labels: app, OwnerReferences: []api.OwnerReference{theirs}}},
	}
	patch := func(_ context.Context, name string, p []byte) error {
		fmt.Printf("patch %s: %s\n", name, p)
		return nil
	}
	m := controllerref.NewManager[*api.Pod](owner, labels.SelectorFromSet(app), patch, nil)
	owned, _ := m.Claim(context.Background(), pods)
	for _, p := range owned {
		fmt.Println("owned:", p.Name)
	}
	// Output:
	// patch stray: {"metadata":{"ownerReferences":[{"apiVersion":"apps/v1","kind":"ReplicaSet","name":"web","uid":"rs-uid","controller":true,"blockOwnerDeletion":true}],"uid":"p2"}}
	// owned: web-1
	// owned: stray
}
