package clientbuilder

import (
	"sync"
	"time"

	"github.com/rs/zerolog"

	"github.com/kcmlab/kcm/clock"
	"github.com/kcmlab/kcm/kube/rest"
)

// Defaults of Options, kube-controller-manager's.
const (
	// DefaultNamespace holds the controllers' ServiceAccounts
	// (metav1.NamespaceSystem).
	DefaultNamespace = "kube-system"
	// DefaultExpiration is the lifetime a token is requested for
	// (defaultExpirationSeconds, 3600).
	DefaultExpiration = time.Hour
	// LeewayPercent is the share of a token's lifetime left when it is
	// replaced (defaultLeewayPercent).
	LeewayPercent = 20
	// MinLifetime is the lifetime assumed for a token that the
	// apiserver's expirationTimestamp says ends sooner: a clock skew
	// between kcm and the apiserver must not make kcm ask for a token
	// before every request.
	MinLifetime = 10 * time.Minute
)

// Options configure a Builder; zero fields take the defaults.
type Options struct {
	// Namespace holds the ServiceAccounts; DefaultNamespace when empty.
	Namespace string
	// Expiration is the lifetime asked for in each TokenRequest;
	// DefaultExpiration when zero.
	Expiration time.Duration
	// Clock decides when a token is due for replacement; clock.Real when
	// nil.
	Clock clock.Clock
	// Logger receives the warnings of failed refreshes.
	Logger zerolog.Logger
}

// Builder hands out clients that act as ServiceAccounts of one namespace
// (kube-controller-manager's DynamicControllerClientBuilder). It is safe
// for concurrent use.
type Builder struct {
	// root is the manager's own client: it reads and creates the
	// ServiceAccounts and asks for their tokens.
	root *rest.Client
	// anon is root without credentials, on a transport of its own, that
	// every client of the builder shares.
	anon *rest.Client
	o    Options

	mu      sync.Mutex
	sources map[string]*TokenSource // by ServiceAccount name; guarded by mu
}

// New returns a Builder whose ServiceAccounts and tokens are managed with
// root, the manager's own client, and whose clients are anonymous copies
// of root (same server, CA and client options) carrying a token.
func New(root *rest.Client, o Options) *Builder {
	if o.Namespace == "" {
		o.Namespace = DefaultNamespace
	}
	if o.Expiration <= 0 {
		o.Expiration = DefaultExpiration
	}
	if o.Clock == nil {
		o.Clock = clock.Real{}
	}
	return &Builder{root: root, anon: root.Anonymous(), o: o, sources: map[string]*TokenSource{}}
}

// Namespace returns the namespace of the builder's ServiceAccounts.
func (b *Builder) Namespace() string { return b.o.Namespace }

// Client returns a client that authenticates as the ServiceAccount
// <namespace>/<serviceAccount>, sends userAgent and has its own rate
// limiter (qps and burst as rest.Client.WithOptions takes them). Clients of
// one ServiceAccount share its token.
func (b *Builder) Client(serviceAccount, userAgent string, qps float32, burst int) *rest.Client {
	return b.anon.WithOptions(userAgent, qps, burst).WithCredentials(b.TokenSource(serviceAccount))
}

// TokenSource returns the credentials of the ServiceAccount, the same
// value for every call with one name.
func (b *Builder) TokenSource(serviceAccount string) *TokenSource {
	b.mu.Lock()
	defer b.mu.Unlock()
	s, ok := b.sources[serviceAccount]
	if !ok {
		s = newTokenSource(b, serviceAccount)
		b.sources[serviceAccount] = s
	}
	return s
}

// Close drops the idle connections of the clients' transport. Clients
// still in use open new ones.
func (b *Builder) Close() { b.anon.CloseIdleConnections() }

// Username is the name the apiserver gives a ServiceAccount's requests:
// "system:serviceaccount:<namespace>:<name>" (k8s.io/apiserver's
// serviceaccount.MakeUsername), the user the audit log records.
func Username(namespace, name string) string {
	return "system:serviceaccount:" + namespace + ":" + name
}
