package testenv

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"time"

	"github.com/rs/zerolog"
)

// KCMOptions configure StartKubeControllerManager. The zero value runs
// kube-controller-manager's default controller set without leader
// election.
type KCMOptions struct {
	// Controllers is the --controllers list ("deployment", "-foo", "*").
	// Empty means kube-controller-manager's default, "*". Controllers
	// that need files testenv does not provide (the csrsigning
	// controllers' signing key, serviceaccount-token's private key, a
	// cloud provider) fail or log errors when enabled; name the ones the
	// test needs.
	Controllers []string
	// LeaderElect turns on leader election on the Lease
	// kube-system/kube-controller-manager. Off by default: a test usually
	// wants the controllers to start at once.
	LeaderElect bool
	// Args are appended after testenv's own flags; a flag given here
	// overrides testenv's (the last occurrence wins).
	Args []string
	// Binary, when set, is used instead of the cached build.
	Binary string
	// Progress receives the build progress of a first build (nil:
	// os.Stderr).
	Progress io.Writer
	// Logger receives testenv's steps. Zero value: silent.
	Logger zerolog.Logger
	// ReadyTimeout bounds the wait for /healthz; zero means the
	// cluster's ready timeout.
	ReadyTimeout time.Duration
}

// ControllerManager is a running kube-controller-manager attached to a
// Cluster. Stop ends it; the cluster's Stop also ends every one still
// running, before kube-apiserver, so none outlives its cluster.
type ControllerManager struct {
	proc      *process
	logPath   string
	healthURL string
	log       zerolog.Logger

	mu      sync.Mutex
	stopped bool // guarded by mu
}

// kcmStopGrace is how long kube-controller-manager gets to exit after
// SIGTERM. It releases its lease, if any, and stops; nothing it does on
// the way out matters to a test, so the bound is short.
const kcmStopGrace = 5 * time.Second

// kcmStarts numbers the log files of successive starts on one cluster.
var kcmStarts struct {
	mu sync.Mutex
	n  int
}

// StartKubeControllerManager builds (or finds cached)
// kube-controller-manager at KubernetesVersion, starts it against the
// cluster with the cluster's kubeconfig, and returns once its /healthz
// answers ok. On error nothing is left running and the error carries the
// tail of its log.
//
// The process serves HTTPS on a free loopback port with a self-signed
// certificate and no delegated authentication or authorization (so
// /healthz is open and nothing else is reachable), uses the kubeconfig's
// credentials for every controller (--use-service-account-credentials=false:
// there are no controller service accounts to impersonate), and logs at
// --v=2 into LogPath.
func (c *Cluster) StartKubeControllerManager(ctx context.Context, opts KCMOptions) (*ControllerManager, error) {
	c.mu.Lock()
	stopped := c.stopped
	c.mu.Unlock()
	if stopped {
		return nil, ErrStopped
	}
	bin := opts.Binary
	if bin == "" {
		var err error
		if bin, err = EnsureControllerManager(ctx, opts.Progress, opts.Logger); err != nil {
			return nil, err
		}
	}
	kcmStarts.mu.Lock()
	kcmStarts.n++
	n := kcmStarts.n
	kcmStarts.mu.Unlock()
	certDir := filepath.Join(c.dir, fmt.Sprintf("kube-controller-manager-%d-certs", n))
	if err := os.MkdirAll(certDir, 0o700); err != nil {
		return nil, fmt.Errorf("testenv: %w", err)
	}
	logPath := filepath.Join(c.dir, fmt.Sprintf("kube-controller-manager-%d.log", n))
	timeout := opts.ReadyTimeout
	if timeout <= 0 {
		timeout = c.readyTimeout
	}
	rctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()

	began := time.Now()
	var cm *ControllerManager
	err := retryPortClash(func() error {
		ports, err := freePorts(1)
		if err != nil {
			return err
		}
		args := kcmArgs(c.kubeconfigPath, certDir, ports[0], opts)
		p, err := startProcess("kube-controller-manager", bin, args, logPath)
		if err != nil {
			return err
		}
		cm = &ControllerManager{proc: p, logPath: logPath, log: opts.Logger,
			healthURL: fmt.Sprintf("https://127.0.0.1:%d/healthz", ports[0])}
		if err := cm.waitHealthy(rctx); err != nil {
			p.stop(kcmStopGrace)
			return err
		}
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("testenv: start kube-controller-manager: %w", err)
	}
	c.mu.Lock()
	if c.stopped { // Stop ran meanwhile and could not see this one
		c.mu.Unlock()
		_ = cm.Stop()
		return nil, ErrStopped
	}
	c.kcms = append(c.kcms, cm)
	c.mu.Unlock()
	opts.Logger.Info().Str("healthz", cm.healthURL).Dur("took", time.Since(began)).
		Strs("controllers", opts.Controllers).Msg("kube-controller-manager ready")
	return cm, nil
}

// kcmArgs are kube-controller-manager's flags for a test cluster.
func kcmArgs(kubeconfig, certDir string, port int, opts KCMOptions) []string {
	controllers := "*"
	if len(opts.Controllers) > 0 {
		controllers = strings.Join(opts.Controllers, ",")
	}
	args := []string{
		"--kubeconfig=" + kubeconfig,
		"--controllers=" + controllers,
		fmt.Sprintf("--leader-elect=%t", opts.LeaderElect),
		"--bind-address=127.0.0.1",
		fmt.Sprintf("--secure-port=%d", port),
		// Without --tls-cert-file it generates a self-signed serving
		// certificate here.
		"--cert-dir=" + certDir,
		"--use-service-account-credentials=false",
		"--v=2",
	}
	return append(args, opts.Args...)
}

// waitHealthy polls /healthz until it answers ok.
func (cm *ControllerManager) waitHealthy(ctx context.Context) error {
	return waitHealthz(ctx, cm.proc, cm.healthURL)
}

// ErrControllerManagerExited is returned by Stop when the process had
// ended on its own before Stop was called (a crash, or a lost lease).
var ErrControllerManagerExited = errors.New("testenv: kube-controller-manager exited before Stop")

// Stop ends kube-controller-manager (SIGTERM to its process group, SIGKILL
// after a short bound) and waits for it. It returns
// ErrControllerManagerExited, with the log's tail, if the process had
// already exited by itself. It is idempotent: later calls return nil.
func (cm *ControllerManager) Stop() error {
	cm.mu.Lock()
	defer cm.mu.Unlock()
	if cm.stopped {
		return nil
	}
	cm.stopped = true
	select {
	case <-cm.proc.exited:
		return fmt.Errorf("%w: %w", ErrControllerManagerExited, cm.proc.exitError())
	default:
	}
	began := time.Now()
	cm.proc.stop(kcmStopGrace)
	cm.log.Info().Dur("took", time.Since(began)).Msg("kube-controller-manager stopped")
	return nil
}

// Exited is closed when the process has ended, by Stop or by itself.
func (cm *ControllerManager) Exited() <-chan struct{} { return cm.proc.exited }

// LogPath is the file that holds the process's output. It lives in the
// cluster's directory, so it is gone after the cluster's Stop.
func (cm *ControllerManager) LogPath() string { return cm.logPath }

// LogTail returns the last n lines of the log.
func (cm *ControllerManager) LogTail(n int) string { return fileTail(cm.logPath, n) }

// HealthzURL is the address of its /healthz.
func (cm *ControllerManager) HealthzURL() string { return cm.healthURL }
