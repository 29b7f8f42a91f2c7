package legacysatokencleaner

import (
	"context"
	"slices"
	"strings"
	"testing"

	"github.com/rs/zerolog"
	"github.com/spf13/pflag"

	"github.com/kcmlab/kcm/ctrl"
	"github.com/kcmlab/kcm/internal/testing/resttest"
)

// TestDescriptor: kube-controller-manager's name, alias, on by default,
// one worker, and --legacy-service-account-token-clean-up-period
// defaulting to one year (8760h0m0s, as --help prints it).
func TestDescriptor(t *testing.T) {
	d := Descriptor()
	if d.Name != "legacy-serviceaccount-token-cleaner-controller" || !slices.Equal(d.Aliases, []string{"legacy-serviceaccount-token-cleaner"}) ||
		d.DisabledByDefault || d.Concurrency != nil || len(d.Flags) != 1 {
		t.Fatalf("descriptor %+v", d)
	}
	if f := d.Flags[0]; f.Name != "legacy-service-account-token-clean-up-period" || f.NewValue().String() != "8760h0m0s" {
		t.Fatalf("flag %s default %s", f.Name, f.NewValue())
	}
}

// TestNewRefusesANonPositivePeriod, as upstream's constructor does.
func TestNewRefusesANonPositivePeriod(t *testing.T) {
	for _, arg := range []string{"0s", "-1h"} {
		ds, err := ctrl.NewDescriptors(Descriptor())
		if err != nil {
			t.Fatal(err)
		}
		o := ds.NewOptions()
		fs := pflag.NewFlagSet("kcm", pflag.ContinueOnError)
		ds.AddFlags(fs, o)
		if err := fs.Parse([]string{"--" + FlagCleanUpPeriod + "=" + arg}); err != nil {
			t.Fatal(err)
		}
		cc, err := ctrl.CreateControllerContext(resttest.New(t, resttest.Options{}).Client(), ctrl.Config{Options: o, Logger: zerolog.Nop()})
		if err != nil {
			t.Fatal(err)
		}
		c, err := New(context.Background(), cc, Name)
		if c != nil || err == nil || !strings.Contains(err.Error(), "failed to init the legacy service account token cleaner: invalid CleanUpPeriod") {
			t.Fatalf("%s: %v, %v", arg, c, err)
		}
	}
}
