package serviceaccount_test

import (
	"context"
	"fmt"

	"github.com/kcmlab/kcm/ctrl/serviceaccount"
	"github.com/kcmlab/kcm/informer"
	"github.com/kcmlab/kcm/internal/testing/resttest"
	"github.com/kcmlab/kcm/kube/api"
)

// ExampleController_Sync: the controller's whole loop body for one
// namespace. The listers hold an active namespace without its "default"
// ServiceAccount, so one sync creates it; a second namespace already has
// one, and its sync writes nothing. The apiserver is kcm's recording fake.
func ExampleController_Sync() {
	apiserver, err := resttest.Start(resttest.Options{})
	if err != nil {
		panic(err)
	}
	defer apiserver.Close()

	namespaces := resttest.Lister("namespaces",
		&api.Namespace{ObjectMeta: api.ObjectMeta{Name: "team-a"}, Status: api.NamespaceStatus{Phase: api.NamespaceActive}},
		&api.Namespace{ObjectMeta: api.ObjectMeta{Name: "team-b"}, Status: api.NamespaceStatus{Phase: api.NamespaceActive}})
	accounts := resttest.Lister("serviceaccounts", &api.ServiceAccount{ObjectMeta: api.ObjectMeta{Namespace: "team-b", Name: "default"}})
	c := serviceaccount.NewController(namespaces, informer.ServiceAccountLister{Lister: accounts}, apiserver.Client())

	for _, ns := range []string{"team-a", "team-b"} {
		_, err := c.Sync(context.Background(), ns)
		fmt.Println("synced", ns, "error:", err)
	}
	for _, a := range apiserver.Actions() {
		fmt.Println(a)
	}
	// Output:
	// synced team-a error: <nil>
	// synced team-b error: <nil>
	// create serviceaccounts team-a/default
}
