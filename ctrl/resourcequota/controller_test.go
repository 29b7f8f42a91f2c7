package resourcequota

import (
	"context"
	"testing"
	"time"

	"github.com/rs/zerolog"
	"github.com/spf13/pflag"

	"github.com/kcmlab/kcm/ctrl"
	"github.com/kcmlab/kcm/kube/rest"
)

// TestFlags: --resource-quota-sync-period reaches the controller (0 turns
// the full resync off, as kube-controller-manager reads it) and
// --concurrent-resource-quota-syncs is the worker count the manager
// passes to Run.
func TestFlags(t *testing.T) {
	for _, tt := range []struct {
		args    []string
		period  time.Duration
		workers int
	}{
		{nil, 5 * time.Minute, 5},
		{[]string{"--resource-quota-sync-period=1m", "--concurrent-resource-quota-syncs=2"}, time.Minute, 2},
		{[]string{"--resource-quota-sync-period=0"}, 0, 5},
	} {
		ds, err := ctrl.NewDescriptors(Descriptor())
		if err != nil {
			t.Fatal(err)
		}
		o := ds.NewOptions()
		fs := pflag.NewFlagSet("kcm", pflag.ContinueOnError)
		ds.AddFlags(fs, o)
		if err := fs.Parse(tt.args); err != nil {
			t.Fatal(err)
		}
		client, err := rest.NewClient(&rest.Config{Host: "https://127.0.0.1:1"}) // never called
		if err != nil {
			t.Fatal(err)
		}
		cc, err := ctrl.CreateControllerContext(client, ctrl.Config{Options: o, Logger: zerolog.Nop()})
		if err != nil {
			t.Fatal(err)
		}
		c, err := New(context.Background(), cc, Name)
		if err != nil {
			t.Fatal(err)
		}
		rc := c.(*Controller)
		rc.shutDownQueues()
		if rc.syncPeriod != tt.period || cc.Workers(Name) != tt.workers {
			t.Errorf("%q: sync period %s, workers %d; want %s, %d", tt.args, rc.syncPeriod, cc.Workers(Name), tt.period, tt.workers)
		}
	}
}
