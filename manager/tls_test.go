package manager

import (
	"crypto/x509"
	"net"
	"os"
	"path/filepath"
	"slices"
	"testing"
	"time"
)

var tlsNow = time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)

// TestSelfSignedCertificate: without --tls-cert-file a certificate for the
// loopback names (and a specific bind address) is made, valid from an
// hour before now for a year, and kept in memory.
func TestSelfSignedCertificate(t *testing.T) {
	c, err := servingCertificate(ServingOptions{BindAddress: "10.1.2.3"}, tlsNow)
	if err != nil {
		t.Fatal(err)
	}
	leaf, err := x509.ParseCertificate(c.Certificate[0])
	if err != nil {
		t.Fatal(err)
	}
	host, _ := os.Hostname()
	for _, name := range []string{"localhost", host} {
		if !slices.Contains(leaf.DNSNames, name) {
			t.Errorf("DNS names %v lack %q", leaf.DNSNames, name)
		}
	}
	for _, ip := range []string{"127.0.0.1", "::1", "10.1.2.3"} {
		if !slices.ContainsFunc(leaf.IPAddresses, func(a net.IP) bool { return a.Equal(net.ParseIP(ip)) }) {
			t.Errorf("IP SANs %v lack %s", leaf.IPAddresses, ip)
		}
	}
	if !leaf.NotBefore.Equal(tlsNow.Add(-time.Hour)) || !leaf.NotAfter.Equal(tlsNow.Add(8760*time.Hour)) {
		t.Errorf("valid %v to %v", leaf.NotBefore, leaf.NotAfter)
	}
	if err := leaf.VerifyHostname("127.0.0.1"); err != nil {
		t.Error(err)
	}
}

// TestCertDir: with --cert-dir the generated pair is written there
// (key 0600) and reused by the next start, as kube-controller-manager
// reuses its generated certificate.
func TestCertDir(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "certs")
	first, err := servingCertificate(ServingOptions{CertDir: dir}, tlsNow)
	if err != nil {
		t.Fatal(err)
	}
	fi, err := os.Stat(filepath.Join(dir, keyFileName))
	if err != nil || fi.Mode().Perm() != 0o600 {
		t.Fatalf("key file: %v, %v", fi, err)
	}
	again, err := servingCertificate(ServingOptions{CertDir: dir}, tlsNow.Add(time.Hour))
	if err != nil {
		t.Fatal(err)
	}
	if string(again.Certificate[0]) != string(first.Certificate[0]) {
		t.Error("a second start made a new certificate instead of reusing the one in --cert-dir")
	}
	// The files double as --tls-cert-file and --tls-private-key-file.
	given, err := servingCertificate(ServingOptions{CertDir: t.TempDir(),
		TLSCertFile: filepath.Join(dir, certFileName), TLSPrivateKeyFile: filepath.Join(dir, keyFileName)}, tlsNow)
	if err != nil || string(given.Certificate[0]) != string(first.Certificate[0]) {
		t.Errorf("--tls-cert-file: %v", err)
	}
	if _, err := servingCertificate(ServingOptions{TLSCertFile: "/nonexistent.crt", TLSPrivateKeyFile: "/nonexistent.key"}, tlsNow); err == nil {
		t.Error("a missing --tls-cert-file was accepted")
	}
	if err := os.WriteFile(filepath.Join(dir, certFileName), []byte("garbage"), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := servingCertificate(ServingOptions{CertDir: dir}, tlsNow); err == nil {
		t.Error("a corrupt certificate in --cert-dir was replaced silently")
	}
}
