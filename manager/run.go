package manager

import (
	"context"
	"errors"
	"fmt"
	"net"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/rs/zerolog"

	"github.com/kcmlab/kcm/clock"
	"github.com/kcmlab/kcm/ctrl"
	"github.com/kcmlab/kcm/kube/clientcmd"
	"github.com/kcmlab/kcm/kube/rest"
	"github.com/kcmlab/kcm/lease"
	"github.com/kcmlab/kcm/pipeview"
	"github.com/kcmlab/kcm/tap"
)

// ErrLeaderElectionLost: this instance led and lost the lease (a renewal
// deadline passed, or another instance holds it now). Run returns it at
// once, having cancelled the syncs in flight; the binary exits non-zero,
// as kube-controller-manager does ("leaderelection lost").
var ErrLeaderElectionLost = errors.New("leaderelection lost")

// Config is what Run needs besides the flags; everything but Options may
// be left zero.
type Config struct {
	// Options are the parsed flags; they must have passed Validate.
	Options *Options
	// Descriptors are the controllers --controllers chooses from; nil
	// means NewControllerDescriptors().
	Descriptors *ctrl.Descriptors
	// REST, when set, is used instead of --kubeconfig and --master (kcm
	// dev and tests hand in their cluster's config).
	REST *rest.Config
	// Listener, when set, is served instead of --bind-address and
	// --secure-port (tests pass a listener on a free port).
	Listener net.Listener
	// Identity is the lease holder identity; "" means
	// "<hostname>_<uuid>", as kube-controller-manager makes it.
	Identity string
	// Clock drives the elector, the controllers and the health checks;
	// nil means clock.Real.
	Clock  clock.Clock
	Logger zerolog.Logger
	// Pipeline, when set, is fed by every informer, controller and
	// client of the Run (kcm dev serves it on a loopback listener of its
	// own and runs it). When nil, --enable-pipeline-view makes one, which
	// Run runs. Either way the secure port serves it only with
	// --enable-pipeline-view.
	Pipeline *pipeview.Hub
}

// manager is one Run: the pieces the leader callback and the health
// checks share.
type manager struct {
	cfg    Config
	o      *Options
	log    zerolog.Logger
	client *rest.Client
	// caData is the CA the client trusts for the apiserver (the
	// kubeconfig's, in-cluster's), nil when none: root-ca-cert-publisher
	// publishes it when --root-ca-file is not given.
	caData  []byte
	reg     *prometheus.Registry
	status  *status
	debug   *debugHandlers
	enabled []*ctrl.ControllerDescriptor
	// fail ends the Run with an error (a controller could not start).
	fail func(error)
	// hub is the pipeline view fed by this Run; nil: none.
	hub *pipeview.Hub
}

// Run is kube-controller-manager's Run: it serves the health and metrics
// endpoints, then — inside leader election, when --leader-elect — creates
// the controller context, builds the enabled controllers, starts the
// shared informers, waits for their caches and runs every controller's
// workers, until ctx ends.
//
// It returns nil after ctx ended, the controllers drained their in-flight
// syncs (bounded by each loop's drain timeout) and the lease was
// released; an error wrapping ErrLeaderElectionLost when the lease was
// lost; or the error that kept the manager from starting or running.
func Run(ctx context.Context, c Config) error {
	if c.Descriptors == nil {
		c.Descriptors = NewControllerDescriptors()
	}
	if c.Clock == nil {
		c.Clock = clock.Real{}
	}
	o := c.Options
	if err := o.Validate(c.Descriptors); err != nil {
		return err
	}
	enabled, err := c.Descriptors.Enabled(o.Controllers.Controllers)
	if err != nil {
		return err
	}
	reg := newRegistry()
	rm, err := newRESTClientMetrics(reg)
	if err != nil {
		return err
	}
	hub, stopHub := pipelineView(c)
	defer stopHub()
	client, caData, err := newClient(c, rest.WithRequestMetrics(rm), rest.WithTap(tapOf(hub)))
	if err != nil {
		return err
	}
	defer client.CloseIdleConnections()

	ctx, cancel := context.WithCancelCause(ctx)
	defer cancel(nil)
	m := &manager{cfg: c, o: o, log: c.Logger, client: client, caData: caData, reg: reg, status: newStatus(),
		debug: newDebugHandlers(), enabled: enabled, fail: cancel, hub: hub}

	var elector *lease.Elector
	if o.LeaderElection.LeaderElect {
		if elector, err = m.newElector(ctx); err != nil {
			return err
		}
		if hub != nil {
			hub.SetLease(elector.Status)
		}
	}
	srv, err := m.serve(ctx, elector)
	if err != nil {
		return err
	}
	defer srv.stop()
	if srv != nil {
		go func() {
			if err, ok := <-srv.failed(); ok {
				cancel(err)
			}
		}()
	}

	names := make([]string, len(enabled))
	for i, d := range enabled {
		names[i] = d.Name
	}
	m.log.Info().Str("version", GetVersion()).Strs("controllers", names).Bool("leaderElect", elector != nil).
		Msg("starting kcm controller manager")
	if elector == nil {
		m.runControllers(ctx)
	} else if err := elector.Run(ctx); err != nil {
		if errors.Is(err, lease.ErrLeadershipLost) {
			m.log.Error().Err(err).Msg("leaderelection lost")
			return fmt.Errorf("%w: %w", ErrLeaderElectionLost, err)
		}
		return err
	}
	if cause := context.Cause(ctx); cause != nil && !errors.Is(cause, context.Canceled) {
		return cause
	}
	return nil
}

// newClient builds the base client every other client shares a transport
// with: from Config.REST, else --kubeconfig / --master / in-cluster, as
// kube-controller-manager finds its cluster. Its QPS, burst and content
// type are the flags'; every client derived from it (rest.Client's
// WithOptions, Anonymous, WithCredentials) keeps the content type, as
// kube-controller-manager's clients all come from one kubeconfig whose
// ContentType is --kube-api-content-type (cmd/kube-controller-manager/app/
// options, Config).
func newClient(c Config, opts ...rest.Option) (client *rest.Client, caData []byte, err error) {
	cfg := c.REST
	if cfg == nil {
		cfg, err = clientcmd.BuildConfig(clientcmd.LoadOptions{
			ExplicitPath: c.Options.Kubeconfig, Server: c.Options.Master, Clock: c.Clock, Logger: c.Logger})
		if err != nil {
			return nil, nil, fmt.Errorf("finding the cluster: %w", err)
		}
	}
	cp := *cfg
	cp.QPS, cp.Burst = c.Options.KubeAPIQPS, int(c.Options.KubeAPIBurst)
	cp.ContentType = c.Options.KubeAPIContentType
	cp.UserAgent = ctrl.UserAgent(GetVersion(), "kcm")
	client, err = rest.NewClient(&cp, append([]rest.Option{rest.WithLogger(c.Logger), rest.WithClock(c.Clock)}, opts...)...)
	return client, cfg.TLS.CAData, err
}

// pipelineView returns the view this Run feeds: Config.Pipeline, or with
// --enable-pipeline-view one of its own, running until stop is called
// (which waits for it: every browser disconnected). nil: no view.
func pipelineView(c Config) (hub *pipeview.Hub, stop func()) {
	if c.Pipeline != nil || !c.Options.EnablePipelineView {
		return c.Pipeline, func() {}
	}
	hub = pipeview.New(pipeview.Options{Clock: c.Clock, Logger: c.Logger})
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() { defer close(done); _ = hub.Run(ctx) }()
	return hub, func() { cancel(); <-done }
}

// tapOf is the hub's Tap, nil without a hub.
func tapOf(hub *pipeview.Hub) *tap.Tap {
	if hub == nil {
		return nil
	}
	return hub.Tap()
}
