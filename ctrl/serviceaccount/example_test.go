package serviceaccount_test

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"

	"github.com/kcmlab/kcm/ctrl/serviceaccount"
	"github.com/kcmlab/kcm/informer"
	"github.com/kcmlab/kcm/kube/api"
	"github.com/kcmlab/kcm/kube/rest"
	"github.com/kcmlab/kcm/store"
)

// ExampleController_Sync: the controller's whole loop body for one
// namespace. The listers hold an active namespace without its "default"
// ServiceAccount, so one sync creates it; a second namespace already has
// one, and its sync writes nothing.
func ExampleController_Sync() {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		fmt.Println(r.Method, r.URL.Path)
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(http.StatusCreated)
		_, _ = w.Write(body)
	}))
	defer srv.Close()
	client, _ := rest.NewClient(&rest.Config{Host: srv.URL, QPS: -1})
	defer client.CloseIdleConnections()

	namespaces := store.New(store.Options[*api.Namespace]{})
	namespaces.Replace([]*api.Namespace{
		{ObjectMeta: api.ObjectMeta{Name: "team-a"}, Status: api.NamespaceStatus{Phase: api.NamespaceActive}},
		{ObjectMeta: api.ObjectMeta{Name: "team-b"}, Status: api.NamespaceStatus{Phase: api.NamespaceActive}},
	})
	accounts := store.New(store.Options[*api.ServiceAccount]{})
	accounts.Replace([]*api.ServiceAccount{{ObjectMeta: api.ObjectMeta{Namespace: "team-b", Name: "default"}}})
	c := serviceaccount.NewController(informer.NewLister(namespaces.View(), "namespaces"),
		informer.ServiceAccountLister{Lister: informer.NewLister(accounts.View(), "serviceaccounts")}, client)

	for _, ns := range []string{"team-a", "team-b"} {
		_, err := c.Sync(context.Background(), ns)
		fmt.Println("synced", ns, "error:", err)
	}
	// Output:
	// POST /api/v1/namespaces/team-a/serviceaccounts
	// synced team-a error: <nil>
	// synced team-b error: <nil>
}
