package authdelegate

import (
	"crypto/x509"
	"errors"
	"fmt"
	"net/http"
	"sync/atomic"

	"github.com/kcmlab/kcm/clock"
)

// ErrNoCommonName: a verified client certificate names nobody.
var ErrNoCommonName = errors.New("client certificate has no common name")

// caBundle is a CA pool that may change while kcm runs (a ConfigMap's
// client-ca-file is refreshed); nil pool means "no CA": no certificate
// verifies.
type caBundle struct {
	pool atomic.Pointer[x509.CertPool]
	pem  atomic.Pointer[[]byte]
}

// set replaces the pool with the certificates of pemData; empty data
// clears it. It returns an error, leaving the pool unchanged, for data
// that holds no certificate.
func (b *caBundle) set(pemData []byte) error {
	if len(pemData) == 0 {
		b.pool.Store(nil)
		b.pem.Store(nil)
		return nil
	}
	p := x509.NewCertPool()
	if !p.AppendCertsFromPEM(pemData) {
		return errors.New("no PEM certificate found")
	}
	b.pool.Store(p)
	cp := append([]byte(nil), pemData...)
	b.pem.Store(&cp)
	return nil
}

// verify checks the request's client certificate chain against the pool
// for client authentication, at the clock's time. ok is false when the
// request carries no certificate or there is no pool.
func (b *caBundle) verify(r *http.Request, clk clock.Clock) (*x509.Certificate, bool, error) {
	if r.TLS == nil || len(r.TLS.PeerCertificates) == 0 {
		return nil, false, nil
	}
	pool := b.pool.Load()
	if pool == nil {
		return nil, false, nil
	}
	leaf := r.TLS.PeerCertificates[0]
	inter := x509.NewCertPool()
	for _, c := range r.TLS.PeerCertificates[1:] {
		inter.AddCert(c)
	}
	if _, err := leaf.Verify(x509.VerifyOptions{Roots: pool, Intermediates: inter, CurrentTime: clk.Now(),
		KeyUsages: []x509.ExtKeyUsage{x509.ExtKeyUsageClientAuth}}); err != nil {
		return nil, false, fmt.Errorf("verifying certificate %q: %w", leaf.Subject.CommonName, err)
	}
	return leaf, true, nil
}

// certAuthenticator authenticates a client certificate signed by the
// client CA: the user is its common name, the groups its organizations
// (k8s.io/apiserver's x509 CommonNameUserConversion).
type certAuthenticator struct {
	ca  *caBundle
	clk clock.Clock
}

// authenticate implements authenticator.
func (a *certAuthenticator) authenticate(r *http.Request) (User, bool, error) {
	leaf, ok, err := a.ca.verify(r, a.clk)
	if !ok || err != nil {
		return User{}, false, err
	}
	if leaf.Subject.CommonName == "" {
		return User{}, false, ErrNoCommonName
	}
	return User{Name: leaf.Subject.CommonName, Groups: append([]string(nil), leaf.Subject.Organization...)}, true, nil
}
