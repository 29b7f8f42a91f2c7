package serviceaccounttoken

import (
	"context"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/x509"
	"crypto/x509/pkix"
	"errors"
	"math/big"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/rs/zerolog"
	"github.com/spf13/pflag"

	"github.com/kcmlab/kcm/ctrl"
	"github.com/kcmlab/kcm/internal/testing/resttest"
)

func TestDescriptor(t *testing.T) {
	d := Descriptor()
	if d.Name != "serviceaccount-token-controller" || !slices.Equal(d.Aliases, []string{"serviceaccount-token"}) || d.DisabledByDefault ||
		d.Concurrency == nil || d.Concurrency.Name != "concurrent-serviceaccount-token-syncs" || d.Concurrency.Default != 5 {
		t.Fatalf("descriptor %+v", d)
	}
	var names []string
	for _, f := range d.Flags {
		names = append(names, f.Name+"="+f.NewValue().String())
	}
	if !slices.Equal(names, []string{"service-account-private-key-file=", "root-ca-file="}) {
		t.Fatalf("flags %q", names)
	}
}

// build runs the constructor with the given command line and the
// apiserver CA caData; it shuts the loops of a built controller down.
func build(t *testing.T, caData []byte, args ...string) (*Controller, error) {
	t.Helper()
	ds, err := ctrl.NewDescriptors(Descriptor())
	if err != nil {
		t.Fatal(err)
	}
	o := ds.NewOptions()
	fs := pflag.NewFlagSet("kcm", pflag.ContinueOnError)
	ds.AddFlags(fs, o)
	if err := fs.Parse(args); err != nil {
		t.Fatal(err)
	}
	srv := resttest.New(t, resttest.Options{})
	cc, err := ctrl.CreateControllerContext(srv.Client(), ctrl.Config{Options: o, Logger: zerolog.Nop(), APIServerCAData: caData})
	if err != nil {
		t.Fatal(err)
	}
	c, err := Descriptor().Constructor(context.Background(), cc, Name)
	if c == nil {
		return nil, err
	}
	ctl := c.(*Controller)
	t.Cleanup(func() {
		ctl.accountLoop.Queue().ShutDown()
		ctl.secretLoop.Queue().ShutDown()
	})
	return ctl, err
}

// TestNew: without --service-account-private-key-file nothing runs (as in
// kube-controller-manager); a key or CA file it cannot use fails the start
// with an error naming the file; ca.crt is --root-ca-file's bundle, else
// the CA kcm trusts for the apiserver.
func TestNew(t *testing.T) {
	dir := t.TempDir()
	bad := filepath.Join(dir, "bad.pem")
	if err := os.WriteFile(bad, []byte("-----BEGIN EC PRIVATE KEY-----\nU0VDUkVU\n-----END EC PRIVATE KEY-----\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	ca, caPEM := filepath.Join(dir, "ca.pem"), newTestCA(t)
	if err := os.WriteFile(ca, []byte(caPEM), 0o600); err != nil {
		t.Fatal(err)
	}
	key := "--service-account-private-key-file=testdata/ec-p384-pkcs8.pem"

	if c, err := build(t, nil); c != nil || err != nil {
		t.Fatalf("no key file: %v, %v; want nothing to run", c, err)
	}
	_, err := build(t, nil, "--service-account-private-key-file="+bad)
	if !errors.Is(err, ErrInvalidKey) || !strings.Contains(err.Error(), "error reading key for service account token controller") ||
		!strings.Contains(err.Error(), bad) || strings.Contains(err.Error(), "U0VDUkVU") {
		t.Fatalf("bad key file: %v", err)
	}
	_, err = build(t, nil, key, "--root-ca-file="+bad)
	if !errors.Is(err, ctrl.ErrInvalidRootCA) || !strings.Contains(err.Error(), "error parsing root-ca-file at "+bad) {
		t.Fatalf("bad CA file: %v", err)
	}
	c, err := build(t, []byte("apiserver CA"), key)
	if err != nil || c.signer.Algorithm() != "ES384" || string(c.rootCA) != "apiserver CA" {
		t.Fatalf("controller %v, %v; want ES384 with the apiserver's CA", c, err)
	}
	// The account loop waits for its two handlers; the secret loop for the
	// account loop (so for the same registrations).
	if got, want := c.accountLoop.WaitsFor(), []string{"serviceaccounts/" + Name, "secrets/" + Name}; !slices.Equal(got, want) {
		t.Fatalf("account loop waits for %q, want %q", got, want)
	}
	if got, want := c.secretLoop.WaitsFor(), []string{Name}; !slices.Equal(got, want) {
		t.Fatalf("secret loop waits for %q, want %q", got, want)
	}
	c, err = build(t, []byte("apiserver CA"), key, "--root-ca-file="+ca, "--concurrent-serviceaccount-token-syncs=2")
	if err != nil || string(c.rootCA) != caPEM {
		t.Fatalf("with --root-ca-file: %v, %v", c, err)
	}
}

// newTestCA returns a fresh self-signed CA certificate, PEM-encoded.
func newTestCA(t testing.TB) string {
	t.Helper()
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	tmpl := &x509.Certificate{SerialNumber: big.NewInt(1), Subject: pkix.Name{CommonName: "kcm-test-root"},
		NotBefore: time.Unix(0, 0), NotAfter: time.Unix(1<<33, 0), IsCA: true, BasicConstraintsValid: true,
		KeyUsage: x509.KeyUsageCertSign}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, key.Public(), key)
	if err != nil {
		t.Fatal(err)
	}
	return pemOf("CERTIFICATE", der)
}
