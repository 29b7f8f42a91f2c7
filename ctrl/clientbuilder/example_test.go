package clientbuilder_test

import (
	"context"
	"fmt"
	"net/http/httptest"

	"github.com/kcmlab/kcm/clock"
	"github.com/kcmlab/kcm/ctrl/clientbuilder"
	"github.com/kcmlab/kcm/kube/rest"
)

// A controller's client carries the token of its ServiceAccount, which
// the builder asked for with the manager's own credentials.
func Example() {
	api := &fakeAPI{clk: clock.NewFake(t0), revoked: map[string]bool{}}
	s := httptest.NewServer(api)
	defer s.Close()
	root, err := rest.NewClient(&rest.Config{Host: s.URL, Credentials: rest.StaticToken("manager")})
	if err != nil {
		panic(err)
	}
	defer root.CloseIdleConnections()
	b := clientbuilder.New(root, clientbuilder.Options{Clock: api.clk})
	defer b.Close()

	c := b.Client("replicaset-controller", "kcm/v0 (replicaset-controller)", 0, 0)
	if _, err := c.RawGet(context.Background(), "/api/v1/namespaces/ns1/configmaps/cm1"); err != nil {
		panic(err)
	}
	accounts, tokens, readers := api.snapshot()
	fmt.Println("created:", accounts)
	fmt.Println("token for:", tokens[0].Account, "asked by:", tokens[0].Authorization)
	fmt.Println("request as:", clientbuilder.Username(b.Namespace(), "replicaset-controller"), "with", readers[0])
	// Output:
	// created: [replicaset-controller]
	// token for: replicaset-controller asked by: Bearer manager
	// request as: system:serviceaccount:kube-system:replicaset-controller with Bearer replicaset-controller-1
}
