package podgc

import (
	"context"
	"slices"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/rs/zerolog"
	"github.com/spf13/pflag"

	"github.com/kcmlab/kcm/clock"
	"github.com/kcmlab/kcm/ctrl"
	"github.com/kcmlab/kcm/kube/rest"
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

// TestConstructor: the controller as the manager builds it is a loop that
// waits for the pod and node informers (it registers no handler), and
// registers its two counters on the context's registry; a registry that
// holds other counters under those names fails the build.
func TestConstructor(t *testing.T) {
	build := func(reg *prometheus.Registry) (ctrl.Controller, error) {
		client, err := rest.NewClient(&rest.Config{Host: "https://127.0.0.1:1"})
		if err != nil {
			t.Fatal(err)
		}
		cc, err := ctrl.CreateControllerContext(client, ctrl.Config{Logger: zerolog.Nop(), Registerer: reg,
			Clock: clock.NewFake(t0)})
		if err != nil {
			t.Fatal(err)
		}
		return Descriptor().Constructor(context.Background(), cc, Name)
	}
	reg := prometheus.NewRegistry()
	c, err := build(reg)
	if err != nil {
		t.Fatal(err)
	}
	loop, ok := c.(*ctrl.Loop)
	if !ok {
		t.Fatalf("the controller is a %T, not a ctrl.Loop", c)
	}
	loop.Queue().ShutDown()
	if got := loop.WaitsFor(); !slices.Equal(got, []string{"pods", "nodes"}) {
		t.Errorf("waits for %q, want [pods nodes]", got)
	}
	if n := loop.Queue().Len(); n != 1 {
		t.Errorf("queue holds %d keys, want the one pass key", n)
	}
	for _, name := range []string{"force_delete_pods_total", "force_delete_pod_errors_total"} {
		err := reg.Register(prometheus.NewCounterVec(prometheus.CounterOpts{Subsystem: Subsystem, Name: name, Help: "x"},
			[]string{"namespace", "reason"}))
		if err == nil {
			t.Errorf("%s_%s was not registered by the constructor", Subsystem, name)
		}
	}

	taken := prometheus.NewRegistry()
	taken.MustRegister(prometheus.NewCounter(prometheus.CounterOpts{Subsystem: Subsystem, Name: "force_delete_pods_total", Help: "other"}))
	if _, err := build(taken); err == nil {
		t.Fatal("built on a registry whose pod_gc_collector_force_delete_pods_total is another counter")
	}
}
