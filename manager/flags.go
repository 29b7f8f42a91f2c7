package manager

import (
	"github.com/spf13/pflag"

	"github.com/kcmlab/kcm/ctrl"
)

// FlagSection is one titled group of flags in --help
// (component-base's NamedFlagSets).
type FlagSection struct {
	Title string
	Flags *pflag.FlagSet
}

// Flag sections, in the order --help prints them.
const (
	SectionGeneric        = "Generic flags"
	SectionLeaderElection = "Leader election flags"
	SectionServing        = "Secure serving flags"
	SectionAuthentication = "Authentication flags"
	SectionAuthorization  = "Authorization flags"
	SectionControllers    = "Controller flags"
	SectionDebugging      = "Logging and debugging flags"
)

// Flags binds every flag of `kcm` to o, grouped in sections; d supplies
// --controllers and the --concurrent-<x>-syncs flags. Names, types and
// defaults are kube-controller-manager's, so its command lines work
// unchanged for the flags kcm has.
func (o *Options) Flags(d *ctrl.Descriptors) []FlagSection {
	newSet := func(title string) *pflag.FlagSet { return pflag.NewFlagSet(title, pflag.ContinueOnError) }

	gen := newSet(SectionGeneric)
	gen.StringVar(&o.Kubeconfig, "kubeconfig", o.Kubeconfig,
		"Path to a kubeconfig file with authorization and master location information. "+
			"Without it (and without --master) kcm uses the pod's service account, then $KUBECONFIG or ~/.kube/config.")
	gen.StringVar(&o.Master, "master", o.Master,
		"The address of the Kubernetes API server (overrides any value in kubeconfig).")
	gen.Float32Var(&o.KubeAPIQPS, "kube-api-qps", o.KubeAPIQPS,
		"QPS to use while talking with kubernetes apiserver; each controller's client has its own limit.")
	gen.Int32Var(&o.KubeAPIBurst, "kube-api-burst", o.KubeAPIBurst,
		"Burst to use while talking with kubernetes apiserver.")
	gen.StringVar(&o.KubeAPIContentType, "kube-api-content-type", o.KubeAPIContentType,
		"Content type of requests sent to apiserver: "+ContentTypeProtobuf+" (read built-in kinds and metadata-only "+
			"lists as protobuf, JSON where a resource has no protobuf form) or "+ContentTypeJSON+".")
	gen.BoolVar(&o.UseServiceAccountCredentials, "use-service-account-credentials", o.UseServiceAccountCredentials,
		"If true, use individual service account credentials for each controller: kube-system/<controller's account>, "+
			"created when missing, with tokens from the TokenRequest API refreshed before they expire. The shared informers, "+
			"leader election and the serviceaccount-token controller keep kcm's own credentials.")

	le := newSet(SectionLeaderElection)
	l := &o.LeaderElection
	le.BoolVar(&l.LeaderElect, "leader-elect", l.LeaderElect,
		"Start a leader election client and gain leadership before running the controllers. "+
			"Enable this when running replicated components for high availability.")
	le.DurationVar(&l.LeaseDuration, "leader-elect-lease-duration", l.LeaseDuration,
		"How long a standby waits, after it last saw the lease change, before it may take the lease over.")
	le.DurationVar(&l.RenewDeadline, "leader-elect-renew-deadline", l.RenewDeadline,
		"How long the leader keeps acting without a successful renewal; then it stops. Must be less than the lease duration.")
	le.DurationVar(&l.RetryPeriod, "leader-elect-retry-period", l.RetryPeriod,
		"The pause between attempts to acquire or renew the lease.")
	le.StringVar(&l.ResourceLock, "leader-elect-resource-lock", l.ResourceLock,
		"The type of resource object that is used for locking. kcm supports only 'leases'.")
	le.StringVar(&l.ResourceNamespace, "leader-elect-resource-namespace", l.ResourceNamespace,
		"The namespace of the lock object.")
	le.StringVar(&l.ResourceName, "leader-elect-resource-name", l.ResourceName,
		"The name of the lock object.")

	srv := newSet(SectionServing)
	s := &o.Serving
	srv.StringVar(&s.BindAddress, "bind-address", s.BindAddress,
		"The IP address on which to listen for the --secure-port port. Empty or an unspecified address (0.0.0.0 or ::) means all interfaces.")
	srv.IntVar(&s.SecurePort, "secure-port", s.SecurePort,
		"The port on which to serve HTTPS with authentication and authorization (see the Authentication and Authorization flags); 0 serves nothing.")
	srv.StringVar(&s.CertDir, "cert-dir", s.CertDir,
		"The directory where the self-signed certificate is written when --tls-cert-file is not given (empty: kept in memory).")
	srv.StringVar(&s.TLSCertFile, "tls-cert-file", s.TLSCertFile,
		"File containing the default x509 certificate for HTTPS (CA cert, if any, concatenated after server cert).")
	srv.StringVar(&s.TLSPrivateKeyFile, "tls-private-key-file", s.TLSPrivateKeyFile,
		"File containing the default x509 private key matching --tls-cert-file.")

	authn := newSet(SectionAuthentication)
	o.Auth.AddAuthenticationFlags(authn)
	authz := newSet(SectionAuthorization)
	o.Auth.AddAuthorizationFlags(authz)

	ctl := newSet(SectionControllers)
	d.AddFlags(ctl, o.Controllers)

	dbg := newSet(SectionDebugging)
	dbg.StringVar(&o.LogFormat, "logging-format", o.LogFormat, "Sets the log format: text or json.")
	dbg.StringVar(&o.LogFormat, "log-format", o.LogFormat, "Same as --logging-format.")
	dbg.IntVarP(&o.Verbosity, "v", "v", o.Verbosity,
		"Number for the log level verbosity: 0-3 info, 4-5 adds debug, 6 and more adds trace.")
	dbg.BoolVar(&o.PrintVersion, "version", false, "Print version information and quit (also: kcm version).")
	dbg.BoolVar(&o.EnablePipelineView, "enable-pipeline-view", false,
		"Serve /debug/pipeline on the secure port: a live view of kcm's informers and controllers in the browser. "+
			"Like /metrics it is authorized through the apiserver (get on the path /debug/pipeline); whoever is allowed sees "+
			"object names and activity (never object contents). "+
			"kcm's own flag; kube-controller-manager has none.")
	dbg.BoolVar(&o.Profiling, "profiling", o.Profiling,
		"Enable profiling via web interface host:port/debug/pprof/")

	return []FlagSection{
		{SectionGeneric, gen}, {SectionLeaderElection, le}, {SectionServing, srv},
		{SectionAuthentication, authn}, {SectionAuthorization, authz},
		{SectionControllers, ctl}, {SectionDebugging, dbg},
	}
}
