package legacysatokencleaner_test

import (
	"context"
	"fmt"
	"time"

	"github.com/kcmlab/kcm/clock"
	"github.com/kcmlab/kcm/ctrl/legacysatokencleaner"
	"github.com/kcmlab/kcm/informer"
	"github.com/kcmlab/kcm/internal/testing/resttest"
	"github.com/kcmlab/kcm/kube/api"
	"github.com/kcmlab/kcm/kube/rest"
)

// ExampleController_Pass runs one pass over two auto-generated tokens of
// ServiceAccount team-a/builder, neither used for over a year: "old" is
// labelled invalid since today, "stale" — labelled invalid over a year
// ago — is deleted. kube-apiserver began tracking token use in 2024. The
// apiserver is kcm's recording fake.
func ExampleController_Pass() {
	apiserver, err := resttest.Start(resttest.Options{})
	if err != nil {
		panic(err)
	}
	defer apiserver.Close()
	resttest.Add(apiserver, rest.ConfigMaps, &api.ConfigMap{ObjectMeta: api.ObjectMeta{Namespace: "kube-system",
		Name: legacysatokencleaner.TrackingConfigMap}, Data: map[string]string{"since": "2024-01-01"}})

	created := api.Time{Time: time.Date(2025, 1, 1, 0, 0, 0, 0, time.UTC)}
	tokens := []*api.Secret{
		{ObjectMeta: api.ObjectMeta{Namespace: "team-a", Name: "old", UID: "u-old", ResourceVersion: "7", CreationTimestamp: created,
			Annotations: map[string]string{api.ServiceAccountNameKey: "builder"}}, Type: api.SecretTypeServiceAccountToken},
		{ObjectMeta: api.ObjectMeta{Namespace: "team-a", Name: "stale", UID: "u-stale", ResourceVersion: "8", CreationTimestamp: created,
			Annotations: map[string]string{api.ServiceAccountNameKey: "builder"},
			Labels:      map[string]string{legacysatokencleaner.InvalidSinceLabelKey: "2025-06-01"}}, Type: api.SecretTypeServiceAccountToken},
	}
	builder := &api.ServiceAccount{ObjectMeta: api.ObjectMeta{Namespace: "team-a", Name: "builder"},
		Secrets: []api.ObjectReference{{Name: "old"}, {Name: "stale"}}}
	resttest.Add(apiserver, rest.Secrets, tokens...)

	c, err := legacysatokencleaner.NewController(
		informer.ServiceAccountLister{Lister: resttest.Lister("serviceaccounts", builder)},
		resttest.Lister("secrets", tokens...), informer.PodLister{Lister: resttest.Lister[*api.Pod]("pods")},
		apiserver.Client(), legacysatokencleaner.Config{CleanUpPeriod: legacysatokencleaner.DefaultCleanUpPeriod,
			SyncInterval: legacysatokencleaner.DefaultSyncInterval, Clock: clock.NewFake(time.Date(2026, 12, 6, 9, 0, 0, 0, time.UTC))})
	if err != nil {
		panic(err)
	}
	c.Pass(context.Background())
	for _, a := range apiserver.Actions() {
		fmt.Println(a)
	}
	// Output:
	// get configmaps kube-system/kube-apiserver-legacy-service-account-token-tracking
	// patch secrets team-a/old merge {"kind":"Secret","apiVersion":"v1","metadata":{"name":"old","namespace":"team-a","uid":"u-old","labels":{"kubernetes.io/legacy-token-invalid-since":"2026-12-06"}}}
	// delete secrets team-a/stale rv=8
}
