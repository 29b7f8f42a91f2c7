package podgc

import (
	"context"
	"slices"
	"testing"
	"time"

	"github.com/spf13/pflag"

	"github.com/kcmlab/kcm/ctrl"
)

// TestDescriptor: kube-controller-manager's name, alias and flag, with
// its default and usage, and one worker.
func TestDescriptor(t *testing.T) {
	d := Descriptor()
	if d.Name != "pod-garbage-collector-controller" || !slices.Equal(d.Aliases, []string{"podgc"}) ||
		d.DisabledByDefault || d.Concurrency != nil || d.Constructor == nil || len(d.Flags) != 1 {
		t.Fatalf("descriptor %+v", d)
	}
	reg, err := ctrl.NewDescriptors(d)
	if err != nil {
		t.Fatal(err)
	}
	o := reg.NewOptions()
	fs := pflag.NewFlagSet("kcm", pflag.ContinueOnError)
	reg.AddFlags(fs, o)
	fl := fs.Lookup("terminated-pod-gc-threshold")
	const usage = "Number of terminated pods that can exist before the terminated pod garbage collector starts " +
		"deleting terminated pods. If <= 0, the terminated pod garbage collector is disabled."
	if fl == nil || fl.DefValue != "12500" || fl.Value.Type() != "int32" || fl.Usage != usage {
		t.Fatalf("--terminated-pod-gc-threshold: %+v", fl)
	}
	for _, arg := range []string{"0", "-5", "40"} {
		if err := fs.Parse([]string{"--terminated-pod-gc-threshold=" + arg}); err != nil {
			t.Fatalf("--terminated-pod-gc-threshold=%s: %v", arg, err)
		}
		if v, ok := o.Int32(ThresholdFlag); !ok || fl.Value.String() != arg {
			t.Fatalf("--terminated-pod-gc-threshold=%s reads back %d (%v)", arg, v, ok)
		}
	}
}

// TestSyncRequeues: a pass asks to run again one period later (20s, as
// gcCheckPeriod, unless configured), and never fails.
func TestSyncRequeues(t *testing.T) {
	for _, tc := range []struct {
		period, want time.Duration
	}{{0, 20 * time.Second}, {time.Second, time.Second}} {
		f := newFixture(t, Config{CheckPeriod: tc.period}, nil, nil)
		res, err := f.c.Sync(context.Background(), passKey)
		if err != nil || res.RequeueAfter != tc.want || res.Requeue {
			t.Errorf("period %s: Sync = %+v, %v; want RequeueAfter %s", tc.period, res, err, tc.want)
		}
	}
}

// TestConfigDefaults: a zero quarantine means kube-controller-manager's
// 40s, a negative one none.
func TestConfigDefaults(t *testing.T) {
	for _, tc := range []struct {
		in, want time.Duration
	}{{0, 40 * time.Second}, {-1, 0}, {3 * time.Second, 3 * time.Second}} {
		if got := newFixture(t, Config{QuarantineTime: tc.in}, nil, nil).c.quarantine; got != tc.want {
			t.Errorf("QuarantineTime %s: quarantine %s, want %s", tc.in, got, tc.want)
		}
	}
}
