package authdelegate

import (
	"context"
	"crypto/tls"
	"errors"
	"fmt"
	"os"
	"sync/atomic"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/rs/zerolog"

	"github.com/kcmlab/kcm/clock"
	"github.com/kcmlab/kcm/kube/clientcmd"
	"github.com/kcmlab/kcm/kube/rest"
)

// RefreshInterval is how often the client CA and front-proxy settings
// taken from extension-apiserver-authentication are read again.
const RefreshInterval = time.Minute

// Config is what New needs besides the flags.
type Config struct {
	Options Options
	// Clock drives the caches, the review rate limit, certificate
	// validity and the refresh; nil means clock.Real.
	Clock  clock.Clock
	Logger zerolog.Logger
	// InCluster returns the pod's own config, used for a kubeconfig flag
	// left empty; nil means clientcmd.InClusterConfig. Outside a pod it
	// returns an error wrapping clientcmd.ErrNotInCluster.
	InCluster func() (*rest.Config, error)
	// UserAgent of the review clients; "" means rest.DefaultUserAgent.
	UserAgent string
	// Registerer receives apiserver_delegated_authn_request_total,
	// apiserver_delegated_authz_request_total and their latencies, as
	// kube-controller-manager's /metrics shows them; nil: none.
	Registerer prometheus.Registerer
	// ReviewQPS, ReviewBurst and ReviewInFlight bound the reviews sent
	// (each of TokenReviews and SubjectAccessReviews); zero means the
	// defaults.
	ReviewQPS      float64
	ReviewBurst    int
	ReviewInFlight int
}

// Delegate authenticates and authorizes the requests of kcm's secure port
// by asking the apiserver, as kube-controller-manager does.
type Delegate struct {
	log   zerolog.Logger
	clk   clock.Clock
	authn chain
	authz union

	// refresh re-reads extension-apiserver-authentication; nil: nothing
	// came from it.
	refresh func(ctx context.Context) error

	tokenReviews atomic.Int64
	sars         atomic.Int64

	// clients are the review clients, whose idle connections Close drops.
	clients []*rest.Client
}

// New builds the authentication chain (front proxy, client certificate,
// bearer token, then anonymous) and the authorization chain
// (system:masters, the always-allowed paths, then SubjectAccessReview)
// from the flags, as k8s.io/apiserver's DelegatingAuthenticationOptions
// and DelegatingAuthorizationOptions ApplyTo do for
// kube-controller-manager. A kubeconfig flag left empty means the pod's
// own config; outside a pod that part is left out with a warning: no
// token is accepted, no client CA is looked up, and no path but the
// always-allowed ones is authorized (except for system:masters).
func New(ctx context.Context, c Config) (*Delegate, error) {
	if c.Clock == nil {
		c.Clock = clock.Real{}
	}
	if c.InCluster == nil {
		c.InCluster = func() (*rest.Config, error) {
			return clientcmd.InClusterConfig(clientcmd.InClusterOptions{Logger: c.Logger})
		}
	}
	qps, burst, inFlight := c.ReviewQPS, c.ReviewBurst, c.ReviewInFlight
	if qps <= 0 {
		qps = DefaultReviewQPS
	}
	if burst <= 0 {
		burst = DefaultReviewBurst
	}
	if inFlight <= 0 {
		inFlight = DefaultReviewInFlight
	}
	o := c.Options
	if errs := o.Validate(); len(errs) > 0 {
		return nil, errors.Join(errs...)
	}
	d := &Delegate{log: c.Logger, clk: c.Clock}

	authnClient, err := reviewClient(c, o.AuthenticationKubeconfig, "authentication")
	if err != nil {
		return nil, err
	}
	authzClient, err := reviewClient(c, o.AuthorizationKubeconfig, "authorization")
	if err != nil {
		return nil, err
	}
	for _, cl := range []*rest.Client{authnClient, authzClient} {
		if cl != nil {
			d.clients = append(d.clients, cl)
		}
	}

	clientCA, proxyCA := &caBundle{}, &caBundle{}
	proxy := &headerAuthenticator{ca: proxyCA, clk: c.Clock}
	var fromCluster struct{ clientCA, proxy bool }
	if o.ClientCAFile != "" {
		if err := loadCAFile(clientCA, o.ClientCAFile); err != nil {
			return nil, fmt.Errorf("--client-ca-file: %w", err)
		}
	} else if !o.SkipLookup {
		if authnClient == nil {
			d.log.Warn().Msgf("no authentication-kubeconfig provided in order to look up client-ca-file in configmap/%s in %s, "+
				"so client certificate authentication won't work", AuthenticationConfigMapName, AuthenticationConfigMapNamespace)
		} else {
			fromCluster.clientCA = true
		}
	}
	if rh := o.RequestHeader; rh.ClientCAFile != "" {
		if err := loadCAFile(proxyCA, rh.ClientCAFile); err != nil {
			return nil, fmt.Errorf("--requestheader-client-ca-file: %w", err)
		}
		proxy.cfg.Store(&headerConfig{allowedNames: rh.AllowedNames, usernameHeaders: rh.UsernameHeaders,
			uidHeaders: rh.UIDHeaders, groupHeaders: rh.GroupHeaders, extraHeaderPrefixes: rh.ExtraHeaderPrefixes})
	} else if !o.SkipLookup {
		if authnClient == nil {
			d.log.Warn().Msgf("no authentication-kubeconfig provided in order to look up requestheader-client-ca-file in configmap/%s in %s, "+
				"so request-header client certificate authentication won't work", AuthenticationConfigMapName, AuthenticationConfigMapNamespace)
		} else {
			fromCluster.proxy = true
		}
	}
	if fromCluster.clientCA || fromCluster.proxy {
		apply := func(ca clusterAuthentication) error {
			if fromCluster.clientCA {
				if err := clientCA.set(ca.clientCA); err != nil {
					return fmt.Errorf("client-ca-file: %w", err)
				}
			}
			if fromCluster.proxy {
				if err := proxyCA.set(ca.requestHeaderCA); err != nil {
					return fmt.Errorf("requestheader-client-ca-file: %w", err)
				}
				h := ca.headers
				proxy.cfg.Store(&h)
			}
			return nil
		}
		d.refresh = func(ctx context.Context) error {
			ca, err := lookup(ctx, authnClient)
			if err != nil {
				return err
			}
			return apply(ca)
		}
		if err := d.refresh(ctx); err != nil {
			if !o.TolerateLookupFailure {
				return nil, fmt.Errorf("authentication configuration (--authentication-tolerate-lookup-failure=false): %w", err)
			}
			d.log.Warn().Err(err).Msg("error looking up in-cluster authentication configuration; continuing without it, " +
				"which may treat all requests as anonymous (--authentication-tolerate-lookup-failure)")
		}
	}

	authnMetrics, err := newReviewMetrics(c.Registerer, "authn")
	if err != nil {
		return nil, err
	}
	authzMetrics, err := newReviewMetrics(c.Registerer, "authz")
	if err != nil {
		return nil, err
	}
	d.authn = chain{proxy, &certAuthenticator{ca: clientCA, clk: c.Clock}}
	if authnClient != nil {
		d.authn = append(d.authn, newTokenAuthenticator(authnClient, c.Clock, o.TokenCacheTTL,
			newGate(c.Clock, qps, burst, inFlight), func(err error, took time.Duration) {
				d.tokenReviews.Add(1)
				authnMetrics.observe(err, took)
			}))
	}

	paths, err := newPathMatcher(o.AlwaysAllowPaths)
	if err != nil {
		return nil, err
	}
	d.authz = union{privilegedGroups{PrivilegedGroup}, alwaysAllowPaths{paths}}
	if authzClient == nil {
		d.log.Warn().Msg("no authorization-kubeconfig provided, so SubjectAccessReview of authorization tokens won't work")
	} else {
		d.authz = append(d.authz, newSARAuthorizer(authzClient, c.Clock, o.AuthorizedTTL, o.UnauthorizedTTL,
			newGate(c.Clock, qps, burst, inFlight), func(err error, took time.Duration) {
				d.sars.Add(1)
				authzMetrics.observe(err, took)
			}))
	}
	return d, nil
}

// reviewClient is the client of --authentication-kubeconfig or
// --authorization-kubeconfig, else of the pod; nil outside a pod, as
// kube-controller-manager's RemoteKubeConfigFileOptional. Its requests
// are neither rate limited nor retried: the gate limits them, and a
// failed review fails its request.
func reviewClient(c Config, path, what string) (*rest.Client, error) {
	var cfg *rest.Config
	var err error
	if path != "" {
		cfg, err = clientcmd.LoadKubeconfig(clientcmd.LoadOptions{ExplicitPath: path, Clock: c.Clock, Logger: c.Logger})
		if err != nil {
			return nil, fmt.Errorf("--%s-kubeconfig: %w", what, err)
		}
	} else {
		cfg, err = c.InCluster()
		if err != nil {
			if !errors.Is(err, clientcmd.ErrNotInCluster) {
				c.Logger.Warn().Err(err).Msgf("failed to read in-cluster kubeconfig for delegated %s", what)
			}
			return nil, nil
		}
	}
	cp := *cfg
	cp.QPS, cp.Burst = -1, 0
	if c.UserAgent != "" {
		cp.UserAgent = c.UserAgent
	}
	cl, err := rest.NewClient(&cp, rest.WithLogger(c.Logger), rest.WithRetryPolicy(rest.RetryPolicy{MaxAttempts: 1}))
	if err != nil {
		return nil, fmt.Errorf("delegated %s: %w", what, err)
	}
	return cl, nil
}

// loadCAFile fills b from a PEM file.
func loadCAFile(b *caBundle, path string) error {
	data, err := os.ReadFile(path)
	if err != nil {
		return err
	}
	if len(data) == 0 {
		return fmt.Errorf("%s is empty", path)
	}
	return b.set(data)
}

// Run re-reads extension-apiserver-authentication every RefreshInterval
// until ctx ends, keeping the last good settings when a read fails. It
// returns at once when nothing came from there.
func (d *Delegate) Run(ctx context.Context) {
	if d.refresh == nil {
		return
	}
	t := d.clk.NewTicker(RefreshInterval)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-t.C():
			if err := d.refresh(ctx); err != nil && ctx.Err() == nil {
				d.log.Warn().Err(err).Msg("refreshing the client CA and front-proxy settings; keeping the last ones")
			}
		}
	}
}

// Close drops the review clients' idle connections (the server stopped).
func (d *Delegate) Close() {
	for _, c := range d.clients {
		c.CloseIdleConnections()
	}
}

// ClientAuth is the TLS setting the server needs: client certificates
// are asked for and verified here, not by the TLS stack (the CA may
// change), and are never required.
func (d *Delegate) ClientAuth() tls.ClientAuthType { return tls.RequestClientCert }

// Reviews returns how many TokenReviews and SubjectAccessReviews were
// sent so far.
func (d *Delegate) Reviews() (tokenReviews, subjectAccessReviews int64) {
	return d.tokenReviews.Load(), d.sars.Load()
}
