package main

import (
	"context"
	"crypto/tls"
	"crypto/x509"
	"errors"
	"fmt"
	"sync"

	"github.com/kcmlab/kcm/informer"
	"github.com/kcmlab/kcm/kube/api"
	"github.com/kcmlab/kcm/kube/api/decode"
	"github.com/kcmlab/kcm/kube/rest"
	"github.com/kcmlab/kcm/reflector"
)

// The engine retries every failure: a controller must outlive an expired
// token, a rotated CA or a CRD that is reinstalled later. kcm trace is a
// person at a terminal, and some answers no retry can change while the
// user does nothing: it stops on them with exit code 1 and says what to
// fix, instead of retrying forever in silence.
//
//   - 401 Unauthorized. The client has already invalidated its credentials
//     and retried once with fresh ones (the exec plugin run again, the token
//     file read again) before the reflector sees a 401.
//   - A server certificate that does not verify (unknown authority, wrong
//     host name, expired).
//   - 404 Not Found: the resource is not served, or (checked before the
//     informer starts, since a LIST in a missing namespace is an empty 200)
//     the namespace does not exist.

// unfixable returns the error to show the user when err is one that
// retrying cannot fix, wrapping err; nil for every other error.
// anonymous: the kubeconfig gives no credentials at all.
func unfixable(err error, anonymous bool) error {
	switch {
	case err == nil:
		return nil
	case rest.IsUnauthorized(err) && anonymous:
		return fmt.Errorf("the server wants credentials (401 Unauthorized) and the kubeconfig's user gives none: %w", err)
	case rest.IsUnauthorized(err):
		return fmt.Errorf("the server refuses the credentials (401 Unauthorized), also after refreshing them: "+
			"check the user of the kubeconfig context (token, client certificate, exec plugin): %w", err)
	case isCertificateError(err):
		return fmt.Errorf("cannot verify the server's certificate: check certificate-authority(-data), tls-server-name "+
			"and the server address in the kubeconfig: %w", err)
	case rest.IsNotFound(err):
		return fmt.Errorf("the server does not serve this resource (404 not found: a CRD not installed, or removed?): %w", err)
	}
	return nil
}

// isCertificateError reports a failure to verify the server's certificate.
func isCertificateError(err error) bool {
	var (
		verify   *tls.CertificateVerificationError
		unknown  x509.UnknownAuthorityError
		host     x509.HostnameError
		invalid  x509.CertificateInvalidError
		insecure x509.InsecureAlgorithmError
	)
	return errors.As(err, &verify) || errors.As(err, &unknown) || errors.As(err, &host) ||
		errors.As(err, &invalid) || errors.As(err, &insecure)
}

// checkNamespace asks the server for namespace ns before the trace starts:
// kube-apiserver answers a LIST in a namespace that does not exist with an
// empty list, so without this a typo in -n would trace nothing forever. A
// 403 (no right to read namespaces) or a passing failure lets the trace go
// on; only what retrying cannot fix stops it.
func checkNamespace(ctx context.Context, c *rest.Client, ns string, anonymous bool) error {
	_, err := rest.NewResources(c, rest.Namespaces, decode.Wire()).Get(ctx, ns) // existence only: protobuf will do
	switch {
	case err == nil:
		return nil
	case rest.IsNotFound(err):
		return fmt.Errorf("namespace %q not found: %w", ns, err)
	}
	return unfixable(err, anonymous)
}

// stopper is the tracer's observer: the recorder, whose every phase
// change it also reads, ending the trace on the first failure that
// retrying cannot fix.
type stopper struct {
	*recorder
	anonymous bool

	mu     sync.Mutex
	cancel context.CancelFunc // the running trace's, set by start
	err    error              // the first unfixable failure
}

var _ informer.Observer[*api.RawObject] = (*stopper)(nil)

// PhaseChange is part of reflector.Observer.
func (s *stopper) PhaseChange(from, to reflector.Phase, err error) {
	s.recorder.PhaseChange(from, to, err)
	if e := unfixable(err, s.anonymous); e != nil {
		s.mu.Lock()
		defer s.mu.Unlock()
		if s.err == nil {
			s.err = e
			if s.cancel != nil {
				s.cancel()
			}
		}
	}
}

// start arms the stopper with the running trace's cancel function.
func (s *stopper) start(cancel context.CancelFunc) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.cancel = cancel
	if s.err != nil {
		cancel()
	}
}

// failure returns the failure that stopped the trace, if any.
func (s *stopper) failure() error {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.err
}
