package serviceaccounttoken

import (
	"crypto"
	"crypto/ecdsa"
	"crypto/rsa"
	"crypto/x509"
	"encoding/pem"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"
)

// MaxKeyFileBytes bounds --service-account-private-key-file, as
// kube/clientcmd bounds every PEM file it reads (16 MiB, far above any
// real key): a wrong path (/dev/zero, a log file) fails at once instead of
// growing memory without end.
const MaxKeyFileBytes = 16 << 20

// Errors of reading the key file; callers test them with errors.Is.
var (
	// ErrInvalidKey: the file holds no PEM block with an RSA or ECDSA
	// private key (the message names the file and the blocks seen, never
	// their bytes).
	ErrInvalidKey = errors.New("no valid RSA or ECDSA private key")
)

// PEM block types a private key may come in (keyutil's
// ECPrivateKeyBlockType, RSAPrivateKeyBlockType, PrivateKeyBlockType).
const (
	blockEC    = "EC PRIVATE KEY"  // SEC 1
	blockRSA   = "RSA PRIVATE KEY" // PKCS #1
	blockPKCS8 = "PRIVATE KEY"     // PKCS #8, unencrypted
)

// ReadKeyFile reads the private key kube-controller-manager's
// --service-account-private-key-file names (client-go keyutil's
// PrivateKeyFromFile): the first PEM block that parses as an RSA or ECDSA
// private key wins; other blocks ("EC PARAMETERS", certificates) are
// skipped. The read stops past MaxKeyFileBytes. Errors name the file and
// what was wrong, never the file's contents.
func ReadKeyFile(path string) (crypto.Signer, error) {
	data, err := readLimited(path, "private key file", MaxKeyFileBytes)
	if err != nil {
		return nil, err
	}
	key, err := ParseKeyPEM(data)
	clear(data) // the PEM is not kept past parsing
	if err != nil {
		return nil, fmt.Errorf("reading private key file %s: %w", path, err)
	}
	return key, nil
}

// ParseKeyPEM returns the first RSA or ECDSA private key among data's PEM
// blocks (keyutil's ParsePrivateKeyPEM). A PKCS #8 block holding a key of
// another algorithm (Ed25519) is refused, as the token generator refuses
// it upstream.
func ParseKeyPEM(data []byte) (crypto.Signer, error) {
	var seen []string
	for {
		var block *pem.Block
		block, data = pem.Decode(data)
		if block == nil {
			break
		}
		seen = append(seen, fmt.Sprintf("%q", block.Type))
		var key any
		var err error
		switch block.Type {
		case blockEC:
			key, err = x509.ParseECPrivateKey(block.Bytes)
		case blockRSA:
			key, err = x509.ParsePKCS1PrivateKey(block.Bytes)
		case blockPKCS8:
			key, err = x509.ParsePKCS8PrivateKey(block.Bytes)
		default:
			continue
		}
		clear(block.Bytes)
		if err != nil {
			continue
		}
		switch k := key.(type) {
		case *rsa.PrivateKey:
			return k, nil
		case *ecdsa.PrivateKey:
			return k, nil
		default:
			return nil, fmt.Errorf("%w: a PKCS #8 key of type %T (only RSA and ECDSA keys sign tokens)", ErrInvalidKey, key)
		}
	}
	if len(seen) == 0 {
		return nil, fmt.Errorf("%w: the data holds no PEM block", ErrInvalidKey)
	}
	return nil, fmt.Errorf("%w among the PEM blocks %s", ErrInvalidKey, strings.Join(seen, ", "))
}

// ErrFileTooLarge is wrapped by the error for a key file over its limit.
var ErrFileTooLarge = errors.New("file too large")

// readLimited reads path (what names the kind of file in errors),
// refusing a regular file over limit before reading it and any other
// file (a FIFO, a device) once limit+1 bytes have come.
func readLimited(path, what string, limit int64) ([]byte, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	tooLarge := fmt.Errorf("%s %s: %w: more than %d bytes (%d MiB)", what, path, ErrFileTooLarge, limit, limit>>20)
	if st, err := f.Stat(); err == nil && st.Mode().IsRegular() && st.Size() > limit {
		return nil, tooLarge
	}
	data, err := io.ReadAll(io.LimitReader(f, limit+1))
	if err != nil {
		return nil, fmt.Errorf("%s %s: %w", what, path, err)
	}
	if int64(len(data)) > limit {
		clear(data)
		return nil, tooLarge
	}
	return data, nil
}
