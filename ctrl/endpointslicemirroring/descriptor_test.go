package endpointslicemirroring

import (
	"context"
	"strings"
	"testing"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/rs/zerolog"
	"github.com/spf13/pflag"

	"github.com/kcmlab/kcm/ctrl"
	"github.com/kcmlab/kcm/kube/rest"
)

// TestDescriptor: kube-controller-manager's name and alias
// (cmd/kube-controller-manager/names, app/discovery.go), on by default,
// and its three flags with their defaults, help texts and the range
// EndpointSliceMirroringControllerOptions.Validate enforces on
// --mirroring-max-endpoints-per-subset (1 to 1000).
func TestDescriptor(t *testing.T) {
	d := Descriptor()
	if d.Name != "endpointslice-mirroring-controller" || len(d.Aliases) != 1 || d.Aliases[0] != "endpointslicemirroring" || d.DisabledByDefault {
		t.Fatalf("descriptor %s %v disabled %v", d.Name, d.Aliases, d.DisabledByDefault)
	}
	r, err := ctrl.NewDescriptors(d)
	if err != nil {
		t.Fatal(err)
	}
	o := r.NewOptions()
	fs := pflag.NewFlagSet("kcm", pflag.ContinueOnError)
	r.AddFlags(fs, o)
	for name, want := range map[string][2]string{
		"mirroring-concurrent-service-endpoint-syncs":  {"5", "Defaults to 5."},
		"mirroring-max-endpoints-per-subset":           {"1000", "More endpoints per slice will result in less endpoint slices, but larger resources. Defaults to 100."},
		"mirroring-endpointslice-updates-batch-period": {"0s", "Larger number = higher endpoint programming latency, but lower number of endpoints revision generated"},
	} {
		f := fs.Lookup(name)
		if f == nil || f.DefValue != want[0] || !strings.HasSuffix(f.Usage, want[1]) || !strings.Contains(f.Usage, "endpointslice-mirroring-controller") {
			t.Errorf("--%s: %+v, want default %s and kube-controller-manager's help", name, f, want[0])
		}
	}
	for _, bad := range []string{"0", "1001", "-1"} {
		if err := fs.Set(MaxPerSubsetFlag, bad); err == nil {
			t.Errorf("--%s=%s accepted", MaxPerSubsetFlag, bad)
		}
	}
	for _, good := range []string{"1", "1000"} {
		if err := fs.Set(MaxPerSubsetFlag, good); err != nil {
			t.Errorf("--%s=%s refused: %v", MaxPerSubsetFlag, good, err)
		}
	}
	// options/endpointslicemirroringcontroller.go validates the workers
	// too: 1 to 50, with these messages.
	for _, c := range []struct{ in, want string }{
		{"0", "mirroring-concurrent-service-endpoint-syncs must not be less than 1, but got 0"},
		{"51", "mirroring-concurrent-service-endpoint-syncs must not be more than 50, but got 51"},
		{"1", ""}, {"50", ""}, // in this order: the last accepted value is checked below
	} {
		in, want := c.in, c.want
		err := fs.Set(ConcurrencyFlagName, in)
		if (err == nil) != (want == "") || (err != nil && !strings.Contains(err.Error(), want)) {
			t.Errorf("--%s=%s: error %v, want %q", ConcurrencyFlagName, in, err, want)
		}
	}
	if o.Workers(Name) != 50 {
		t.Errorf("workers %d after --%s=50", o.Workers(Name), ConcurrencyFlagName)
	}
}

// TestConstructorRegistersMetrics: the constructor registers the
// endpoint_slice_mirroring_controller_* families on the manager's
// registry, and only there (RegisterMetrics' legacyregistry is
// process-global; kcm's is the caller's).
func TestConstructorRegistersMetrics(t *testing.T) {
	client, err := rest.NewClient(&rest.Config{Host: "https://127.0.0.1:1"})
	if err != nil {
		t.Fatal(err)
	}
	reg := prometheus.NewRegistry()
	cc, err := ctrl.CreateControllerContext(client, ctrl.Config{Logger: zerolog.Nop(), Registerer: reg})
	if err != nil {
		t.Fatal(err)
	}
	c, err := Descriptor().Constructor(context.Background(), cc, Name)
	if err != nil {
		t.Fatal(err)
	}
	c.(*ctrl.Loop).Queue().ShutDown()
	families := func(g prometheus.Gatherer) map[string]bool {
		mfs, err := g.Gather()
		if err != nil {
			t.Fatal(err)
		}
		names := map[string]bool{}
		for _, mf := range mfs {
			if strings.HasPrefix(mf.GetName(), Subsystem+"_") {
				names[mf.GetName()] = true
			}
		}
		return names
	}
	// Eight families have a series before any sync; changes, a vector, has none yet.
	if got := families(reg); len(got) != 8 || !got[Subsystem+"_endpoints_sync_duration"] || !got[Subsystem+"_num_endpoint_slices"] {
		t.Errorf("families on the manager's registry: %v", got)
	}
	if got := families(prometheus.DefaultGatherer); len(got) != 0 {
		t.Errorf("families on the default registry: %v", got)
	}
}
