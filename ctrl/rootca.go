package ctrl

import (
	"crypto/x509"
	"encoding/pem"
	"errors"
	"fmt"
	"io"
	"os"
)

// This file holds --root-ca-file, the one kube-controller-manager option
// that two controllers read: root-ca-cert-publisher publishes the bundle
// in every namespace, serviceaccount-token-controller puts it in every
// token Secret. Both declare RootCAFile() and read RootCA().

// RootCAFileFlag is the flag's name.
const RootCAFileFlag = "root-ca-file"

// RootCAFile is --root-ca-file as kube-controller-manager declares it (a
// string, empty by default, its help text verbatim). Every descriptor
// that reads it lists this value, so that the declarations agree.
func RootCAFile() ControllerFlag {
	return StringFlag(RootCAFileFlag, "", "If set, this root certificate authority will be included in "+
		"service account's token secret. This must be a valid PEM-encoded CA bundle.")
}

// MaxRootCAFileBytes bounds the --root-ca-file read, as kube/clientcmd
// bounds a CA bundle (MaxPEMFileBytes): a wrong path (/dev/zero) fails at
// once instead of growing memory.
const MaxRootCAFileBytes = 16 << 20

// ErrInvalidRootCA is wrapped by RootCA's error for a file that is too
// large or holds no valid certificate.
var ErrInvalidRootCA = errors.New("invalid root CA bundle")

// RootCA returns the CA bundle the root-CA readers publish: the contents
// of --root-ca-file when it is set, checked to be PEM certificates as
// kube-controller-manager's readCA checks it, else the CA the manager's
// client trusts for the apiserver (APIServerCAData, nil when none) —
// kube-controller-manager's getKubeAPIServerCAFileContents.
func (cc ControllerContext) RootCA() ([]byte, error) {
	file := cc.StringFlag(RootCAFileFlag, "")
	if file == "" {
		return cc.APIServerCAData(), nil
	}
	data, err := ReadRootCAFile(file)
	if err != nil {
		return nil, fmt.Errorf("error parsing root-ca-file at %s: %w", file, err)
	}
	return data, nil
}

// ReadRootCAFile reads a PEM CA bundle of at most MaxRootCAFileBytes and
// checks that it holds at least one certificate and that every
// CERTIFICATE block parses (client-go's certutil.ParseCertsPEM rule; other
// blocks are ignored). The bytes are returned as read.
func ReadRootCAFile(path string) ([]byte, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	data, err := io.ReadAll(io.LimitReader(f, MaxRootCAFileBytes+1))
	if err != nil {
		return nil, fmt.Errorf("reading %s: %w", path, err)
	}
	if len(data) > MaxRootCAFileBytes {
		return nil, fmt.Errorf("%w: %s holds more than %d bytes (%d MiB), the limit for a CA bundle",
			ErrInvalidRootCA, path, MaxRootCAFileBytes, MaxRootCAFileBytes>>20)
	}
	if err := checkCertsPEM(data); err != nil {
		return nil, err
	}
	return data, nil
}

// checkCertsPEM is certutil.ParseCertsPEM's acceptance rule.
func checkCertsPEM(data []byte) error {
	n := 0
	for rest := data; len(rest) > 0; {
		var b *pem.Block
		b, rest = pem.Decode(rest)
		if b == nil {
			break
		}
		if b.Type != "CERTIFICATE" || len(b.Headers) != 0 {
			continue
		}
		if _, err := x509.ParseCertificate(b.Bytes); err != nil {
			return fmt.Errorf("%w: certificate %d: %w", ErrInvalidRootCA, n+1, err)
		}
		n++
	}
	if n == 0 {
		return fmt.Errorf("%w: data does not contain any valid RSA or ECDSA certificates", ErrInvalidRootCA)
	}
	return nil
}
