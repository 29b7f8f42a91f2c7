package ctrl

import (
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/spf13/pflag"
)

func TestFlags(t *testing.T) {
	r := testRegistry(t)
	o := r.NewOptions()
	fs := pflag.NewFlagSet("kcm", pflag.ContinueOnError)
	r.AddFlags(fs, o)
	if got := o.Workers("replicaset-controller"); got != 5 {
		t.Errorf("default replicaset workers = %d, want 5", got)
	}
	if got := o.Workers("serviceaccount-controller"); got != DefaultWorkers {
		t.Errorf("serviceaccount workers = %d, want %d", got, DefaultWorkers)
	}
	if err := fs.Parse([]string{"--controllers=*,-replicaset", "--concurrent-deployment-syncs=7"}); err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(o.Controllers, []string{"*", "-replicaset"}) {
		t.Errorf("Controllers = %q", o.Controllers)
	}
	if o.Workers("deployment-controller") != 7 || o.Workers("replicaset-controller") != 5 {
		t.Errorf("workers after parse: %v", o.ConcurrentSyncs)
	}
	if v := fs.Lookup("concurrent-deployment-syncs"); v.Value.String() != "7" || v.Value.Type() != "int32" || v.DefValue != "5" {
		t.Errorf("flag value %q type %q default %q", v.Value.String(), v.Value.Type(), v.DefValue)
	}
	for _, bad := range []string{"-1", "x", "99999999999"} {
		if err := fs.Set("concurrent-replicaset-syncs", bad); err == nil {
			t.Errorf("--concurrent-replicaset-syncs=%s accepted", bad)
		}
	}
	if err := fs.Set("concurrent-replicaset-syncs", "0"); err != nil || o.Workers("replicaset-controller") != 0 {
		t.Errorf("0 workers (kube-controller-manager accepts it): %v", err)
	}
	usage := fs.Lookup("controllers").Usage
	for _, want := range []string{"'*' enables all on-by-default controllers",
		"All controllers: bootstrap-signer-controller, deployment-controller, replicaset-controller, serviceaccount-controller",
		"Disabled-by-default controllers: bootstrap-signer-controller"} {
		if !strings.Contains(usage, want) {
			t.Errorf("--controllers usage lacks %q:\n%s", want, usage)
		}
	}
	if fs.Lookup("concurrent-replicaset-syncs").Usage != "replica sets synced at once" {
		t.Error("concurrency usage not taken from the descriptor")
	}
}

// TestControllerFlags: a descriptor's own flags (kube-controller-manager's
// --enable-garbage-collector, a bool; --namespace-sync-period, a
// duration) are registered with their defaults, parse as pflag's bool and
// duration flags do (a bare --flag means true), reach the controller
// through ControllerContext, and each Options owns its values.
func TestControllerFlags(t *testing.T) {
	r, err := NewDescriptors(&ControllerDescriptor{Name: "gc", Constructor: nopConstructor, Flags: []ControllerFlag{
		BoolFlag("enable-gc", true, "turns the collector on"),
		DurationFlag("gc-period", 5*time.Minute, "how often"),
		Int32Flag("max-per-slice", 100, 1, 1000, "how many"),
	}})
	if err != nil {
		t.Fatal(err)
	}
	o := r.NewOptions()
	fs := pflag.NewFlagSet("kcm", pflag.ContinueOnError)
	r.AddFlags(fs, o)
	for name, want := range map[string][2]string{"enable-gc": {"true", "bool"}, "gc-period": {"5m0s", "duration"}, "max-per-slice": {"100", "int32"}} {
		f := fs.Lookup(name)
		if f == nil || f.DefValue != want[0] || f.Value.Type() != want[1] {
			t.Fatalf("--%s: %+v, want default %s of type %s", name, f, want[0], want[1])
		}
	}
	cc := ControllerContext{options: o}
	if !cc.BoolFlag("enable-gc", false) || cc.DurationFlag("gc-period", 0) != 5*time.Minute || cc.Int32Flag("max-per-slice", 0) != 100 {
		t.Error("defaults do not reach the controller context")
	}
	if err := fs.Parse([]string{"--enable-gc=false", "--gc-period=90s", "--max-per-slice=1000"}); err != nil {
		t.Fatal(err)
	}
	if cc.BoolFlag("enable-gc", true) || cc.DurationFlag("gc-period", 0) != 90*time.Second || cc.Int32Flag("max-per-slice", 0) != 1000 {
		t.Errorf("parsed values not seen: %v %v %v", cc.BoolFlag("enable-gc", true), cc.DurationFlag("gc-period", 0), cc.Int32Flag("max-per-slice", 0))
	}
	if err := fs.Parse([]string{"--enable-gc"}); err != nil || !cc.BoolFlag("enable-gc", false) {
		t.Errorf("a bare --enable-gc: %v, value %v", err, cc.BoolFlag("enable-gc", false))
	}
	for flag, bad := range map[string]string{"enable-gc": "maybe", "gc-period": "soon", "max-per-slice": "1001"} {
		if err := fs.Set(flag, bad); err == nil {
			t.Errorf("--%s=%s accepted", flag, bad)
		}
	}
	if other := r.NewOptions(); (ControllerContext{options: other}).DurationFlag("gc-period", 0) != 5*time.Minute {
		t.Error("a second Options shares the first one's values")
	}
	if (ControllerContext{}).BoolFlag("enable-gc", true) != true || cc.BoolFlag("no-such-flag", true) != true {
		t.Error("a context without options, or an unknown flag, must give the default")
	}
	if err := fs.Set("max-per-slice", "0"); err == nil || cc.Int32Flag("max-per-slice", 0) != 1000 {
		t.Errorf("--max-per-slice=0 below the range: %v, value %d", err, cc.Int32Flag("max-per-slice", 0))
	}
	if _, ok := o.Int32("gc-period"); ok {
		t.Error("a duration flag read as an int32")
	}
	if _, ok := o.Duration("enable-gc"); ok {
		t.Error("a bool flag read as a duration")
	}
}
