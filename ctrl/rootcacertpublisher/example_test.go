package rootcacertpublisher_test

import (
	"context"
	"fmt"

	"github.com/kcmlab/kcm/ctrl/rootcacertpublisher"
	"github.com/kcmlab/kcm/internal/testing/resttest"
	"github.com/kcmlab/kcm/kube/api"
	"github.com/kcmlab/kcm/kube/rest"
)

// ExampleController_Sync: the controller's whole loop body for one
// namespace. team-a has no kube-root-ca.crt, so one sync creates it;
// team-b's was edited (another CA), so its sync puts the CA back; team-c's
// is as published, and its sync writes nothing. The apiserver is kcm's
// recording fake.
func ExampleController_Sync() {
	apiserver, err := resttest.Start(resttest.Options{})
	if err != nil {
		panic(err)
	}
	defer apiserver.Close()

	const ca = "-----BEGIN CERTIFICATE-----\n...\n-----END CERTIFICATE-----\n"
	published := func(ns, data string) *api.ConfigMap {
		return &api.ConfigMap{ObjectMeta: api.ObjectMeta{Namespace: ns, Name: rootcacertpublisher.ConfigMapName,
			Annotations: map[string]string{rootcacertpublisher.DescriptionAnnotation: rootcacertpublisher.Description}},
			Data: map[string]string{rootcacertpublisher.CAKey: data}}
	}
	configMaps := []*api.ConfigMap{published("team-b", "another CA"), published("team-c", ca)}
	resttest.Add(apiserver, rest.ConfigMaps, configMaps...)
	c := rootcacertpublisher.NewController(resttest.Lister("configmaps", configMaps...), apiserver.Client(),
		rootcacertpublisher.Config{RootCA: []byte(ca)})

	for _, ns := range []string{"team-a", "team-b", "team-c"} {
		_, err := c.Sync(context.Background(), ns)
		fmt.Println("synced", ns, "error:", err)
	}
	for _, a := range apiserver.Actions() {
		fmt.Println(a)
	}
	// Output:
	// synced team-a error: <nil>
	// synced team-b error: <nil>
	// synced team-c error: <nil>
	// create configmaps team-a/kube-root-ca.crt
	// update configmaps team-b/kube-root-ca.crt
}
