package ctrl

import (
	"bytes"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/pem"
	"errors"
	"io/fs"
	"math/big"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/spf13/pflag"
)

// testCertPEM returns a fresh self-signed CA certificate, PEM-encoded.
func testCertPEM(t *testing.T) []byte {
	t.Helper()
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	tmpl := &x509.Certificate{SerialNumber: big.NewInt(1), Subject: pkix.Name{CommonName: "test-ca"},
		NotBefore: time.Unix(0, 0), NotAfter: time.Unix(1<<32, 0), IsCA: true, BasicConstraintsValid: true}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, &key.PublicKey, key)
	if err != nil {
		t.Fatal(err)
	}
	return pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: der})
}

// TestRootCA: --root-ca-file wins and is read as written; without it the
// manager client's CA is published (kube-controller-manager's
// getKubeAPIServerCAFileContents); a file that is not a PEM certificate
// bundle (certutil.ParseCertsPEM's rule), is missing, or is larger than
// the CA-bundle limit fails with kube-controller-manager's "error parsing
// root-ca-file at <path>" prefix.
func TestRootCA(t *testing.T) {
	dir := t.TempDir()
	cert := testCertPEM(t)
	write := func(name string, data []byte) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, data, 0o600); err != nil {
			t.Fatal(err)
		}
		return p
	}
	key := []byte("-----BEGIN EC PRIVATE KEY-----\nAAAA\n-----END EC PRIVATE KEY-----\n")
	good := write("ca.crt", cert)
	withKey := write("ca-and-key.pem", append(append([]byte("comment\n"), key...), cert...))
	garbage := write("garbage.pem", []byte("not a certificate"))
	onlyKey := write("key.pem", key)
	badCert := write("bad.pem", pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: []byte("xx")}))
	der, _ := pem.Decode(cert)
	headerOnly := write("headers.pem", pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Headers: map[string]string{"a": "b"}, Bytes: der.Bytes}))

	r, err := NewDescriptors(&ControllerDescriptor{Name: "p", Constructor: nopConstructor, Flags: []ControllerFlag{RootCAFile()}})
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name, file string
		want       []byte
		wantErr    error
	}{
		{"no flag: the client's CA", "", []byte("client-ca"), nil},
		{"a certificate", good, cert, nil},
		{"other blocks are skipped, the bytes kept", withKey, append(append([]byte("comment\n"), key...), cert...), nil},
		{"not PEM", garbage, nil, ErrInvalidRootCA},
		{"no certificate", onlyKey, nil, ErrInvalidRootCA},
		{"a broken certificate", badCert, nil, ErrInvalidRootCA},
		{"a certificate block with headers is not one", headerOnly, nil, ErrInvalidRootCA},
		{"missing", filepath.Join(dir, "nope"), nil, fs.ErrNotExist},
		{"endless", "/dev/zero", nil, ErrInvalidRootCA},
	} {
		tooLarge := tc.file == "/dev/zero"
		t.Run(tc.name, func(t *testing.T) {
			o := r.NewOptions()
			flags := pflag.NewFlagSet("kcm", pflag.ContinueOnError)
			r.AddFlags(flags, o)
			if tc.file != "" {
				if err := flags.Set(RootCAFileFlag, tc.file); err != nil {
					t.Fatal(err)
				}
			}
			cc := ControllerContext{options: o, caData: []byte("client-ca")}
			got, err := cc.RootCA()
			if tc.wantErr != nil {
				if !errors.Is(err, tc.wantErr) || !strings.HasPrefix(err.Error(), "error parsing root-ca-file at "+tc.file+": ") ||
					tooLarge != strings.Contains(err.Error(), "holds more than 16777216 bytes (16 MiB)") {
					t.Fatalf("RootCA() = %q, %v; want an error wrapping %v", got, err, tc.wantErr)
				}
				return
			}
			if err != nil || !bytes.Equal(got, tc.want) {
				t.Fatalf("RootCA() = %q, %v; want %q", got, err, tc.want)
			}
		})
	}
	if got, err := (ControllerContext{}).RootCA(); got != nil || err != nil {
		t.Errorf("no options, no client CA: %q, %v; want nil", got, err)
	}
}
