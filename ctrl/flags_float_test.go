package ctrl

import (
	"testing"

	"github.com/spf13/pflag"
)

// TestFloat32Flag: kube-controller-manager's Float32Var flags
// (--node-eviction-rate 0.1, --unhealthy-zone-threshold 0.55) print their
// default as pflag does, parse into the controller context, refuse what
// is not a number, and a context without options gives the default.
func TestFloat32Flag(t *testing.T) {
	r, err := NewDescriptors(&ControllerDescriptor{Name: "nl", Constructor: nopConstructor, Flags: []ControllerFlag{
		Float32Flag("node-eviction-rate", 0.1, "how fast"),
		Float32Flag("unhealthy-zone-threshold", 0.55, "how many"),
	}})
	if err != nil {
		t.Fatal(err)
	}
	o := r.NewOptions()
	fs := pflag.NewFlagSet("kcm", pflag.ContinueOnError)
	r.AddFlags(fs, o)
	// pflag's own float32 flag, for the printed form.
	ref := pflag.NewFlagSet("ref", pflag.ContinueOnError)
	ref.Float32("node-eviction-rate", 0.1, "")
	ref.Float32("unhealthy-zone-threshold", 0.55, "")
	for _, name := range []string{"node-eviction-rate", "unhealthy-zone-threshold"} {
		f, want := fs.Lookup(name), ref.Lookup(name)
		if f == nil || f.DefValue != want.DefValue || f.Value.Type() != "float32" {
			t.Fatalf("--%s: %+v, want default %q of type float32", name, f, want.DefValue)
		}
	}
	cc := ControllerContext{options: o}
	if cc.Float32Flag("node-eviction-rate", 0) != 0.1 || cc.Float32Flag("unhealthy-zone-threshold", 0) != 0.55 {
		t.Error("defaults do not reach the controller context")
	}
	if err := fs.Parse([]string{"--node-eviction-rate=2.5", "--unhealthy-zone-threshold=1"}); err != nil {
		t.Fatal(err)
	}
	if cc.Float32Flag("node-eviction-rate", 0) != 2.5 || cc.Float32Flag("unhealthy-zone-threshold", 0) != 1 {
		t.Errorf("parsed values not seen: %v %v", cc.Float32Flag("node-eviction-rate", 0), cc.Float32Flag("unhealthy-zone-threshold", 0))
	}
	if err := fs.Set("node-eviction-rate", "fast"); err == nil || cc.Float32Flag("node-eviction-rate", 0) != 2.5 {
		t.Errorf("--node-eviction-rate=fast: %v", err)
	}
	if (ControllerContext{}).Float32Flag("node-eviction-rate", 0.3) != 0.3 || cc.Float32Flag("no-such-flag", 0.3) != 0.3 {
		t.Error("a context without options, or an unknown flag, must give the default")
	}
	if _, ok := o.Int32("node-eviction-rate"); ok {
		t.Error("a float32 flag read as an int32")
	}
}
