package clientcmd

import (
	"context"
	"crypto/tls"
	"crypto/x509"
	"encoding/base64"
	"encoding/pem"
	"errors"
	"fmt"
	"strings"
	"sync"
	"time"

	"github.com/kcmlab/kcm/clock"
	"github.com/kcmlab/kcm/kube/rest"
	"github.com/rs/zerolog"
)

// DefaultTokenFileMaxAge is how long a TokenFile trusts the token it read
// before reading the file again. The kubelet rotates projected
// service-account tokens well before they expire, so a minute-old copy is
// always still valid.
const DefaultTokenFileMaxAge = time.Minute

// Both implement Credentials.
var (
	_ rest.Credentials = (*TokenFile)(nil)
	_ rest.Credentials = BasicAuth{}
)

// TokenFileOptions tune a TokenFile. The zero value is fine.
type TokenFileOptions struct {
	// MaxAge is how long a read token is reused; zero means
	// DefaultTokenFileMaxAge.
	MaxAge time.Duration
	// Clock judges the age of the token; nil means clock.Real.
	Clock clock.Clock
	// Logger hears about failed re-reads (never the token). The zero Logger
	// discards.
	Logger zerolog.Logger
}

// TokenFile is a bearer token kept in a file that someone else rotates: the
// kubelet's projected service-account token, or a kubeconfig's tokenFile. It
// re-reads the file when its copy is older than MaxAge, or on the next use
// after Invalidate. If a re-read fails it keeps using the last good token
// (logging the failure): a transient read error must not turn into a burst of
// 401s. Safe for concurrent use.
type TokenFile struct {
	path   string
	maxAge time.Duration
	clock  clock.Clock
	log    zerolog.Logger

	mu sync.Mutex
	// cur is the last token read successfully; never nil after
	// NewTokenFile returns. Kept behind a pointer so that printing a
	// TokenFile value shows an address, not the token.
	cur *fileToken
	// stale forces a re-read on next use, whatever cur's age.
	stale bool
}

// fileToken is one successful read of a TokenFile.
type fileToken struct {
	token  string
	readAt time.Time
}

// NewTokenFile reads the token at path once, so a missing or empty file is
// reported now rather than at the first request.
func NewTokenFile(path string, opts TokenFileOptions) (*TokenFile, error) {
	t := &TokenFile{path: path, maxAge: opts.MaxAge, clock: opts.Clock, log: opts.Logger}
	if t.maxAge <= 0 {
		t.maxAge = DefaultTokenFileMaxAge
	}
	if t.clock == nil {
		t.clock = clock.Real{}
	}
	tok, err := readTokenFile(path)
	if err != nil {
		return nil, err
	}
	t.cur = &fileToken{token: tok, readAt: t.clock.Now()}
	return t, nil
}

// readTokenFile reads and trims a token. Its errors name the path only.
func readTokenFile(path string) (string, error) {
	b, err := readFileLimited(path, "token file", MaxTokenFileBytes)
	if err != nil {
		return "", err
	}
	tok := strings.TrimSpace(string(b))
	if tok == "" {
		return "", fmt.Errorf("token file %s is empty", path)
	}
	return tok, nil
}

// Token returns the current token, re-reading the file when due.
func (t *TokenFile) Token() string {
	t.mu.Lock()
	defer t.mu.Unlock()
	now := t.clock.Now()
	if !t.stale && now.Sub(t.cur.readAt) < t.maxAge {
		return t.cur.token
	}
	tok, err := readTokenFile(t.path)
	if err != nil {
		t.log.Warn().Err(err).Str("path", t.path).Msg("cannot re-read token file; keeping the previous token")
		return t.cur.token
	}
	t.cur = &fileToken{token: tok, readAt: now}
	t.stale = false
	return tok
}

// Authorization implements Credentials.
func (t *TokenFile) Authorization(context.Context) (string, error) { return "Bearer " + t.Token(), nil }

// ClientCertificate implements Credentials: a token file holds no certificate.
func (*TokenFile) ClientCertificate(context.Context) (*tls.Certificate, error) { return nil, nil }

// Invalidate makes the next use re-read the file (the server rejected the
// token, so it has probably been rotated).
func (t *TokenFile) Invalidate() {
	t.mu.Lock()
	t.stale = true
	t.mu.Unlock()
}

// Path returns the file the token is read from.
func (t *TokenFile) Path() string { return t.path }

// BasicAuth is HTTP basic authentication from a kubeconfig's username and
// password. Its String and GoString redact the password.
type BasicAuth struct {
	Username string
	Password string
}

// Authorization implements Credentials.
func (b BasicAuth) Authorization(context.Context) (string, error) {
	return "Basic " + base64.StdEncoding.EncodeToString([]byte(b.Username+":"+b.Password)), nil
}

// ClientCertificate implements Credentials.
func (BasicAuth) ClientCertificate(context.Context) (*tls.Certificate, error) { return nil, nil }

// Invalidate implements Credentials; static credentials have no cache.
func (BasicAuth) Invalidate() {}

// errNoKeyPair is returned for a client certificate/key pair that does not
// parse; the message names the halves, never the bytes.
var errNoKeyPair = errors.New("certificate and key do not form a key pair")

// dataOrFile returns the bytes of a "-data" field (base64) or, when that is
// empty, of the file the plain field names; nil when both are empty. On
// failure problem names field and what is wrong, and err is the cause.
func dataOrFile(field, data, file string) (b []byte, problem string, err error) {
	if data != "" {
		b, err = base64.StdEncoding.DecodeString(data)
		if err != nil {
			return nil, field + " is not valid base64", err
		}
		return b, "", nil
	}
	if file == "" {
		return nil, "", nil
	}
	b, err = readFileLimited(file, field, MaxPEMFileBytes)
	if err != nil {
		return nil, field + " cannot be read", err
	}
	return b, "", nil
}

// validCAPEM reports whether b holds at least one PEM certificate.
func validCAPEM(b []byte) bool { return x509.NewCertPool().AppendCertsFromPEM(b) }

// checkKeyPair says which half of a client certificate pair is wrong, or ""
// when they form a usable pair. It never quotes the bytes.
func checkKeyPair(cert, key []byte, certField, keyField string) string {
	if !hasPEMBlock(cert, func(b *pem.Block) bool {
		_, err := x509.ParseCertificate(b.Bytes)
		return b.Type == "CERTIFICATE" && err == nil
	}) {
		return certField + " holds no PEM certificate"
	}
	if !hasPEMBlock(key, func(b *pem.Block) bool { return strings.HasSuffix(b.Type, "PRIVATE KEY") }) {
		return keyField + " holds no PEM private key"
	}
	if !hasPEMBlock(key, func(b *pem.Block) bool { return parsablePrivateKey(b.Bytes) }) {
		return keyField + " holds a private key that cannot be parsed"
	}
	if _, err := tls.X509KeyPair(cert, key); err != nil {
		return certField + " and " + keyField + " do not form a key pair"
	}
	return ""
}

func hasPEMBlock(data []byte, ok func(*pem.Block) bool) bool {
	for {
		var b *pem.Block
		b, data = pem.Decode(data)
		if b == nil {
			return false
		}
		if ok(b) {
			return true
		}
	}
}

func parsablePrivateKey(der []byte) bool {
	if _, err := x509.ParsePKCS8PrivateKey(der); err == nil {
		return true
	}
	if _, err := x509.ParsePKCS1PrivateKey(der); err == nil {
		return true
	}
	_, err := x509.ParseECPrivateKey(der)
	return err == nil
}
