package manager

import (
	"context"
	"runtime/debug"
	"strings"
	"testing"

	"github.com/kcmlab/kcm/ctrl"
)

// TestHelp: --help has the five sections in order, each with its flags,
// and lists the known controllers with whether "*" turns them on.
func TestHelp(t *testing.T) {
	var b strings.Builder
	NewControllerManagerCommand(NewControllerDescriptors()).WriteHelp(&b)
	help := b.String()
	last := -1
	for _, want := range []string{
		"Usage:\n  kcm [flags]",
		SectionGeneric + ":", "--kube-api-qps float32", "--kubeconfig string", "--master string",
		SectionLeaderElection + ":", "--leader-elect", "--leader-elect-lease-duration duration", "(default 15s)",
		"--leader-elect-resource-lock string", `(default "leases")`,
		SectionServing + ":", "--bind-address", "--secure-port int", "(default 10257)", "--tls-private-key-file",
		SectionControllers + ":", "--controllers strings", "All controllers: deployment-controller",
		"Controllers kcm knows (--controllers):", "serviceaccount-controller    on by default (also serviceaccount)",
		SectionDebugging + ":", "--logging-format string", "-v, --v int", "--version",
	} {
		i := strings.Index(help, want)
		if i < 0 {
			t.Fatalf("--help lacks %q:\n%s", want, help)
		}
		if i < last {
			t.Errorf("--help has %q out of order", want)
		}
		last = i
	}
}

// TestWriteControllers: each controller's line says whether "*" turns it
// on and names its aliases, if any.
func TestWriteControllers(t *testing.T) {
	nop := func(context.Context, ctrl.ControllerContext, string) (ctrl.Controller, error) { return nil, nil }
	d, err := ctrl.NewDescriptors(
		&ctrl.ControllerDescriptor{Name: "a-controller", Aliases: []string{"a", "aa"}, Constructor: nop},
		&ctrl.ControllerDescriptor{Name: "b-controller", DisabledByDefault: true, Constructor: nop})
	if err != nil {
		t.Fatal(err)
	}
	var b strings.Builder
	writeControllers(&b, d)
	want := "\n  Controllers kcm knows (--controllers):\n" +
		"    a-controller                 on by default (also a, aa)\n" +
		"    b-controller                 off by default\n"
	if b.String() != want {
		t.Errorf("got\n%q\nwant\n%q", b.String(), want)
	}
}

// TestVersion: -ldflags -X wins; else the build info's main module
// version; else a placeholder.
func TestVersion(t *testing.T) {
	defer func(v string) { Version = v }(Version)
	Version = "v9.9.9"
	if got := GetVersion(); got != "v9.9.9" {
		t.Errorf("GetVersion with Version set = %q", got)
	}
	if s := VersionString(); !strings.HasPrefix(s, "kcm v9.9.9 (kube-controller-manager v1.37 flags; go") {
		t.Errorf("VersionString = %q", s)
	}
	Version = ""
	bi, ok := debug.ReadBuildInfo()
	if got := GetVersion(); !ok || got != bi.Main.Version && bi.Main.Version != "" {
		t.Errorf("GetVersion from build info = %q, want %q", got, bi.Main.Version)
	}
	for _, tt := range []struct {
		bi   *debug.BuildInfo
		ok   bool
		want string
	}{
		{&debug.BuildInfo{Main: debug.Module{Version: "v1.2.3"}}, true, "v1.2.3"},
		{&debug.BuildInfo{Main: debug.Module{Version: "(devel)"}}, true, "(devel)"},
		{&debug.BuildInfo{}, true, "v0.0.0-unknown"},
		{nil, false, "v0.0.0-unknown"},
	} {
		if got := versionFrom(tt.bi, tt.ok); got != tt.want {
			t.Errorf("versionFrom(%+v, %v) = %q, want %q", tt.bi, tt.ok, got, tt.want)
		}
	}
}

// TestControllerDescriptors: the binary's list builds and holds the
// serviceaccount controller, on by default.
func TestControllerDescriptors(t *testing.T) {
	d := NewControllerDescriptors()
	sa, ok := d.Lookup("serviceaccount")
	if !ok || sa.Name != "serviceaccount-controller" || sa.DisabledByDefault {
		t.Fatalf("serviceaccount: %+v, %v", sa, ok)
	}
	on, err := d.Enabled([]string{"*"})
	if err != nil || len(on) != len(d.All()) {
		t.Fatalf("'*' enables %d of %d, %v", len(on), len(d.All()), err)
	}
}
