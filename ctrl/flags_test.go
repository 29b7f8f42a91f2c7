package ctrl

import (
	"slices"
	"strings"
	"testing"

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
