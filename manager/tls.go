package manager

import (
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/tls"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/pem"
	"errors"
	"fmt"
	"io/fs"
	"math/big"
	"net"
	"os"
	"path/filepath"
	"time"
)

// Names of the generated certificate and key inside --cert-dir.
const (
	certFileName = "kcm.crt"
	keyFileName  = "kcm.key"
)

// selfSignedValidity is how long a generated serving certificate lasts
// (kube-controller-manager's generated one lasts a year).
const selfSignedValidity = 365 * 24 * time.Hour

// servingCertificate returns the certificate to serve with, as
// kube-controller-manager chooses it: --tls-cert-file and
// --tls-private-key-file when given; else the pair in --cert-dir if one
// was generated before; else a new self-signed pair for host's names,
// written to --cert-dir when set and kept in memory otherwise.
func servingCertificate(s ServingOptions, now time.Time) (tls.Certificate, error) {
	if s.TLSCertFile != "" {
		c, err := tls.LoadX509KeyPair(s.TLSCertFile, s.TLSPrivateKeyFile)
		if err != nil {
			return tls.Certificate{}, fmt.Errorf("--tls-cert-file/--tls-private-key-file: %w", err)
		}
		return c, nil
	}
	var certPath, keyPath string
	if s.CertDir != "" {
		certPath, keyPath = filepath.Join(s.CertDir, certFileName), filepath.Join(s.CertDir, keyFileName)
		c, err := tls.LoadX509KeyPair(certPath, keyPath)
		if err == nil {
			return c, nil
		}
		if !errors.Is(err, fs.ErrNotExist) {
			return tls.Certificate{}, fmt.Errorf("--cert-dir: %w", err)
		}
	}
	certPEM, keyPEM, err := selfSigned(s.BindAddress, now)
	if err != nil {
		return tls.Certificate{}, err
	}
	if certPath != "" {
		if err := os.MkdirAll(s.CertDir, 0o755); err != nil {
			return tls.Certificate{}, fmt.Errorf("--cert-dir: %w", err)
		}
		if err := os.WriteFile(certPath, certPEM, 0o644); err != nil {
			return tls.Certificate{}, fmt.Errorf("--cert-dir: %w", err)
		}
		if err := os.WriteFile(keyPath, keyPEM, 0o600); err != nil {
			return tls.Certificate{}, fmt.Errorf("--cert-dir: %w", err)
		}
	}
	return tls.X509KeyPair(certPEM, keyPEM)
}

// selfSigned makes an ECDSA P-256 certificate valid for localhost,
// 127.0.0.1, ::1, the host name and bindAddress when it names one address.
func selfSigned(bindAddress string, now time.Time) (certPEM, keyPEM []byte, err error) {
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		return nil, nil, fmt.Errorf("self-signed certificate: %w", err)
	}
	serial, err := rand.Int(rand.Reader, new(big.Int).Lsh(big.NewInt(1), 62))
	if err != nil {
		return nil, nil, fmt.Errorf("self-signed certificate: %w", err)
	}
	host, _ := os.Hostname()
	tmpl := &x509.Certificate{
		SerialNumber: serial,
		Subject:      pkix.Name{CommonName: "kcm@" + host},
		NotBefore:    now.Add(-time.Hour),
		NotAfter:     now.Add(selfSignedValidity),
		KeyUsage:     x509.KeyUsageDigitalSignature,
		ExtKeyUsage:  []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth},
		DNSNames:     []string{"localhost"},
		IPAddresses:  []net.IP{net.IPv4(127, 0, 0, 1), net.IPv6loopback},
	}
	if host != "" {
		tmpl.DNSNames = append(tmpl.DNSNames, host)
	}
	if ip := net.ParseIP(bindAddress); ip != nil && !ip.IsUnspecified() && !ip.IsLoopback() {
		tmpl.IPAddresses = append(tmpl.IPAddresses, ip)
	}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, &key.PublicKey, key)
	if err != nil {
		return nil, nil, fmt.Errorf("self-signed certificate: %w", err)
	}
	keyDER, err := x509.MarshalECPrivateKey(key)
	if err != nil {
		return nil, nil, fmt.Errorf("self-signed certificate: %w", err)
	}
	return pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: der}),
		pem.EncodeToMemory(&pem.Block{Type: "EC PRIVATE KEY", Bytes: keyDER}), nil
}
