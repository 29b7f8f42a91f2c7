package serviceaccounttoken

import (
	"crypto/ecdsa"
	"crypto/ed25519"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/x509"
	"encoding/pem"
	"errors"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/rs/zerolog"
)

func mustRead(t testing.TB, path string) string {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

func zeroLogger(w io.Writer) zerolog.Logger { return zerolog.New(w) }

func pemOf(typ string, der []byte) string {
	return string(pem.EncodeToMemory(&pem.Block{Type: typ, Bytes: der}))
}

// TestParseKeyPEM follows client-go keyutil's ParsePrivateKeyPEM: the
// first block that parses as an RSA or ECDSA key wins, other blocks are
// skipped; nothing usable is ErrInvalidKey, whose message names the
// blocks seen and never their contents.
func TestParseKeyPEM(t *testing.T) {
	ec := mustRead(t, "testdata/ec-p256-sec1.pem")
	rsaKey := mustRead(t, "testdata/rsa-pkcs1.pem")
	_, edKey, _ := ed25519.GenerateKey(rand.Reader)
	edDER, _ := x509.MarshalPKCS8PrivateKey(edKey)
	p224, _ := ecdsa.GenerateKey(elliptic.P224(), rand.Reader)
	p224DER, _ := x509.MarshalECPrivateKey(p224)
	const marker = "SECRETMARKERBYTES"
	for _, tc := range []struct {
		name, data string
		wantAlg    string
		wantErr    string
	}{
		{"SEC 1 EC key", ec, "ES256", ""},
		{"PKCS #1 RSA key", rsaKey, "RS256", ""},
		{"PKCS #8 RSA key", mustRead(t, "testdata/rsa-pkcs8.pem"), "RS256", ""},
		{"PKCS #8 EC key", mustRead(t, "testdata/ec-p384-pkcs8.pem"), "ES384", ""},
		{"EC PARAMETERS block first", pemOf("EC PARAMETERS", []byte{6, 8, 42, 134, 72, 206, 61, 3, 1, 7}) + ec, "ES256", ""},
		{"a broken key block, then a good one", pemOf("RSA PRIVATE KEY", []byte(marker)) + ec, "ES256", ""},
		{"certificate only", pemOf("CERTIFICATE", []byte(marker)), "", `no valid RSA or ECDSA private key among the PEM blocks "CERTIFICATE"`},
		{"broken key only", pemOf("EC PRIVATE KEY", []byte(marker)), "", `among the PEM blocks "EC PRIVATE KEY"`},
		{"no PEM", marker, "", "the data holds no PEM block"},
		{"empty", "", "", "the data holds no PEM block"},
		{"Ed25519 PKCS #8", pemOf("PRIVATE KEY", edDER), "", "a PKCS #8 key of type ed25519.PrivateKey"},
		{"P-224", pemOf("EC PRIVATE KEY", p224DER), "", "unknown curve"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			key, err := ParseKeyPEM([]byte(tc.data))
			var s *Signer
			if err == nil {
				s, err = NewSigner(key)
			}
			if tc.wantErr != "" {
				if !errors.Is(err, ErrInvalidKey) || !strings.Contains(err.Error(), tc.wantErr) {
					t.Fatalf("error %v, want ErrInvalidKey with %q", err, tc.wantErr)
				}
				if strings.Contains(err.Error(), marker) {
					t.Fatalf("error quotes the file's contents: %v", err)
				}
				return
			}
			if err != nil || s.Algorithm() != tc.wantAlg {
				t.Fatalf("signer %v err %v, want %s", s, err, tc.wantAlg)
			}
		})
	}
}

// TestReadKeyFileBounds: a key file is read with a bound — a regular
// file over MaxKeyFileBytes is refused on its size, an endless device
// (/dev/zero) after MaxKeyFileBytes+1 bytes — and every error names the
// file; a missing file is the os error.
func TestReadKeyFileBounds(t *testing.T) {
	dir := t.TempDir()
	big := filepath.Join(dir, "big.pem")
	f, err := os.Create(big)
	if err != nil {
		t.Fatal(err)
	}
	if err := f.Truncate(MaxKeyFileBytes + 1); err != nil { // sparse: no disk written
		t.Fatal(err)
	}
	f.Close()
	for _, path := range []string{big, "/dev/zero"} {
		_, err := ReadKeyFile(path)
		if !errors.Is(err, ErrFileTooLarge) || !strings.Contains(err.Error(), path) {
			t.Errorf("%s: error %v, want ErrFileTooLarge naming the file", path, err)
		}
	}
	if _, err := ReadKeyFile(filepath.Join(dir, "missing.pem")); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("missing file: %v", err)
	}
	garbage := filepath.Join(dir, "garbage.pem")
	if err := os.WriteFile(garbage, []byte("-----BEGIN RSA PRIVATE KEY-----\nU0VDUkVU\n-----END RSA PRIVATE KEY-----\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	if _, err := ReadKeyFile(garbage); !errors.Is(err, ErrInvalidKey) || !strings.Contains(err.Error(), garbage) || strings.Contains(err.Error(), "U0VDUkVU") {
		t.Errorf("garbage: %v", err)
	}
	exact := filepath.Join(dir, "exact.pem")
	key := mustRead(t, "testdata/ec-p256-sec1.pem")
	if err := os.WriteFile(exact, []byte(key+strings.Repeat("\n", MaxKeyFileBytes-len(key))), 0o600); err != nil {
		t.Fatal(err)
	}
	if _, err := ReadKeyFile(exact); err != nil {
		t.Errorf("a file of exactly MaxKeyFileBytes: %v", err)
	}
}
