package namespace_test

import (
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/kcmlab/kcm/ctrl/namespace"
	"github.com/kcmlab/kcm/internal/testing/resttest"
	"github.com/kcmlab/kcm/kube/api"
	"github.com/kcmlab/kcm/kube/rest"
)

// A namespace was deleted and its content is gone: one sync deletes what
// discovery lists (nothing is left), writes the five conditions, all
// False, and removes the "kubernetes" finalizer through /finalize, which
// lets the apiserver (here kcm's recording fake) remove the namespace.
func ExampleController_Sync() {
	apiserver, err := resttest.Start(resttest.Options{})
	if err != nil {
		panic(err)
	}
	defer apiserver.Close()
	dt := api.NewTime(time.Date(2025, 6, 1, 12, 0, 0, 0, time.UTC))
	teamA := &api.Namespace{ObjectMeta: api.ObjectMeta{Name: "team-a", DeletionTimestamp: &dt},
		Spec: api.NamespaceSpec{Finalizers: []string{api.FinalizerKubernetes}}, Status: api.NamespaceStatus{Phase: api.NamespaceTerminating}}
	resttest.Add(apiserver, rest.Namespaces, teamA)

	discover := func(context.Context) ([]rest.APIResource, error) {
		return []rest.APIResource{{Resource: rest.ConfigMaps, Verbs: strings.Fields("delete deletecollection list")}}, nil
	}
	c := namespace.NewController(resttest.Lister("namespaces", teamA), apiserver.Client(), namespace.Config{Discover: discover})
	res, err := c.Sync(context.Background(), "team-a")
	for _, a := range apiserver.Actions() {
		fmt.Println(a)
	}
	_, still := resttest.Get[*api.Namespace](apiserver, rest.Namespaces, "", "team-a")
	fmt.Println("requeue after:", res.RequeueAfter, "error:", err, "namespace still there:", still)
	// Output:
	// get namespaces team-a
	// deletecollection configmaps team-a/ policy=Background
	// list configmaps team-a/
	// update namespaces/status team-a
	// update namespaces/finalize team-a
	// requeue after: 0s error: <nil> namespace still there: false
}
