package resourcequota

import (
	"context"
	"errors"
	"testing"
	"testing/synctest"

	"github.com/rs/zerolog"

	"github.com/kcmlab/kcm/clock"
	"github.com/kcmlab/kcm/informer"
	"github.com/kcmlab/kcm/kube/api"
	"github.com/kcmlab/kcm/kube/rest"
)

// TestRunWaitsForMonitorsAndStops: while discovery fails there is no
// monitor, so no quota is synced (Kubernetes' IsSynced is false without
// monitors, and the workers wait for it); the discovery loop keeps
// trying every period; and Run returns nil as soon as its context ends,
// with every goroutine gone. In a synctest bubble: synctest.Wait returns
// once every goroutine of the controller is blocked, so a worker that
// took the queued key would have done so.
func TestRunWaitsForMonitorsAndStops(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		client, err := rest.NewClient(&rest.Config{Host: "https://127.0.0.1:1"}) // never called
		if err != nil {
			t.Fatal(err)
		}
		clk := clock.NewFake(t0)
		f := informer.NewFactory(client, informer.FactoryOptions{Clock: clk}) // never started: nothing syncs
		c, err := NewController(client, Informers{
			Quotas:   informer.For[api.ResourceQuota](f, ResourceQuotas),
			Pods:     informer.For[api.Pod](f, rest.Pods),
			Services: informer.For[api.Service](f, rest.Services),
			Claims:   informer.For[api.PersistentVolumeClaim](f, rest.PersistentVolumeClaims),
		}, Options{Clock: clk, Logger: zerolog.Nop(), SyncPeriod: DefaultSyncPeriod})
		if err != nil {
			t.Fatal(err)
		}
		discoveries := 0
		c.discover = func(context.Context) ([]rest.APIResource, error) {
			discoveries++
			return nil, errors.New("the server is currently unable to handle the request")
		}
		ctx, stop := context.WithCancel(context.Background())
		done := make(chan error, 1)
		go func() { done <- c.Run(ctx, 2) }()
		c.primary.Queue().Add("ns/q")
		synctest.Wait()
		for range 3 { // discovery periods pass, discovery still failing
			clk.Step(DefaultDiscoveryPeriod)
			synctest.Wait()
		}
		if discoveries != 4 {
			t.Errorf("%d discoveries in three periods, want 4 (the first at once)", discoveries)
		}
		if n := c.primary.Queue().Len(); n != 1 {
			t.Errorf("a worker took a quota before the monitors synced: %d queued", n)
		}
		stop()
		if err := <-done; err != nil {
			t.Fatalf("Run: %v", err)
		}
	})
}
