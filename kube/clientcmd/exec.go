package clientcmd

import (
	"bytes"
	"context"
	"crypto/tls"
	stdjson "encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"strings"
	"sync"
	"time"

	"github.com/kcmlab/kcm/clock"
	"github.com/kcmlab/kcm/kube/rest"
	"github.com/rs/zerolog"
)

// The exec credential API versions kcm speaks (v1alpha1 is long gone).
const (
	ExecAPIVersionV1      = "client.authentication.k8s.io/v1"
	ExecAPIVersionV1beta1 = "client.authentication.k8s.io/v1beta1"
)

// DefaultExecTimeout bounds one exec plugin run when ExecOptions.Timeout is
// zero. Plugins that talk to a cloud's token service take seconds; one that
// waits for a browser login never finishes, since kcm is non-interactive.
const DefaultExecTimeout = time.Minute

// Limits on what a plugin may print. stdout holds one small JSON document;
// stderr only goes into error messages.
const (
	execMaxStdout = 1 << 20
	execMaxStderr = 64 << 10
	execErrStderr = 2 << 10 // bytes of stderr quoted in an error
)

// ErrExecPlugin is wrapped by every failure to get credentials from an exec
// plugin: not found, non-zero exit, timeout, malformed output.
var ErrExecPlugin = errors.New("exec credential plugin failed")

// ExecCluster is the cluster description sent to plugins that set
// provideClusterInfo, as spec.cluster of KUBERNETES_EXEC_INFO.
type ExecCluster struct {
	Server                   string `json:"server"`
	TLSServerName            string `json:"tls-server-name,omitempty"`
	InsecureSkipTLSVerify    bool   `json:"insecure-skip-tls-verify,omitempty"`
	CertificateAuthorityData []byte `json:"certificate-authority-data,omitempty"`
	// Config is the cluster's "client.authentication.k8s.io/exec" extension.
	Config any `json:"config,omitempty"`
}

// ExecOptions tune ExecCredentials. The zero value is fine.
type ExecOptions struct {
	// Cluster is sent as spec.cluster when the config sets
	// ProvideClusterInfo.
	Cluster *ExecCluster
	// Timeout bounds one run; zero means DefaultExecTimeout.
	Timeout time.Duration
	// Clock judges expiry; nil means clock.Real.
	Clock clock.Clock
	// Environ is the environment the plugin inherits before its own Env
	// entries; nil means os.Environ.
	Environ func() []string
	// Origin prefixes error messages, e.g. `kubeconfig F: context "c": user "u"`.
	Origin string
	// Logger hears when the plugin runs (never what it printed). The zero
	// Logger discards.
	Logger zerolog.Logger
}

// ExecCredentials gets a token and/or client certificate by running an
// external command, the way kubectl runs aws, gke-gcloud-auth-plugin or
// kubelogin. The result is cached until its expirationTimestamp (forever
// without one) or until Invalidate. Concurrent callers share one run; a
// caller waiting for another's run can still give up through its context.
//
// The plugin's stdout holds the secret and is never logged or quoted; its
// stderr is quoted (trimmed, bounded) in errors.
type ExecCredentials struct {
	// cfg is a copy of the config behind a pointer: printed raw, through
	// fields fmt cannot call methods on, it shows as an address, not env
	// values.
	cfg     *ExecConfig
	info    string // KUBERNETES_EXEC_INFO, fixed at construction
	timeout time.Duration
	clock   clock.Clock
	environ func() []string
	origin  string
	log     zerolog.Logger

	// sem holds one token while a run is in progress: at most one plugin
	// process at a time.
	sem chan struct{}
	mu  sync.Mutex
	// cur is the last credential the plugin gave, nil when none is cached
	// (before the first run, after Invalidate). Guarded by mu.
	cur *execResult
}

var _ rest.Credentials = (*ExecCredentials)(nil)

// execResult is one parsed ExecCredential status.
type execResult struct {
	token  string
	cert   *tls.Certificate
	expiry time.Time // zero: never expires
}

// NewExecCredentials checks cfg and prepares the plugin; it does not run it.
func NewExecCredentials(cfg ExecConfig, opts ExecOptions) (*ExecCredentials, error) {
	switch cfg.APIVersion {
	case ExecAPIVersionV1, ExecAPIVersionV1beta1:
	case "":
		return nil, errors.New("apiVersion is not set")
	default:
		return nil, fmt.Errorf("apiVersion %q is not supported (use %s or %s)",
			cfg.APIVersion, ExecAPIVersionV1, ExecAPIVersionV1beta1)
	}
	if cfg.Command == "" {
		return nil, errors.New("command is not set")
	}
	if cfg.InteractiveMode == "Always" {
		return nil, errors.New("interactiveMode Always is not supported: kcm runs plugins without a terminal")
	}
	for i, e := range cfg.Env {
		if e.Name == "" {
			return nil, fmt.Errorf("env[%d]: name is not set", i)
		}
	}
	spec := map[string]any{"interactive": false}
	if cfg.ProvideClusterInfo && opts.Cluster != nil {
		spec["cluster"] = opts.Cluster
	}
	info, err := stdjson.Marshal(map[string]any{"apiVersion": cfg.APIVersion, "kind": "ExecCredential", "spec": spec})
	if err != nil {
		return nil, fmt.Errorf("cannot encode cluster info for the plugin: %w", err)
	}
	e := &ExecCredentials{cfg: &cfg, info: string(info), timeout: opts.Timeout, clock: opts.Clock,
		environ: opts.Environ, origin: opts.Origin, log: opts.Logger, sem: make(chan struct{}, 1)}
	if e.timeout <= 0 {
		e.timeout = DefaultExecTimeout
	}
	if e.clock == nil {
		e.clock = clock.Real{}
	}
	if e.environ == nil {
		e.environ = os.Environ
	}
	return e, nil
}

// Authorization implements Credentials: "Bearer <token>", or "" when the
// plugin gave only a client certificate.
func (e *ExecCredentials) Authorization(ctx context.Context) (string, error) {
	r, err := e.get(ctx)
	if err != nil || r.token == "" {
		return "", err
	}
	return "Bearer " + r.token, nil
}

// ClientCertificate implements Credentials.
func (e *ExecCredentials) ClientCertificate(ctx context.Context) (*tls.Certificate, error) {
	r, err := e.get(ctx)
	if err != nil {
		return nil, err
	}
	return r.cert, nil
}

// Invalidate drops the cached credential; the next use runs the plugin.
func (e *ExecCredentials) Invalidate() {
	e.mu.Lock()
	e.cur = nil
	e.mu.Unlock()
}

// cached returns the cached credential if it has not expired.
func (e *ExecCredentials) cached() *execResult {
	e.mu.Lock()
	defer e.mu.Unlock()
	if e.cur != nil && (e.cur.expiry.IsZero() || e.clock.Now().Before(e.cur.expiry)) {
		return e.cur
	}
	return nil
}

// get returns a valid credential, running the plugin when none is cached.
func (e *ExecCredentials) get(ctx context.Context) (*execResult, error) {
	if r := e.cached(); r != nil {
		return r, nil
	}
	select {
	case e.sem <- struct{}{}:
	case <-ctx.Done():
		return nil, e.fail(ctx.Err(), "waiting for another run")
	}
	defer func() { <-e.sem }()
	if r := e.cached(); r != nil { // another caller ran it meanwhile
		return r, nil
	}
	r, err := e.run(ctx)
	if err != nil {
		return nil, err
	}
	e.mu.Lock()
	e.cur = r
	e.mu.Unlock()
	return r, nil
}

// run executes the plugin once and parses its output.
func (e *ExecCredentials) run(ctx context.Context) (*execResult, error) {
	ctx, cancel := context.WithTimeout(ctx, e.timeout)
	defer cancel()
	cmd := exec.CommandContext(ctx, e.cfg.Command, e.cfg.Args...)
	env := e.environ()
	for _, v := range e.cfg.Env {
		env = append(env, v.Name+"="+v.Value)
	}
	cmd.Env = append(env, "KUBERNETES_EXEC_INFO="+e.info)
	stdout := &cappedBuffer{max: execMaxStdout}
	stderr := &cappedBuffer{max: execMaxStderr}
	cmd.Stdout, cmd.Stderr = stdout, stderr // stdin stays nil: /dev/null
	// A plugin that forks a child keeping the pipes open must not hang us:
	// a second after the plugin ended its pipes are closed. It runs in a
	// process group of its own, killed whole on timeout and cleared of
	// leftovers when the plugin ends, so no child outlives it.
	cmd.WaitDelay = time.Second
	ownProcessGroup(cmd)
	start := e.clock.Now()
	err := cmd.Run()
	_ = killProcessGroup(cmd)
	if errors.Is(err, exec.ErrWaitDelay) && cmd.ProcessState != nil && cmd.ProcessState.Success() {
		// The plugin exited cleanly and a child it left held stdout open:
		// what it printed is complete.
		err = nil
	}
	e.log.Debug().Str("command", e.cfg.Command).Dur("took", e.clock.Since(start)).Bool("ok", err == nil).
		Msg("ran exec credential plugin")
	if err != nil {
		return nil, e.runError(ctx, err, stderr)
	}
	if stdout.overflow {
		return nil, e.fail(nil, fmt.Sprintf("printed more than %d bytes", execMaxStdout))
	}
	return e.parse(stdout.Bytes())
}

// runError explains a failed run: not found (with the install hint),
// timeout or cancellation, or a non-zero exit with the plugin's stderr.
func (e *ExecCredentials) runError(ctx context.Context, err error, stderr *cappedBuffer) error {
	if errors.Is(err, exec.ErrNotFound) || errors.Is(err, fs.ErrNotExist) {
		ee := e.fail(err, "not found")
		ee.hint = strings.TrimSpace(e.cfg.InstallHint)
		return ee
	}
	if ctx.Err() != nil {
		return e.fail(ctx.Err(), fmt.Sprintf("did not finish (timeout %v)", e.timeout))
	}
	msg := "failed"
	if s := strings.TrimSpace(string(stderr.Bytes())); s != "" {
		if len(s) > execErrStderr {
			s = s[:execErrStderr] + "..."
		}
		msg += " (stderr: " + s + ")"
	}
	return e.fail(err, msg)
}

// fail builds an error that names the origin and the command.
func (e *ExecCredentials) fail(cause error, msg string) *execError {
	return &execError{prefix: e.origin, command: e.cfg.Command, msg: msg, cause: cause}
}

// execError is a plugin failure: it reads as "<origin>: exec plugin "cmd"
// <msg>: <cause>" (plus the install hint, if any, on its own lines) and
// matches ErrExecPlugin and its cause with errors.Is.
type execError struct {
	prefix, command, msg string
	cause                error
	hint                 string
}

func (e *execError) Error() string {
	var b strings.Builder
	if e.prefix != "" {
		b.WriteString(e.prefix + ": ")
	}
	fmt.Fprintf(&b, "exec plugin %q %s", e.command, e.msg)
	if e.cause != nil {
		b.WriteString(": " + e.cause.Error())
	}
	if e.hint != "" {
		b.WriteString("\n" + e.hint)
	}
	return b.String()
}

func (e *execError) Unwrap() []error {
	if e.cause == nil {
		return []error{ErrExecPlugin}
	}
	return []error{ErrExecPlugin, e.cause}
}

// execCredentialDoc is the ExecCredential a plugin prints.
type execCredentialDoc struct {
	APIVersion string `json:"apiVersion"`
	Kind       string `json:"kind"`
	Status     *struct {
		ExpirationTimestamp   string `json:"expirationTimestamp"`
		Token                 string `json:"token"`
		ClientCertificateData string `json:"clientCertificateData"`
		ClientKeyData         string `json:"clientKeyData"`
	} `json:"status"`
}

// parse checks a plugin's stdout. Errors describe the shape, never the
// content: the JSON decoder's own messages can quote values.
func (e *ExecCredentials) parse(out []byte) (*execResult, error) {
	var doc execCredentialDoc
	if err := stdjson.Unmarshal(out, &doc); err != nil {
		return nil, e.fail(nil, "printed something that is not an ExecCredential JSON object")
	}
	if doc.Kind != "ExecCredential" {
		return nil, e.fail(nil, fmt.Sprintf("printed kind %.64q, want ExecCredential", doc.Kind))
	}
	if doc.APIVersion != e.cfg.APIVersion {
		return nil, e.fail(nil, fmt.Sprintf("printed apiVersion %.64q, but the kubeconfig asks for %q",
			doc.APIVersion, e.cfg.APIVersion))
	}
	st := doc.Status
	if st == nil {
		return nil, e.fail(nil, "printed an ExecCredential without status")
	}
	r := &execResult{token: st.Token}
	if st.ExpirationTimestamp != "" {
		t, err := time.Parse(time.RFC3339, st.ExpirationTimestamp)
		if err != nil {
			return nil, e.fail(nil, "printed a status.expirationTimestamp that is not RFC 3339")
		}
		r.expiry = t
	}
	switch {
	case st.ClientCertificateData == "" && st.ClientKeyData == "":
		if st.Token == "" {
			return nil, e.fail(nil, "printed neither status.token nor status.clientCertificateData")
		}
	case st.ClientCertificateData == "" || st.ClientKeyData == "":
		return nil, e.fail(nil, "printed only one of status.clientCertificateData and status.clientKeyData")
	default:
		cert, err := tls.X509KeyPair([]byte(st.ClientCertificateData), []byte(st.ClientKeyData))
		if err != nil {
			if p := checkKeyPair([]byte(st.ClientCertificateData), []byte(st.ClientKeyData),
				"status.clientCertificateData", "status.clientKeyData"); p != "" {
				return nil, e.fail(nil, "printed "+p)
			}
			return nil, e.fail(errNoKeyPair, "printed an unusable client certificate")
		}
		r.cert = &cert
	}
	return r, nil
}

// cappedBuffer keeps the first max bytes written and swallows the rest, so a
// chatty plugin is neither blocked nor able to exhaust memory.
type cappedBuffer struct {
	buf      bytes.Buffer
	max      int
	overflow bool
}

func (c *cappedBuffer) Write(p []byte) (int, error) {
	if room := c.max - c.buf.Len(); room < len(p) {
		c.overflow = true
		c.buf.Write(p[:max(room, 0)])
		return len(p), nil
	}
	return c.buf.Write(p)
}

func (c *cappedBuffer) Bytes() []byte { return c.buf.Bytes() }
