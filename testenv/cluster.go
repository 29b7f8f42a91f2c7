package testenv

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"sync"
	"time"

	"github.com/kcmlab/kcm/kube/rest"
	"github.com/rs/zerolog"
)

// ErrStopped is returned by operations on a cluster after Stop.
var ErrStopped = errors.New("testenv: cluster stopped")

// DefaultReadyTimeout bounds how long Start and RestartAPIServer wait for a
// process to become ready when their context has no deadline.
const DefaultReadyTimeout = 90 * time.Second

// Options tune Start. The zero value is ready to use.
type Options struct {
	// Logger receives testenv's steps and timings. Zero value: silent.
	Logger zerolog.Logger
	// Progress receives the build progress lines a person waits on.
	// Nil means os.Stderr.
	Progress io.Writer
	// ReadyTimeout overrides DefaultReadyTimeout.
	ReadyTimeout time.Duration
	// Binaries, when set, are used as they are instead of the cached builds.
	Binaries *Binaries
	// APIServerFlags are appended to the flags testenv gives kube-apiserver
	// (see newAPIServer), e.g. "--feature-gates=WatchList=false" to test a
	// client against a server with a feature off. They are kept across
	// RestartAPIServer.
	APIServerFlags []string

	// Scheduler starts kube-scheduler (StartScheduler) before Start
	// returns. Its first build happens then, not before.
	Scheduler bool
	// Nodes, when not empty, starts kwok and kube-scheduler and adds these
	// nodes (AddNodes) before Start returns: pods created on the cluster
	// are scheduled to them and become Running and Ready.
	Nodes []NodeSpec
	// NodeLeaseDurationSeconds is the duration kwok writes into each
	// node's Lease and renews it at a quarter of (as the kubelet does).
	// Zero means 40, the kubelet's default.
	NodeLeaseDurationSeconds int
	// SchedulerBinary and Kwok, when set, are used instead of the cached
	// builds.
	SchedulerBinary string
	Kwok            *KwokFiles
	// ClaimBinder starts the claim binder (StartClaimBinder) before Start
	// returns: PersistentVolumeClaims get a volume and are Bound, as a
	// cluster's volume binder and provisioner would do.
	ClaimBinder bool
	// AuditWrites has kube-apiserver record every write in an audit log
	// (who, what, through which client, the answer's code), read with
	// AuditEvents.
	AuditWrites bool
}

// Cluster is a running etcd and kube-apiserver on loopback ports, with
// their data, logs, certificates and kubeconfig in one temporary directory.
// Its methods are safe for concurrent use; RestartAPIServer and Stop are
// serialised with each other.
type Cluster struct {
	log          zerolog.Logger
	progress     io.Writer // build progress of lazily built helpers; nil: os.Stderr
	readyTimeout time.Duration
	dir          string // the temporary directory; removed by Stop
	release      Release
	extraFlags   []string // Options.APIServerFlags
	opts         Options

	// Fixed once Start returns.
	host           string
	token          string
	caPEM          []byte
	clientCA       *CA
	kubeconfigPath string
	etcd           *etcdServer
	client         *apiClient
	etcdHTTP       *http.Client

	mu        sync.Mutex
	api       *apiServer           // its process changes on restart; guarded by mu
	kcms      []*ControllerManager // started on this cluster; guarded by mu
	scheduler *daemon              // kube-scheduler, once started; guarded by mu
	kwok      *daemon              // kwok, once started; guarded by mu
	binder    *claimBinder         // the claim binder, once started; guarded by mu
	stopped   bool                 // guarded by mu

	// helpers serialises StartScheduler, StartKwok and AddNodes (which
	// numbers the nodes); it is never held together with mu's long waits.
	helpers   sync.Mutex
	nodeCount int // nodes added so far; guarded by helpers
}

// Start builds (or finds cached) etcd and kube-apiserver, starts both, and
// returns once kube-apiserver's /readyz answers ok. On error nothing is left
// running and the temporary directory is gone.
func Start(ctx context.Context, opts Options) (*Cluster, error) {
	bins := opts.Binaries
	if bins == nil {
		b, err := EnsureBinaries(ctx, opts.Progress, opts.Logger)
		if err != nil {
			return nil, err
		}
		bins = &b
	}
	dir, err := os.MkdirTemp("", "kcm-testenv-")
	if err != nil {
		return nil, fmt.Errorf("testenv: %w", err)
	}
	c := &Cluster{log: opts.Logger, progress: opts.Progress, readyTimeout: opts.ReadyTimeout, dir: dir,
		etcdHTTP: &http.Client{}, opts: opts, release: bins.Release,
		extraFlags: append([]string(nil), opts.APIServerFlags...)}
	if c.readyTimeout <= 0 {
		c.readyTimeout = DefaultReadyTimeout
	}
	if opts.AuditWrites {
		flags, err := auditFlags(dir)
		if err != nil {
			c.Stop()
			return nil, err
		}
		c.extraFlags = append(c.extraFlags, flags...)
	}
	if err := c.start(ctx, *bins); err != nil {
		c.Stop()
		return nil, fmt.Errorf("testenv: start cluster: %w", err)
	}
	if err := c.startNodes(ctx); err != nil {
		c.Stop()
		return nil, err
	}
	return c, nil
}

// startNodes starts what Options.Scheduler, Options.Nodes and
// Options.ClaimBinder ask for.
func (c *Cluster) startNodes(ctx context.Context) error {
	if c.opts.Scheduler || len(c.opts.Nodes) > 0 {
		if err := c.StartScheduler(ctx); err != nil {
			return err
		}
	}
	if len(c.opts.Nodes) > 0 {
		if err := c.AddNodes(ctx, c.opts.Nodes...); err != nil {
			return err
		}
	}
	if c.opts.ClaimBinder {
		return c.StartClaimBinder(ctx)
	}
	return nil
}

// start runs etcd, then kube-apiserver, then writes the kubeconfig.
func (c *Cluster) start(ctx context.Context, bins Binaries) error {
	began := time.Now()
	rctx, cancel := c.readyContext(ctx)
	defer cancel()
	err := retryPortClash(func() (err error) {
		c.etcd, err = startEtcd(rctx, bins.Etcd, c.dir, c.etcdHTTP)
		return err
	})
	if err != nil {
		return err
	}
	c.log.Info().Str("url", c.etcd.clientURL).Dur("took", time.Since(began)).Msg("etcd ready")
	if c.clientCA, err = NewCA("kcm-testenv-client-ca"); err != nil {
		return err
	}
	clientCAFile := filepath.Join(c.dir, clientCAFileName)
	if err := os.WriteFile(clientCAFile, c.clientCA.CertPEM(), 0o600); err != nil {
		return fmt.Errorf("write client CA: %w", err)
	}

	apiBegan := time.Now()
	err = retryPortClash(func() error {
		ports, err := freePorts(1)
		if err != nil {
			return err
		}
		api, token, err := newAPIServer(bins.APIServer, c.dir, c.etcd.clientURL, ports[0], clientCAFile)
		if err != nil {
			return err
		}
		api.args = append(api.args, c.extraFlags...)
		c.api, c.host, c.token = api, api.host, token
		if err := api.start(); err != nil {
			return err
		}
		err = c.waitAPIServer(rctx)
		if err != nil {
			api.stop()
		}
		return err
	})
	if err != nil {
		return err
	}
	// Read the certificate again now that it is certainly complete.
	if c.caPEM, err = c.api.readCA(); err != nil {
		return err
	}
	c.kubeconfigPath = filepath.Join(c.dir, "kubeconfig")
	if err := writeKubeconfig(c.kubeconfigPath, c.host, c.caPEM, c.token); err != nil {
		return err
	}
	c.log.Info().Str("host", c.host).Dur("apiserver", time.Since(apiBegan)).Dur("total", time.Since(began)).
		Msg("kube-apiserver ready")
	return nil
}

// readyContext bounds a wait for readiness by the cluster's ready timeout.
func (c *Cluster) readyContext(ctx context.Context) (context.Context, context.CancelFunc) {
	return context.WithTimeout(ctx, c.readyTimeout)
}

// waitAPIServer waits for /readyz on the running kube-apiserver. The first
// time, it also waits for the serving certificate and makes the client.
func (c *Cluster) waitAPIServer(ctx context.Context) error {
	return waitReady(ctx, c.api.proc, func(ctx context.Context) error {
		if c.client == nil {
			ca, err := c.api.readCA()
			if err != nil {
				return err
			}
			if c.client, err = newAPIClient(c.host, ca, c.token); err != nil {
				return err
			}
		}
		var body string
		return c.client.do(ctx, http.MethodGet, "/readyz", nil, &body)
	})
}

// Config returns a fresh rest.Config for the cluster: its URL, its CA, and
// a bearer token of a member of system:masters. Callers may modify it.
func (c *Cluster) Config() *rest.Config {
	return &rest.Config{
		Host:        c.host,
		TLS:         rest.TLSConfig{CAData: bytes.Clone(c.caPEM)},
		Credentials: rest.StaticToken(c.token),
		Source:      "testenv",
	}
}

// Release returns the Kubernetes release (and etcd) the cluster runs; its
// fields are empty when Options.Binaries supplied binaries without one.
func (c *Cluster) Release() Release { return c.release }

// KubeconfigPath returns the path of a kubeconfig file for the cluster (one
// cluster, user and context, set as current). It is removed by Stop.
func (c *Cluster) KubeconfigPath() string { return c.kubeconfigPath }

// EtcdURL returns etcd's client URL (plain HTTP on loopback).
func (c *Cluster) EtcdURL() string { return c.etcd.clientURL }

// StopAPIServer stops kube-apiserver (SIGTERM, then SIGKILL after a bound)
// and leaves etcd running. Requests fail until StartAPIServer.
func (c *Cluster) StopAPIServer() error {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.stopped {
		return ErrStopped
	}
	began := time.Now()
	c.api.stop()
	c.client.close()
	c.log.Info().Dur("took", time.Since(began)).Msg("kube-apiserver stopped")
	return nil
}

// StartAPIServer starts kube-apiserver again on the same port, with the
// same certificate and token, and waits until it is ready. It does nothing
// but wait if kube-apiserver is running.
func (c *Cluster) StartAPIServer(ctx context.Context) error {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.stopped {
		return ErrStopped
	}
	if c.api.proc == nil {
		if err := c.api.start(); err != nil {
			return err
		}
	}
	rctx, cancel := c.readyContext(ctx)
	defer cancel()
	began := time.Now()
	if err := c.waitAPIServer(rctx); err != nil {
		return fmt.Errorf("testenv: restart kube-apiserver: %w", err)
	}
	c.log.Info().Dur("took", time.Since(began)).Msg("kube-apiserver ready again")
	return nil
}

// RestartAPIServer stops kube-apiserver and starts it again on the same
// URL. Clients see their connections and watches end, then the API answers
// again with the same CA and token. Other tests sharing the cluster see the
// outage too: chaos tests should start a cluster of their own.
func (c *Cluster) RestartAPIServer(ctx context.Context) error {
	if err := c.StopAPIServer(); err != nil {
		return err
	}
	return c.StartAPIServer(ctx)
}

// CompactEtcd compacts etcd's history at its current revision and returns
// that revision. Afterwards, reads and watches at older revisions fail in
// etcd; see the package documentation for which watches reach etcd.
func (c *Cluster) CompactEtcd(ctx context.Context) (int64, error) {
	rev, err := c.etcd.revision(ctx)
	if err != nil {
		return 0, fmt.Errorf("testenv: compact: %w", err)
	}
	if err := c.etcd.compact(ctx, rev); err != nil {
		return 0, fmt.Errorf("testenv: compact at %d: %w", rev, err)
	}
	return rev, nil
}

// Stop ends the claim binder, kills kwok, kube-scheduler and the kube-controller-managers started
// on the cluster, then kube-apiserver and etcd (each gets SIGTERM, then
// SIGKILL after a bound), waits for them, and removes the temporary
// directory. It is idempotent.
func (c *Cluster) Stop() {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.stopped {
		return
	}
	c.stopped = true
	if c.binder != nil {
		if err := c.binder.stop(); err != nil {
			c.log.Warn().Err(err).Msg("claim binder")
		}
	}
	for _, d := range []*daemon{c.kwok, c.scheduler} {
		if d != nil {
			d.proc.stop(daemonStopGrace)
		}
	}
	for _, cm := range c.kcms {
		_ = cm.Stop() // a crash it reports is the test's business, not Stop's
	}
	if c.api != nil {
		c.api.stop()
	}
	if c.etcd != nil {
		c.etcd.proc.stop(stopGrace)
	}
	if c.client != nil {
		c.client.close()
	}
	c.etcdHTTP.CloseIdleConnections()
	if err := os.RemoveAll(c.dir); err != nil {
		c.log.Warn().Err(err).Str("dir", c.dir).Msg("cannot remove the cluster directory")
	}
	c.log.Info().Msg("cluster stopped")
}
