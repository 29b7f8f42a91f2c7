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

// TestDurationFlags: a descriptor's duration flags are registered with
// their defaults, printed as pflag's DurationVar prints them (so --help
// shows kube-controller-manager's "5m0s"), parsed by time.ParseDuration,
// and read back through Options and ControllerContext.
func TestDurationFlags(t *testing.T) {
	period := DurationFlag{Name: "namespace-sync-period", Default: 5 * time.Minute, Usage: "namespace resync"}
	r, err := NewDescriptors(&ControllerDescriptor{Name: "namespace-controller", Constructor: nopConstructor,
		Durations: []DurationFlag{period}})
	if err != nil {
		t.Fatal(err)
	}
	o := r.NewOptions()
	if got := o.Duration(period); got != 5*time.Minute {
		t.Errorf("default %v, want 5m", got)
	}
	fs := pflag.NewFlagSet("kcm", pflag.ContinueOnError)
	r.AddFlags(fs, o)
	f := fs.Lookup("namespace-sync-period")
	if f == nil || f.DefValue != "5m0s" || f.Value.Type() != "duration" || f.Usage != "namespace resync" {
		t.Fatalf("flag %+v", f)
	}
	if err := fs.Parse([]string{"--namespace-sync-period=90s"}); err != nil {
		t.Fatal(err)
	}
	if got := o.Duration(period); got != 90*time.Second || f.Value.String() != "1m30s" {
		t.Errorf("after parse: %v (%s)", got, f.Value)
	}
	if err := fs.Set("namespace-sync-period", "soon"); err == nil || !strings.Contains(err.Error(), `"soon" is not a duration`) {
		t.Errorf("a bad duration: %v", err)
	}
	cc := ControllerContext{options: o}
	if got := cc.Duration(period); got != 90*time.Second {
		t.Errorf("ControllerContext.Duration = %v", got)
	}
	if got := (ControllerContext{}).Duration(period); got != 5*time.Minute {
		t.Errorf("without options: %v, want the default", got)
	}
	// Options built by hand (no NewOptions) get the defaults from AddFlags.
	bare := &Options{}
	r.AddFlags(pflag.NewFlagSet("bare", pflag.ContinueOnError), bare)
	if got := bare.Duration(period); got != 5*time.Minute {
		t.Errorf("hand-built options: %v", got)
	}
	if got := (&Options{}).Duration(period); got != 5*time.Minute {
		t.Errorf("empty options: %v", got)
	}
}
