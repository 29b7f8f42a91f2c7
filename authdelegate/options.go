package authdelegate

import (
	"errors"
	"fmt"
	"time"

	"github.com/spf13/pflag"
)

// Defaults of the flags, each kube-controller-manager v1.37's
// (k8s.io/apiserver's NewDelegatingAuthenticationOptions and
// NewDelegatingAuthorizationOptions).
const (
	// DefaultTokenCacheTTL is --authentication-token-webhook-cache-ttl.
	DefaultTokenCacheTTL = 10 * time.Second
	// DefaultAuthorizedTTL and DefaultUnauthorizedTTL are
	// --authorization-webhook-cache-authorized-ttl and -unauthorized-ttl.
	DefaultAuthorizedTTL   = 10 * time.Second
	DefaultUnauthorizedTTL = 10 * time.Second
	// ReviewTimeout bounds one TokenReview or SubjectAccessReview
	// (TokenRequestTimeout and ClientTimeout upstream: 10 s).
	ReviewTimeout = 10 * time.Second
)

// DefaultAlwaysAllowPaths is --authorization-always-allow-paths: the
// health endpoints a kubelet probes without credentials.
var DefaultAlwaysAllowPaths = []string{"/healthz", "/readyz", "/livez"}

// PrivilegedGroup is always authorized without asking the apiserver, as
// kube-apiserver's own authorizer never denies it (AlwaysAllowGroups).
const PrivilegedGroup = "system:masters"

// Anonymous identity, as k8s.io/apiserver's anonymous authenticator names it.
const (
	AnonymousUser        = "system:anonymous"
	UnauthenticatedGroup = "system:unauthenticated"
	AuthenticatedGroup   = "system:authenticated"
)

// ErrInvalidOptions is wrapped by Validate's errors.
var ErrInvalidOptions = errors.New("invalid authentication or authorization flags")

// RequestHeaderOptions are the --requestheader-* flags: how a front proxy
// (kube-apiserver's aggregator) hands the user it authenticated to kcm.
type RequestHeaderOptions struct {
	ClientCAFile        string
	AllowedNames        []string
	UsernameHeaders     []string
	UIDHeaders          []string
	GroupHeaders        []string
	ExtraHeaderPrefixes []string
}

// Options are the delegated authentication and authorization flags of
// kube-controller-manager, with its names and defaults.
type Options struct {
	// AuthenticationKubeconfig is --authentication-kubeconfig: where
	// TokenReviews are sent and extension-apiserver-authentication is read.
	AuthenticationKubeconfig string
	// TokenCacheTTL is --authentication-token-webhook-cache-ttl.
	TokenCacheTTL time.Duration
	// SkipLookup is --authentication-skip-lookup.
	SkipLookup bool
	// TolerateLookupFailure is --authentication-tolerate-lookup-failure.
	TolerateLookupFailure bool
	// ClientCAFile is --client-ca-file.
	ClientCAFile  string
	RequestHeader RequestHeaderOptions

	// AuthorizationKubeconfig is --authorization-kubeconfig: where
	// SubjectAccessReviews are sent.
	AuthorizationKubeconfig string
	// AlwaysAllowPaths is --authorization-always-allow-paths.
	AlwaysAllowPaths []string
	// AuthorizedTTL and UnauthorizedTTL are
	// --authorization-webhook-cache-authorized-ttl and -unauthorized-ttl.
	AuthorizedTTL   time.Duration
	UnauthorizedTTL time.Duration
}

// NewOptions returns kube-controller-manager v1.37's defaults.
func NewOptions() Options {
	return Options{
		TokenCacheTTL: DefaultTokenCacheTTL,
		RequestHeader: RequestHeaderOptions{
			UsernameHeaders:     []string{"x-remote-user"},
			GroupHeaders:        []string{"x-remote-group"},
			ExtraHeaderPrefixes: []string{"x-remote-extra-"},
		},
		AlwaysAllowPaths: append([]string(nil), DefaultAlwaysAllowPaths...),
		AuthorizedTTL:    DefaultAuthorizedTTL,
		UnauthorizedTTL:  DefaultUnauthorizedTTL,
	}
}

// AddAuthenticationFlags binds the authentication flags to o, with
// kube-controller-manager's names, defaults and help texts.
func (o *Options) AddAuthenticationFlags(fs *pflag.FlagSet) {
	fs.StringVar(&o.AuthenticationKubeconfig, "authentication-kubeconfig", o.AuthenticationKubeconfig,
		"kubeconfig file pointing at the 'core' kubernetes server with enough rights to create tokenreviews.authentication.k8s.io. "+
			"This is optional. If empty, all token requests are considered to be anonymous and no client CA is looked up in the cluster "+
			"(in a pod, the pod's service account is used instead).")
	fs.DurationVar(&o.TokenCacheTTL, "authentication-token-webhook-cache-ttl", o.TokenCacheTTL,
		"The duration to cache responses from the webhook token authenticator.")
	fs.StringVar(&o.ClientCAFile, "client-ca-file", o.ClientCAFile,
		"If set, any request presenting a client certificate signed by one of the authorities in the client-ca-file "+
			"is authenticated with an identity corresponding to the CommonName of the client certificate.")
	rh := &o.RequestHeader
	fs.StringVar(&rh.ClientCAFile, "requestheader-client-ca-file", rh.ClientCAFile,
		"Root certificate bundle to use to verify client certificates on incoming requests before trusting usernames "+
			"in headers specified by --requestheader-username-headers. WARNING: generally do not depend on authorization "+
			"being already done for incoming requests.")
	fs.StringSliceVar(&rh.AllowedNames, "requestheader-allowed-names", rh.AllowedNames,
		"List of client certificate common names to allow to provide usernames in headers specified by "+
			"--requestheader-username-headers. If empty, any client certificate validated by the authorities in "+
			"--requestheader-client-ca-file is allowed.")
	fs.StringSliceVar(&rh.UsernameHeaders, "requestheader-username-headers", rh.UsernameHeaders,
		"List of request headers to inspect for usernames. X-Remote-User is common.")
	fs.StringSliceVar(&rh.UIDHeaders, "requestheader-uid-headers", rh.UIDHeaders,
		"List of request headers to inspect for UIDs. X-Remote-Uid is suggested.")
	fs.StringSliceVar(&rh.GroupHeaders, "requestheader-group-headers", rh.GroupHeaders,
		"List of request headers to inspect for groups. X-Remote-Group is suggested.")
	fs.StringSliceVar(&rh.ExtraHeaderPrefixes, "requestheader-extra-headers-prefix", rh.ExtraHeaderPrefixes,
		"List of request header prefixes to inspect. X-Remote-Extra- is suggested.")
	fs.BoolVar(&o.SkipLookup, "authentication-skip-lookup", o.SkipLookup,
		"If false, the authentication-kubeconfig will be used to lookup missing authentication configuration from the cluster.")
	fs.BoolVar(&o.TolerateLookupFailure, "authentication-tolerate-lookup-failure", o.TolerateLookupFailure,
		"If true, failures to look up missing authentication configuration from the cluster are not considered fatal. "+
			"Note that this can result in authentication that treats all requests as anonymous.")
}

// AddAuthorizationFlags binds the authorization flags to o, with
// kube-controller-manager's names, defaults and help texts.
func (o *Options) AddAuthorizationFlags(fs *pflag.FlagSet) {
	fs.StringVar(&o.AuthorizationKubeconfig, "authorization-kubeconfig", o.AuthorizationKubeconfig,
		"kubeconfig file pointing at the 'core' kubernetes server with enough rights to create subjectaccessreviews.authorization.k8s.io. "+
			"This is optional. If empty, all requests not skipped by authorization are forbidden "+
			"(in a pod, the pod's service account is used instead).")
	fs.DurationVar(&o.AuthorizedTTL, "authorization-webhook-cache-authorized-ttl", o.AuthorizedTTL,
		"The duration to cache 'authorized' responses from the webhook authorizer.")
	fs.DurationVar(&o.UnauthorizedTTL, "authorization-webhook-cache-unauthorized-ttl", o.UnauthorizedTTL,
		"The duration to cache 'unauthorized' responses from the webhook authorizer.")
	fs.StringSliceVar(&o.AlwaysAllowPaths, "authorization-always-allow-paths", o.AlwaysAllowPaths,
		"A list of HTTP paths to skip during authorization, i.e. these are authorized without contacting the 'core' kubernetes server.")
}

// Validate checks the options and returns every problem at once.
func (o *Options) Validate() []error {
	var errs []error
	for _, d := range []struct {
		flag string
		v    time.Duration
	}{
		{"--authentication-token-webhook-cache-ttl", o.TokenCacheTTL},
		{"--authorization-webhook-cache-authorized-ttl", o.AuthorizedTTL},
		{"--authorization-webhook-cache-unauthorized-ttl", o.UnauthorizedTTL},
	} {
		if d.v < 0 {
			errs = append(errs, fmt.Errorf("%w: %s %v must not be negative", ErrInvalidOptions, d.flag, d.v))
		}
	}
	if _, err := newPathMatcher(o.AlwaysAllowPaths); err != nil {
		errs = append(errs, fmt.Errorf("%w: --authorization-always-allow-paths: %w", ErrInvalidOptions, err))
	}
	// k8s.io/apiserver's RequestHeaderAuthenticationOptions.Validate: the
	// headers must be given whenever a request-header CA is.
	if o.RequestHeader.ClientCAFile != "" && len(o.RequestHeader.UsernameHeaders) == 0 {
		errs = append(errs, fmt.Errorf("%w: --requestheader-username-headers must not be empty with --requestheader-client-ca-file", ErrInvalidOptions))
	}
	return errs
}
