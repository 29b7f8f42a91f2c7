package ctrl

import (
	"bytes"
	"errors"
	"strings"
	"testing"

	"github.com/rs/zerolog"
	"github.com/spf13/pflag"

	"github.com/kcmlab/kcm/kube/rest"
)

// TestStringFlag: kube-controller-manager's StringVar flags (--root-ca-file,
// --service-account-private-key-file, default "") print their default as
// pflag does, parse into the controller context, and a context without
// options, or an unknown flag, gives the default.
func TestStringFlag(t *testing.T) {
	r, err := NewDescriptors(&ControllerDescriptor{Name: "sa", Constructor: nopConstructor, Flags: []ControllerFlag{
		StringFlag("root-ca-file", "", "the CA"),
		StringFlag("mode", "auto", "a mode"),
	}})
	if err != nil {
		t.Fatal(err)
	}
	o := r.NewOptions()
	fs := pflag.NewFlagSet("kcm", pflag.ContinueOnError)
	r.AddFlags(fs, o)
	ref := pflag.NewFlagSet("ref", pflag.ContinueOnError)
	ref.String("root-ca-file", "", "the CA")
	ref.String("mode", "auto", "a mode")
	for _, name := range []string{"root-ca-file", "mode"} {
		f, want := fs.Lookup(name), ref.Lookup(name)
		if f == nil || f.DefValue != want.DefValue || f.Value.Type() != "string" {
			t.Fatalf("--%s: %+v, want default %q of type string", name, f, want.DefValue)
		}
	}
	// The help line is pflag's own: no "(default ...)" for an empty default.
	if got, want := fs.FlagUsages(), ref.FlagUsages(); !strings.HasSuffix(got, want) {
		t.Errorf("help:\n%s\nwant pflag's:\n%s", got, want)
	}
	cc := ControllerContext{options: o}
	if cc.StringFlag("root-ca-file", "x") != "" || cc.StringFlag("mode", "") != "auto" {
		t.Error("defaults do not reach the controller context")
	}
	if err := fs.Parse([]string{"--root-ca-file=/etc/ca.crt", "--mode", ""}); err != nil {
		t.Fatal(err)
	}
	if cc.StringFlag("root-ca-file", "") != "/etc/ca.crt" || cc.StringFlag("mode", "x") != "" {
		t.Errorf("parsed values not seen: %q %q", cc.StringFlag("root-ca-file", ""), cc.StringFlag("mode", "x"))
	}
	if (ControllerContext{}).StringFlag("root-ca-file", "d") != "d" || cc.StringFlag("no-such-flag", "d") != "d" {
		t.Error("a context without options, or an unknown flag, must give the default")
	}
	if _, ok := o.Bool("root-ca-file"); ok {
		t.Error("a string flag read as a bool")
	}
	if _, ok := o.String("no-such-flag"); ok {
		t.Error("an unknown flag read as a string")
	}
}

// TestSharedFlag: two controllers that read one kube-controller-manager
// option (--root-ca-file: root-ca-cert-publisher and
// serviceaccount-token-controller) both declare it; it is registered once,
// both read the one value, and a second declaration that differs in usage,
// type or default is refused when the registry is built.
func TestSharedFlag(t *testing.T) {
	rootCA := StringFlag("root-ca-file", "", "If set, this root certificate authority will be included.")
	r, err := NewDescriptors(
		&ControllerDescriptor{Name: "root-ca-certificate-publisher-controller", Constructor: nopConstructor, Flags: []ControllerFlag{rootCA}},
		&ControllerDescriptor{Name: "serviceaccount-token-controller", Constructor: nopConstructor, Flags: []ControllerFlag{
			StringFlag("service-account-private-key-file", "", "the key"), rootCA}},
	)
	if err != nil {
		t.Fatal(err)
	}
	o := r.NewOptions()
	fs := pflag.NewFlagSet("kcm", pflag.ContinueOnError)
	r.AddFlags(fs, o) // pflag panics on a flag registered twice
	if n := strings.Count(fs.FlagUsages(), "--root-ca-file"); n != 1 {
		t.Errorf("--root-ca-file appears %d times in the help, want once", n)
	}
	if err := fs.Parse([]string{"--root-ca-file=/ca.pem"}); err != nil {
		t.Fatal(err)
	}
	if v, ok := o.String("root-ca-file"); !ok || v != "/ca.pem" {
		t.Errorf("--root-ca-file = %q, %v", v, ok)
	}

	for name, other := range map[string]ControllerFlag{
		"usage":   StringFlag("root-ca-file", "", "another text"),
		"default": StringFlag("root-ca-file", "/x", rootCA.Usage),
		"type":    BoolFlag("root-ca-file", false, rootCA.Usage),
	} {
		_, err := NewDescriptors(
			&ControllerDescriptor{Name: "a", Constructor: nopConstructor, Flags: []ControllerFlag{rootCA}},
			&ControllerDescriptor{Name: "b", Constructor: nopConstructor, Flags: []ControllerFlag{other}},
		)
		if !errors.Is(err, ErrInvalidDescriptor) || !strings.Contains(err.Error(), "--root-ca-file") {
			t.Errorf("a second --root-ca-file differing in %s: %v, want ErrInvalidDescriptor naming the flag", name, err)
		}
	}
	if _, err := NewDescriptors(&ControllerDescriptor{Name: "a", Constructor: nopConstructor,
		Flags: []ControllerFlag{{Name: "x"}}}); !errors.Is(err, ErrInvalidDescriptor) {
		t.Errorf("a flag without a value maker: %v", err)
	}
}

// TestAPIServerCAData: the CA the manager's client trusts reaches every
// controller through the context, as a copy; none configured is nil.
func TestAPIServerCAData(t *testing.T) {
	base, err := rest.NewClient(&rest.Config{Host: "https://127.0.0.1:1"})
	if err != nil {
		t.Fatal(err)
	}
	ca := []byte("-----BEGIN CERTIFICATE-----\n")
	cc, err := CreateControllerContext(base, Config{Logger: zerolog.Nop(), APIServerCAData: ca})
	if err != nil {
		t.Fatal(err)
	}
	got := cc.APIServerCAData()
	if !bytes.Equal(got, ca) {
		t.Fatalf("APIServerCAData = %q, want %q", got, ca)
	}
	got[0], ca[1] = 'x', 'x'
	if again := cc.APIServerCAData(); again[0] != '-' || again[1] != '-' {
		t.Errorf("the context shares its CA bytes with the caller: %q", again)
	}
	if cc0, _ := CreateControllerContext(base, Config{Logger: zerolog.Nop()}); cc0.APIServerCAData() != nil {
		t.Errorf("no CA configured: %q, want nil", cc0.APIServerCAData())
	}
}
