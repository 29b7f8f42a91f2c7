package rest

import (
	"context"
	"crypto/tls"
	"time"
)

// Config says how to reach one cluster and who to be there. It is what a
// kubeconfig context, or a pod's service-account mount, boils down to.
//
// A Config never prints its secrets: every fmt verb (Format), json.Marshal
// and zerolog (MarshalJSON, MarshalZerologObject) show the credentials' kind
// and key sizes, never their values, and error messages built from it name
// fields, never their values.
type Config struct {
	// Host is the apiserver's base URL, e.g. "https://127.0.0.1:6443".
	Host string
	// TLS holds the server's CA, an optional static client certificate and
	// the server-name override.
	TLS TLSConfig
	// Credentials authenticates each request (token, basic auth, exec plugin,
	// rotating token file). Nil means anonymous.
	Credentials Credentials

	// QPS and Burst bound the request rate of one Client. Zero QPS means the
	// defaults of kube-controller-manager (20 qps, burst 30); a negative QPS
	// disables rate limiting.
	QPS   float32
	Burst int
	// UserAgent is sent with every request; empty means DefaultUserAgent.
	UserAgent string
	// Timeout bounds non-watch requests; zero means no client-side limit
	// beyond the caller's context.
	Timeout time.Duration
	// ContentType is the encoding reads ask for: "" or ContentTypeJSON for
	// JSON; ContentTypeProtobuf for protobuf where the resource has a
	// protobuf form and the codec reads it, JSON otherwise (see negotiate;
	// kube-controller-manager's --kube-api-content-type). Answers are read
	// by the Content-Type the server gives them. Any other value fails
	// NewClient.
	ContentType string

	// Source names where this config came from (a kubeconfig path and
	// context, or "in-cluster"), for error messages.
	Source string
}

// TLSConfig is the TLS part of a Config. Certificate and key bytes are PEM.
type TLSConfig struct {
	CAData   []byte
	CertData []byte
	KeyData  []byte
	// Insecure skips server certificate verification. Only ever true when a
	// kubeconfig says insecure-skip-tls-verify: true.
	Insecure   bool
	ServerName string
}

// Credentials produce the authentication for requests. Implementations must
// be safe for concurrent use and may refresh themselves (exec plugins, token
// files that the kubelet rotates).
type Credentials interface {
	// Authorization returns the value of the Authorization header, or "" when
	// these credentials authenticate by client certificate only.
	Authorization(ctx context.Context) (string, error)
	// ClientCertificate returns the client certificate to present in the TLS
	// handshake, or nil for none.
	ClientCertificate(ctx context.Context) (*tls.Certificate, error)
	// Invalidate drops cached credentials after the server answered 401, so
	// the next call fetches fresh ones.
	Invalidate()
}

// DefaultUserAgent is sent when Config.UserAgent is empty.
const DefaultUserAgent = "kcm/v0 (linux) kcm"

// StaticToken is a bearer token that never changes.
type StaticToken string

// Authorization implements Credentials.
func (t StaticToken) Authorization(context.Context) (string, error) {
	return "Bearer " + string(t), nil
}

// ClientCertificate implements Credentials.
func (StaticToken) ClientCertificate(context.Context) (*tls.Certificate, error) { return nil, nil }

// Invalidate implements Credentials.
func (StaticToken) Invalidate() {}
