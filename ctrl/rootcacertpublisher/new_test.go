package rootcacertpublisher

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/rs/zerolog"
	"github.com/spf13/pflag"

	"github.com/kcmlab/kcm/ctrl"
	"github.com/kcmlab/kcm/kube/rest"
)

// TestNewRootCAFile: a --root-ca-file that is not a PEM certificate bundle
// fails the constructor with kube-controller-manager's message, so the
// manager does not start; without the flag the controller is built on
// the client's CA.
func TestNewRootCAFile(t *testing.T) {
	bad := filepath.Join(t.TempDir(), "ca.crt")
	if err := os.WriteFile(bad, []byte("not PEM"), 0o600); err != nil {
		t.Fatal(err)
	}
	base, err := rest.NewClient(&rest.Config{Host: "https://127.0.0.1:1"})
	if err != nil {
		t.Fatal(err)
	}
	defer base.CloseIdleConnections()
	r, err := ctrl.NewDescriptors(Descriptor())
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		args    []string
		wantErr string
	}{
		{nil, ""},
		{[]string{"--root-ca-file=" + bad}, "error parsing root-ca-file at " + bad + ": invalid root CA bundle"},
	} {
		o := r.NewOptions()
		fs := pflag.NewFlagSet("kcm", pflag.ContinueOnError)
		r.AddFlags(fs, o)
		if err := fs.Parse(tc.args); err != nil {
			t.Fatal(err)
		}
		cc, err := ctrl.CreateControllerContext(base, ctrl.Config{Options: o, Logger: zerolog.Nop(), APIServerCAData: []byte(testCA)})
		if err != nil {
			t.Fatal(err)
		}
		c, err := New(context.Background(), cc, Name)
		if l, ok := c.(*ctrl.Loop); ok {
			l.Queue().ShutDown() // built, never run
		}
		if tc.wantErr == "" {
			if err != nil || c == nil || c.Name() != Name {
				t.Errorf("%q: %v, %v", tc.args, c, err)
			}
			continue
		}
		if err == nil || !strings.HasPrefix(err.Error(), tc.wantErr) || !errors.Is(err, ctrl.ErrInvalidRootCA) {
			t.Errorf("%q: %v, want %q", tc.args, err, tc.wantErr)
		}
	}
}
