package clientcmd

import (
	"errors"
	"fmt"
	"io/fs"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/kcmlab/kcm/clock"
	"github.com/kcmlab/kcm/kube/rest"
	"github.com/rs/zerolog"
)

// LoadOptions choose and interpret kubeconfig files, like kubectl's
// --kubeconfig, --context and kube-controller-manager's --master. The zero
// value searches $KUBECONFIG, then ~/.kube/config, in the real environment;
// tests inject Getenv and HomeDir so they never read it.
type LoadOptions struct {
	// ExplicitPath is --kubeconfig. When set it is the only file read, and a
	// missing file is an error (not ErrNoKubeconfig).
	ExplicitPath string
	// Context is --context: it overrides current-context.
	Context string
	// Server is --master: it overrides the chosen cluster's server. With no
	// kubeconfig at all it alone makes an anonymous Config.
	Server string

	// Getenv reads KUBECONFIG and HOME (and, in BuildConfig, the in-cluster
	// variables). Nil means os.Getenv.
	Getenv func(string) string
	// HomeDir holds .kube/config. Empty means Getenv("HOME").
	HomeDir string
	// InClusterDir is where BuildConfig looks for the service-account token
	// and CA. Empty means ServiceAccountDir.
	InClusterDir string

	// Clock is the clock of rotating credentials (token files, exec
	// plugin expiry). Nil means clock.Real.
	Clock clock.Clock
	// ExecTimeout bounds one run of an exec plugin. Zero means
	// DefaultExecTimeout.
	ExecTimeout time.Duration
	// Environ is the environment exec plugins inherit before their own env
	// entries. Nil means os.Environ.
	Environ func() []string
	// Logger receives debug notes (which files were read, which auth method
	// won). Never secrets. The zero Logger discards.
	Logger zerolog.Logger
}

func (o *LoadOptions) getenv(name string) string {
	if o.Getenv == nil {
		return os.Getenv(name)
	}
	return o.Getenv(name)
}

// KubeconfigPaths returns the files LoadKubeconfig would consider, in
// precedence order, and whether they came from ExplicitPath. Files listed in
// $KUBECONFIG or the home default may not exist.
func KubeconfigPaths(opts LoadOptions) (paths []string, explicit bool) {
	if opts.ExplicitPath != "" {
		return []string{opts.ExplicitPath}, true
	}
	if env := opts.getenv("KUBECONFIG"); env != "" {
		seen := map[string]bool{}
		for _, p := range filepath.SplitList(env) {
			if p != "" && !seen[p] {
				seen[p] = true
				paths = append(paths, p)
			}
		}
		return paths, false
	}
	home := opts.HomeDir
	if home == "" {
		home = opts.getenv("HOME")
	}
	if home == "" {
		return nil, false
	}
	return []string{filepath.Join(home, ".kube", "config")}, false
}

// ReadKubeconfig reads and merges the kubeconfig files LoadOptions select
// (see KubeconfigPaths) without resolving a context. Missing files from
// $KUBECONFIG or the home default are skipped; when none exists the error
// wraps ErrNoKubeconfig. Any other read or parse error is returned as is.
func ReadKubeconfig(opts LoadOptions) (*Kubeconfig, error) {
	paths, explicit := KubeconfigPaths(opts)
	var parsed []*Kubeconfig
	for _, p := range paths {
		data, err := readFileLimited(p, "kubeconfig", MaxKubeconfigBytes)
		if err != nil {
			if !explicit && errors.Is(err, fs.ErrNotExist) {
				opts.Logger.Debug().Str("path", p).Msg("kubeconfig file does not exist; skipped")
				continue
			}
			if errors.Is(err, ErrFileTooLarge) {
				return nil, err
			}
			return nil, fmt.Errorf("kubeconfig %s: %w", p, err)
		}
		kc, err := ParseKubeconfig(data, p)
		if err != nil {
			return nil, err
		}
		opts.Logger.Debug().Str("path", p).Msg("read kubeconfig")
		parsed = append(parsed, kc)
	}
	if len(parsed) == 0 {
		where := "no $KUBECONFIG and no home directory"
		if len(paths) > 0 {
			where = "searched " + strings.Join(paths, ", ")
		}
		return nil, fmt.Errorf("%w (%s)", ErrNoKubeconfig, where)
	}
	return MergeKubeconfigs(parsed...), nil
}

// MergeKubeconfigs merges parsed files the way kubectl merges $KUBECONFIG:
// for every cluster, user and context name, and for current-context, the
// first config that sets it wins; entries are taken whole, never field by
// field. The inputs are not modified.
func MergeKubeconfigs(configs ...*Kubeconfig) *Kubeconfig {
	out := &Kubeconfig{
		Contexts: map[string]*KubeconfigContext{},
		Clusters: map[string]*KubeconfigCluster{},
		Users:    map[string]*KubeconfigUser{},
	}
	for _, kc := range configs {
		out.Files = append(out.Files, kc.Files...)
		if out.CurrentContext == "" && kc.CurrentContext != "" {
			out.CurrentContext, out.CurrentContextFile = kc.CurrentContext, kc.CurrentContextFile
		}
		mergeFirstWins(out.Contexts, kc.Contexts)
		mergeFirstWins(out.Clusters, kc.Clusters)
		mergeFirstWins(out.Users, kc.Users)
	}
	return out
}

func mergeFirstWins[T any](dst, src map[string]*T) {
	for name, v := range src {
		if _, ok := dst[name]; !ok {
			dst[name] = v
		}
	}
}

// LoadKubeconfig reads the kubeconfig files LoadOptions select, resolves the
// chosen context and returns the Config it describes. With opts.Server set
// and no kubeconfig file at all, it returns an anonymous Config for that
// server, as kube-controller-manager does with only --master.
func LoadKubeconfig(opts LoadOptions) (*rest.Config, error) {
	kc, err := ReadKubeconfig(opts)
	if errors.Is(err, ErrNoKubeconfig) && opts.Server != "" {
		host, problem := parseServerURL(opts.Server)
		if problem != "" {
			return nil, fmt.Errorf("server override: %s", problem)
		}
		return &rest.Config{Host: host, Source: "server override"}, nil
	}
	if err != nil {
		return nil, err
	}
	return kc.ClientConfig(opts)
}

// BuildConfig picks a Config the way kube-controller-manager does: with
// neither ExplicitPath nor Server set it tries the in-cluster service account
// first and falls back to the kubeconfig search; otherwise it loads the
// kubeconfig. When both fail the error wraps both causes.
func BuildConfig(opts LoadOptions) (*rest.Config, error) {
	if opts.ExplicitPath != "" || opts.Server != "" {
		return LoadKubeconfig(opts)
	}
	cfg, icErr := InClusterConfig(InClusterOptions{
		Getenv: opts.Getenv,
		Dir:    opts.InClusterDir,
		Clock:  opts.Clock,
		Logger: opts.Logger,
	})
	if icErr == nil {
		return cfg, nil
	}
	opts.Logger.Debug().Err(icErr).Msg("in-cluster config unavailable; trying kubeconfig")
	cfg, err := LoadKubeconfig(opts)
	if err != nil {
		return nil, fmt.Errorf("%w; and %w", icErr, err)
	}
	return cfg, nil
}

// ClientConfig resolves a context of this kubeconfig to a Config: the
// context opts.Context, else current-context. It reads the files the
// entries point to (CA, client certificate and key, token file) and checks
// everything a connection will need, so problems surface here, named, and
// not at the first request. It uses opts.Context, Server, Clock, ExecTimeout,
// Environ and Logger.
func (k *Kubeconfig) ClientConfig(opts LoadOptions) (*rest.Config, error) {
	name := opts.Context
	if name == "" {
		name = k.CurrentContext
	}
	files := strings.Join(k.Files, ", ")
	if name == "" {
		return nil, &KubeconfigError{File: files,
			Problem: "current-context is not set and no context was given", kind: ErrNoContext}
	}
	kctx, ok := k.Contexts[name]
	if !ok {
		return nil, &KubeconfigError{File: files, Problem: fmt.Sprintf("context %q is not defined", name),
			kind: ErrContextNotFound}
	}
	ctxErr := func(problem string) error {
		return &KubeconfigError{File: kctx.File, Context: name, Problem: problem}
	}
	if kctx.Cluster == "" {
		return nil, ctxErr("cluster is not set")
	}
	cluster, ok := k.Clusters[kctx.Cluster]
	if !ok {
		return nil, ctxErr(fmt.Sprintf("cluster %q is not defined", kctx.Cluster))
	}
	var user *KubeconfigUser
	if kctx.User != "" {
		if user, ok = k.Users[kctx.User]; !ok {
			return nil, ctxErr(fmt.Sprintf("user %q is not defined", kctx.User))
		}
	}
	cfg := &rest.Config{Source: kctx.File + " context " + name}
	if kctx.File == "" {
		cfg.Source = "context " + name
	}
	r := contextResolver{opts: &opts, context: name, clusterName: kctx.Cluster, userName: kctx.User}
	if err := r.applyCluster(cfg, cluster); err != nil {
		return nil, err
	}
	if user != nil {
		if err := r.applyUser(cfg, user, cluster); err != nil {
			return nil, err
		}
	}
	opts.Logger.Debug().Str("source", cfg.Source).Str("host", cfg.Host).
		Str("auth", fmt.Sprintf("%T", cfg.Credentials)).Bool("clientCert", len(cfg.TLS.CertData) > 0).
		Msg("resolved kubeconfig context")
	return cfg, nil
}

// contextResolver turns one context's cluster and user entries into a
// Config, naming the file, context and entry in every error.
type contextResolver struct {
	opts        *LoadOptions
	context     string
	clusterName string
	userName    string
}

func (r *contextResolver) clusterErr(c *KubeconfigCluster, problem string, err error) error {
	return &KubeconfigError{File: c.File, Context: r.context,
		Entry: fmt.Sprintf("cluster %q", r.clusterName), Problem: problem, Err: err}
}

func (r *contextResolver) userErr(u *KubeconfigUser, problem string, err error) error {
	return &KubeconfigError{File: u.File, Context: r.context,
		Entry: fmt.Sprintf("user %q", r.userName), Problem: problem, Err: err}
}

// applyCluster fills Host and the server-trust part of cfg.TLS.
func (r *contextResolver) applyCluster(cfg *rest.Config, c *KubeconfigCluster) error {
	server := c.Server
	if r.opts.Server != "" {
		server = r.opts.Server
	}
	if server == "" {
		return r.clusterErr(c, "server is not set", nil)
	}
	host, problem := parseServerURL(server)
	if problem != "" {
		return r.clusterErr(c, problem, nil)
	}
	cfg.Host = host
	cfg.TLS.ServerName = c.TLSServerName
	// certificate-authority-data wins over certificate-authority, as in kubectl.
	field := "certificate-authority-data"
	if c.CertificateAuthorityData == "" {
		field = "certificate-authority"
	}
	ca, problem, err := dataOrFile(field, c.CertificateAuthorityData, c.CertificateAuthority)
	if problem != "" {
		return r.clusterErr(c, problem, err)
	}
	if ca != nil {
		if c.InsecureSkipTLSVerify {
			return r.clusterErr(c, "insecure-skip-tls-verify cannot be combined with "+field+
				" (kubectl refuses this too: pick one)", nil)
		}
		if !validCAPEM(ca) {
			return r.clusterErr(c, field+" holds no PEM certificate", nil)
		}
	}
	cfg.TLS.CAData = ca
	cfg.TLS.Insecure = c.InsecureSkipTLSVerify
	return nil
}

// applyUser fills the client certificate and Credentials from a user entry.
// Precedence follows kubectl: tokenFile/token win over username/password; a
// client certificate combines with either; an exec plugin is used only when
// none of those is set.
func (r *contextResolver) applyUser(cfg *rest.Config, u *KubeconfigUser, c *KubeconfigCluster) error {
	if u.AuthProvider != nil {
		return r.userErr(u, fmt.Sprintf("auth-provider %q is not supported; use an exec plugin", u.AuthProvider.Name), nil)
	}
	if u.Impersonate != "" {
		return r.userErr(u, "impersonation (as) is not supported", nil)
	}
	cert, key, err := r.clientCertPair(u)
	if err != nil {
		return err
	}
	cfg.TLS.CertData, cfg.TLS.KeyData = cert, key
	if u.Exec != nil && (cert != nil || u.Token != "" || u.TokenFile != "" || u.Username != "" || u.Password != "") {
		r.opts.Logger.Debug().Str("user", r.userName).Msg("exec plugin ignored: the user also has a token, basic auth or a client certificate")
	}
	switch {
	case u.TokenFile != "":
		tf, err := NewTokenFile(u.TokenFile, TokenFileOptions{Clock: r.opts.Clock, Logger: r.opts.Logger})
		switch {
		case err == nil:
			cfg.Credentials = tf
		case u.Token != "":
			// kubectl falls back to the inline token when the file is unreadable.
			r.opts.Logger.Warn().Err(err).Msg("kubeconfig tokenFile unreadable; using token")
			cfg.Credentials = rest.StaticToken(u.Token)
		default:
			return r.userErr(u, "tokenFile", err)
		}
	case u.Token != "":
		cfg.Credentials = rest.StaticToken(u.Token)
	case u.Username != "" || u.Password != "":
		cfg.Credentials = BasicAuth{Username: u.Username, Password: u.Password}
	case u.Exec != nil && cert == nil:
		// client-go skips the plugin whenever static credentials are set.
		ec, err := r.execCredentials(cfg, u, c)
		if err != nil {
			return err
		}
		cfg.Credentials = ec
	}
	return nil
}

// clientCertPair returns the PEM certificate and key, both or neither.
func (r *contextResolver) clientCertPair(u *KubeconfigUser) (cert, key []byte, _ error) {
	certField, keyField := "client-certificate-data", "client-key-data"
	if u.ClientCertificateData == "" {
		certField = "client-certificate"
	}
	if u.ClientKeyData == "" {
		keyField = "client-key"
	}
	cert, problem, err := dataOrFile(certField, u.ClientCertificateData, u.ClientCertificate)
	if problem != "" {
		return nil, nil, r.userErr(u, problem, err)
	}
	key, problem, err = dataOrFile(keyField, u.ClientKeyData, u.ClientKey)
	if problem != "" {
		return nil, nil, r.userErr(u, problem, err)
	}
	switch {
	case cert == nil && key == nil:
		return nil, nil, nil
	case key == nil:
		return nil, nil, r.userErr(u, certField+" is set but client-key and client-key-data are not", nil)
	case cert == nil:
		return nil, nil, r.userErr(u, keyField+" is set but client-certificate and client-certificate-data are not", nil)
	}
	if problem := checkKeyPair(cert, key, certField, keyField); problem != "" {
		return nil, nil, r.userErr(u, problem, nil)
	}
	return cert, key, nil
}

// execCredentials validates the exec entry and builds its Credentials.
func (r *contextResolver) execCredentials(cfg *rest.Config, u *KubeconfigUser, c *KubeconfigCluster) (*ExecCredentials, error) {
	var cluster *ExecCluster
	if u.Exec.ProvideClusterInfo {
		cluster = &ExecCluster{
			Server:                   cfg.Host,
			TLSServerName:            cfg.TLS.ServerName,
			InsecureSkipTLSVerify:    cfg.TLS.Insecure,
			CertificateAuthorityData: cfg.TLS.CAData,
			Config:                   c.ExecExtension,
		}
	}
	origin := (&KubeconfigError{File: u.File, Context: r.context, Entry: fmt.Sprintf("user %q", r.userName)}).Error()
	ec, err := NewExecCredentials(*u.Exec, ExecOptions{
		Cluster: cluster,
		Timeout: r.opts.ExecTimeout,
		Clock:   r.opts.Clock,
		Environ: r.opts.Environ,
		Origin:  origin,
		Logger:  r.opts.Logger,
	})
	if err != nil {
		return nil, r.userErr(u, "exec", err)
	}
	return ec, nil
}

// parseServerURL checks a cluster's server and returns it without a trailing
// slash, or a problem naming the field. The value is quoted only when it
// carries no user info, which could hold a password.
func parseServerURL(server string) (host, problem string) {
	u, err := url.Parse(server)
	switch {
	case err != nil:
		return "", "server is not a valid URL"
	case u.User != nil:
		return "", "server must not carry user info; use the user's username and password"
	case (u.Scheme != "https" && u.Scheme != "http") || u.Host == "":
		return "", fmt.Sprintf("server %q is not an https:// or http:// URL", server)
	}
	return strings.TrimRight(server, "/"), ""
}
