package manager

import (
	"context"
	"errors"
	"fmt"
	"net"
	"slices"
	"time"

	"github.com/kcmlab/kcm/authdelegate"
	"github.com/kcmlab/kcm/ctrl"
	"github.com/kcmlab/kcm/kube/rest"
	"github.com/kcmlab/kcm/lease"
)

// Defaults of the flags kcm shares with kube-controller-manager, each
// equal to kube-controller-manager v1.37's (the comment names where
// Kubernetes sets it).
const (
	// DefaultSecurePort is --secure-port (KubeControllerManagerPort,
	// k8s.io/kubernetes/pkg/cluster/ports).
	DefaultSecurePort = 10257
	// DefaultBindAddress is --bind-address (SecureServingOptions' default).
	DefaultBindAddress = "0.0.0.0"
	// DefaultKubeAPIQPS and DefaultKubeAPIBurst are --kube-api-qps and
	// --kube-api-burst (kube-controller-manager's
	// pkg/controller/apis/config/v1alpha1 defaults: 20 and 30).
	DefaultKubeAPIQPS   = 20
	DefaultKubeAPIBurst = 30
	// DefaultResourceLock is --leader-elect-resource-lock
	// (k8s.io/controller-manager/config/v1alpha1 defaults it to "leases",
	// the only lock client-go still implements).
	DefaultResourceLock = "leases"
	// ContentTypeJSON and ContentTypeProtobuf are the values of
	// --kube-api-content-type kcm accepts (rest.ContentTypeJSON and
	// rest.ContentTypeProtobuf); protobuf is the default, as
	// kube-controller-manager's (component-base's ClientConnection
	// defaults, k8s.io/component-base/config/v1alpha1).
	ContentTypeJSON     = rest.ContentTypeJSON
	ContentTypeProtobuf = rest.ContentTypeProtobuf
	// LogFormatText and LogFormatJSON are the values of --logging-format.
	LogFormatText = "text"
	LogFormatJSON = "json"
)

// ErrInvalidOptions is wrapped by every Validate error.
var ErrInvalidOptions = errors.New("invalid flags")

// LeaderElectionOptions are the --leader-elect-* flags
// (component-base's LeaderElectionConfiguration).
type LeaderElectionOptions struct {
	LeaderElect       bool
	LeaseDuration     time.Duration
	RenewDeadline     time.Duration
	RetryPeriod       time.Duration
	ResourceLock      string
	ResourceNamespace string
	ResourceName      string
}

// ServingOptions are the secure-serving flags.
type ServingOptions struct {
	// BindAddress and SecurePort are where /healthz, /readyz, /livez and
	// /metrics are served; SecurePort 0 serves nothing.
	BindAddress string
	SecurePort  int
	// CertDir receives the generated self-signed certificate when no
	// TLSCertFile is given ("" keeps it in memory).
	CertDir           string
	TLSCertFile       string
	TLSPrivateKeyFile string
}

// Options are the parsed command line of `kcm`, the manager
// (kube-controller-manager's KubeControllerManagerOptions).
type Options struct {
	Kubeconfig string
	Master     string

	// Controllers is --controllers and the --concurrent-<x>-syncs flags.
	Controllers *ctrl.Options

	KubeAPIQPS   float32
	KubeAPIBurst int32
	// KubeAPIContentType is --kube-api-content-type: the
	// rest.Config.ContentType of every client the manager builds (the
	// controllers', the shared informers', leader election's and the
	// event recorders'), as kube-controller-manager sets it on the one
	// kubeconfig all of its clients come from. Reads ask for protobuf
	// where the resource and the codec have it (kube/rest, content.go).
	// One difference: kube-controller-manager's metadata-only clients (the
	// garbage collector's and quota's monitors) ask for protobuf whatever
	// the flag (client-go's metadata.ConfigFor); kcm's follow it, so
	// application/json means JSON everywhere. The delegated authentication
	// and authorization clients (--authentication-kubeconfig, ...) come
	// from kubeconfigs of their own, not the manager's: the flag does not
	// touch them (they send reviews, as JSON).
	KubeAPIContentType string
	// UseServiceAccountCredentials is --use-service-account-credentials:
	// each controller's client authenticates as its own ServiceAccount in
	// kube-system with tokens from the TokenRequest API
	// (ctrl/clientbuilder). Off by default, as kube-controller-manager's.
	UseServiceAccountCredentials bool

	LeaderElection LeaderElectionOptions
	Serving        ServingOptions
	// Auth are the delegated authentication and authorization flags of
	// the secure port (--authentication-kubeconfig, --client-ca-file,
	// --authorization-kubeconfig, ...).
	Auth authdelegate.Options

	// LogFormat is --logging-format (alias --log-format); Verbosity is -v.
	LogFormat string
	Verbosity int
	// PrintVersion is --version: print the version and exit.
	PrintVersion bool
	// EnablePipelineView is --enable-pipeline-view (kcm's own flag): serve
	// /debug/pipeline on the secure port.
	EnablePipelineView bool
	// Profiling is --profiling: serve Go's profiles under /debug/pprof/ on
	// the secure port. On by default, as kube-controller-manager's: like
	// every path but the health checks it is authorized through the
	// apiserver (get on the non-resource URL).
	Profiling bool
}

// NewOptions returns kube-controller-manager v1.37's defaults for the
// flags kcm has, with the controllers of d.
func NewOptions(d *ctrl.Descriptors) *Options {
	return &Options{
		Controllers:        d.NewOptions(),
		KubeAPIQPS:         DefaultKubeAPIQPS,
		KubeAPIBurst:       DefaultKubeAPIBurst,
		KubeAPIContentType: ContentTypeProtobuf,
		LeaderElection: LeaderElectionOptions{
			LeaderElect:       true,
			LeaseDuration:     lease.DefaultLeaseDuration,
			RenewDeadline:     lease.DefaultRenewDeadline,
			RetryPeriod:       lease.DefaultRetryPeriod,
			ResourceLock:      DefaultResourceLock,
			ResourceNamespace: lease.DefaultNamespace,
			ResourceName:      lease.DefaultName,
		},
		Serving:   ServingOptions{BindAddress: DefaultBindAddress, SecurePort: DefaultSecurePort},
		Auth:      authdelegate.NewOptions(),
		LogFormat: LogFormatText,
		Profiling: true,
	}
}

// Validate checks the options against d, the registry they were made
// for, and returns every problem at once, each naming its flag.
func (o *Options) Validate(d *ctrl.Descriptors) error {
	var errs []error
	bad := func(format string, args ...any) { errs = append(errs, fmt.Errorf(format, args...)) }
	if _, err := d.Canonical(o.Controllers.Controllers); err != nil {
		errs = append(errs, err)
	}
	if o.KubeAPIBurst < 0 {
		bad("--kube-api-burst %d must not be negative", o.KubeAPIBurst)
	}
	if !slices.Contains([]string{ContentTypeJSON, ContentTypeProtobuf}, o.KubeAPIContentType) {
		bad("--kube-api-content-type %q: want %s or %s", o.KubeAPIContentType, ContentTypeJSON, ContentTypeProtobuf)
	}
	errs = append(errs, o.LeaderElection.validate()...)
	errs = append(errs, o.Serving.validate()...)
	errs = append(errs, o.Auth.Validate()...)
	if o.LogFormat != LogFormatText && o.LogFormat != LogFormatJSON {
		bad("--logging-format %q: want %q or %q", o.LogFormat, LogFormatText, LogFormatJSON)
	}
	if o.Verbosity < 0 {
		bad("-v %d must not be negative", o.Verbosity)
	}
	if len(errs) == 0 {
		return nil
	}
	return fmt.Errorf("%w: %w", ErrInvalidOptions, errors.Join(errs...))
}

// validate checks the leader-election flags. The timing rule is the lease
// package's (client-go's): lease duration > renew deadline > 1.2 × retry
// period. Zero is rejected here, where lease.Config would read it as "the
// default", because a command line that says 0 means 0.
func (l LeaderElectionOptions) validate() []error {
	if !l.LeaderElect {
		return nil
	}
	var errs []error
	if l.ResourceLock != DefaultResourceLock {
		errs = append(errs, fmt.Errorf("--leader-elect-resource-lock %q: kcm supports only %q "+
			"(kube-controller-manager dropped the endpoints and configmaps locks)", l.ResourceLock, DefaultResourceLock))
	}
	if l.ResourceNamespace == "" || l.ResourceName == "" {
		errs = append(errs, errors.New("--leader-elect-resource-namespace and --leader-elect-resource-name must not be empty"))
	}
	for _, d := range []struct {
		flag string
		v    time.Duration
	}{{"lease-duration", l.LeaseDuration}, {"renew-deadline", l.RenewDeadline}, {"retry-period", l.RetryPeriod}} {
		if d.v <= 0 {
			errs = append(errs, fmt.Errorf("--leader-elect-%s %v must be positive", d.flag, d.v))
		}
	}
	if len(errs) > 0 {
		return errs
	}
	cfg := lease.Config{LeaseDuration: l.LeaseDuration, RenewDeadline: l.RenewDeadline, RetryPeriod: l.RetryPeriod,
		Callbacks: lease.Callbacks{OnStartedLeading: func(context.Context) {}}}
	if err := cfg.Validate(); err != nil {
		return []error{fmt.Errorf("--leader-elect-lease-duration > --leader-elect-renew-deadline > 1.2 × --leader-elect-retry-period: %w", err)}
	}
	return nil
}

// validate checks the serving flags.
func (s ServingOptions) validate() []error {
	var errs []error
	if s.SecurePort < 0 || s.SecurePort > 65535 {
		errs = append(errs, fmt.Errorf("--secure-port %d must be between 0 (off) and 65535", s.SecurePort))
	}
	if s.BindAddress != "" && net.ParseIP(s.BindAddress) == nil {
		errs = append(errs, fmt.Errorf("--bind-address %q is not an IP address", s.BindAddress))
	}
	if (s.TLSCertFile == "") != (s.TLSPrivateKeyFile == "") {
		errs = append(errs, errors.New("--tls-cert-file and --tls-private-key-file go together"))
	}
	return errs
}
