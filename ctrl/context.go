package ctrl

import (
	"fmt"
	"slices"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/rs/zerolog"

	"github.com/kcmlab/kcm/clock"
	"github.com/kcmlab/kcm/informer"
	"github.com/kcmlab/kcm/kube/rest"
	"github.com/kcmlab/kcm/tap"
)

// Config is what CreateControllerContext needs besides the client.
type Config struct {
	// Version goes into every User-Agent: "kcm/<Version> (<controller>)".
	// Empty means "v0".
	Version string
	// QPS and Burst limit each controller's own client (--kube-api-qps,
	// --kube-api-burst); zero means rest.DefaultQPS and rest.DefaultBurst.
	QPS   float32
	Burst int
	// Options carries --concurrent-<x>-syncs; nil gives every controller
	// DefaultWorkers.
	Options *Options
	// Factory configures the shared informer factory. Its Clock,
	// Logger and Registerer are replaced by the ones below: one clock,
	// one logger and one registry for the whole manager.
	Factory informer.FactoryOptions
	// Clock is handed to every controller; nil means clock.Real.
	Clock clock.Clock
	// Logger is every controller's parent logger.
	Logger zerolog.Logger
	// Registerer receives the framework's metrics (reconcile, workqueue,
	// events); nil records none.
	Registerer prometheus.Registerer
	// Tap feeds the pipeline view from the shared informers and every
	// controller's loop; nil: no view.
	Tap *tap.Tap
	// APIServerCAData is the PEM CA bundle the manager's client trusts
	// for the apiserver (its kubeconfig's or in-cluster CA), nil when it
	// trusts the system roots. root-ca-cert-publisher publishes it when
	// --root-ca-file is not given, as kube-controller-manager publishes
	// its client config's CAData.
	APIServerCAData []byte
	// ServiceAccounts, when set, builds every controller's client as
	// the controller's own ServiceAccount
	// (--use-service-account-credentials); nil: every controller acts
	// with the manager's credentials, the shared informers always do.
	ServiceAccounts ServiceAccountClients
}

// ServiceAccountClients builds clients that authenticate as a
// ServiceAccount (kube-controller-manager's DynamicControllerClientBuilder;
// clientbuilder.Builder is one): the client of serviceAccount, sending
// userAgent, with its own rate limiter (qps and burst as
// rest.Client.WithOptions takes them).
type ServiceAccountClients interface {
	Client(serviceAccount, userAgent string, qps float32, burst int) *rest.Client
}

// SharedInformersName is the controller name of the informer factory's
// client, as kube-controller-manager names it.
const SharedInformersName = "shared-informers"

// ControllerContext is what every controller constructor receives
// (kube-controller-manager's ControllerContext): one shared informer
// factory, so that controllers reading the same resource share one watch
// and one cache, and the means to build each controller's own client,
// logger, loop and event recorder.
//
// It is a value: constructors may copy it. Nothing in it runs until the
// manager starts the factory and the controllers.
type ControllerContext struct {
	// InformerFactory is the one factory all controllers take informers
	// and listers from.
	InformerFactory *informer.Factory
	// Clock, Logger and Metrics are shared by all controllers; Metrics is
	// nil when no Registerer was configured.
	Clock   clock.Clock
	Logger  zerolog.Logger
	Metrics *Metrics
	// Tap is handed to every loop (NewLoop) and to the factory's
	// informers; nil without a view.
	Tap *tap.Tap

	client  *rest.Client
	version string
	qps     float32
	burst   int
	options *Options
	caData  []byte
	// accounts builds the controllers' clients as their ServiceAccounts
	// unless root is set (WithRootCredentials); nil: the manager's
	// credentials.
	accounts ServiceAccountClients
	root     bool
}

// CreateControllerContext builds the shared informer factory on a client
// of its own (User-Agent "kcm/<version> (shared-informers)") and the
// framework's metrics. client's transport is shared by every client made
// from the context.
func CreateControllerContext(client *rest.Client, cfg Config) (ControllerContext, error) {
	if cfg.Clock == nil {
		cfg.Clock = clock.Real{}
	}
	if cfg.Version == "" {
		cfg.Version = "v0"
	}
	cc := ControllerContext{
		Clock: cfg.Clock, Logger: cfg.Logger, Tap: cfg.Tap,
		client: client, version: cfg.Version, qps: cfg.QPS, burst: cfg.Burst, options: cfg.Options,
		caData: slices.Clone(cfg.APIServerCAData), accounts: cfg.ServiceAccounts,
	}
	if cfg.Registerer != nil {
		m, err := NewMetrics(cfg.Registerer)
		if err != nil {
			return ControllerContext{}, err
		}
		cc.Metrics = m
	}
	fo := cfg.Factory
	fo.Clock, fo.Registerer, fo.Logger, fo.Tap = cfg.Clock, cfg.Registerer, cfg.Logger, cfg.Tap
	// The shared informers keep the manager's identity, as
	// kube-controller-manager builds them with its root client builder.
	cc.InformerFactory = informer.NewFactory(cc.WithRootCredentials().ClientFor(SharedInformersName), fo)
	return cc, nil
}

// UserAgent is the User-Agent of a controller's client:
// "kcm/<version> (<controller>)".
func UserAgent(version, controller string) string {
	return fmt.Sprintf("kcm/%s (%s)", version, controller)
}

// ClientFor returns a client of the controller's own: the shared transport
// (so the shared HTTP/2 connections), its own rate limiter with the
// configured QPS and burst, and its own User-Agent, so that one busy
// controller cannot starve the others and the apiserver's logs tell them
// apart (kube-controller-manager's ClientBuilder.ClientOrDie(name)).
//
// controller is the name kube-controller-manager gives the client, which is
// also its ServiceAccount's: with Config.ServiceAccounts set (and not
// WithRootCredentials), the client authenticates as
// kube-system/<controller>, e.g. "replicaset-controller",
// "generic-garbage-collector", "node-controller" (the names of Kubernetes'
// bootstrap roles system:controller:<name>).
func (cc ControllerContext) ClientFor(controller string) *rest.Client {
	return cc.newClient(controller, cc.qps, cc.burst)
}

// newClient is the controller's client with the given limits: as its
// ServiceAccount, or with the manager's credentials.
func (cc ControllerContext) newClient(controller string, qps float32, burst int) *rest.Client {
	ua := UserAgent(cc.version, controller)
	if cc.accounts != nil && !cc.root {
		return cc.accounts.Client(controller, ua, qps, burst)
	}
	return cc.client.WithOptions(ua, qps, burst)
}

// WithRootCredentials returns a copy of the context whose clients use the
// manager's own credentials even with Config.ServiceAccounts set: for the
// controllers kube-controller-manager builds with its root client builder
// (the serviceaccount-token controller, which must run before any
// ServiceAccount token can be trusted; ControllerDescriptor.RootCredentials)
// and for the shared informers.
func (cc ControllerContext) WithRootCredentials() ControllerContext {
	cc.root = true
	return cc
}

// ServiceAccountCredentials reports whether ClientFor builds clients that
// act as the controllers' ServiceAccounts.
func (cc ControllerContext) ServiceAccountCredentials() bool { return cc.accounts != nil && !cc.root }

// Workers returns the controller's --concurrent-<x>-syncs value, or
// DefaultWorkers.
func (cc ControllerContext) Workers(controller string) int {
	if cc.options == nil {
		return DefaultWorkers
	}
	return cc.options.Workers(controller)
}

// ClientScaledFor is ClientFor with the configured QPS multiplied by
// qpsFactor and the burst by burstFactor (the defaults, 20 and 30, when
// none were configured; a negative QPS, no limit, stays unlimited).
// kube-controller-manager gives its namespace controller 20 times the QPS
// and 100 times the burst: a namespace deletion is a burst of discovery,
// list and delete requests that the plain limits would slow to a crawl.
func (cc ControllerContext) ClientScaledFor(controller string, qpsFactor float32, burstFactor int) *rest.Client {
	qps, burst := cc.qps, cc.burst
	if qps == 0 {
		qps, burst = rest.DefaultQPS, rest.DefaultBurst
	}
	if burst <= 0 {
		burst = rest.DefaultBurst
	}
	if qps > 0 {
		qps *= qpsFactor
		burst *= burstFactor
	}
	return cc.newClient(controller, qps, burst)
}

// BoolFlag returns the value of a controller's boolean flag
// (ControllerDescriptor.Flags), or def when the context has no options
// (a test's context) or the flag is not registered.
func (cc ControllerContext) BoolFlag(name string, def bool) bool {
	if cc.options == nil {
		return def
	}
	if v, ok := cc.options.Bool(name); ok {
		return v
	}
	return def
}

// DurationFlag returns the value of a controller's duration flag, or def
// as BoolFlag does.
func (cc ControllerContext) DurationFlag(name string, def time.Duration) time.Duration {
	if cc.options == nil {
		return def
	}
	if v, ok := cc.options.Duration(name); ok {
		return v
	}
	return def
}

// Int32Flag returns the value of a controller's int32 flag, or def as
// BoolFlag does.
func (cc ControllerContext) Int32Flag(name string, def int32) int32 {
	if cc.options == nil {
		return def
	}
	if v, ok := cc.options.Int32(name); ok {
		return v
	}
	return def
}

// APIServerCAData returns a copy of the CA bundle the manager's client
// trusts for the apiserver (Config.APIServerCAData), nil when none.
func (cc ControllerContext) APIServerCAData() []byte { return slices.Clone(cc.caData) }

// LoggerFor returns the shared logger with a "controller" field.
func (cc ControllerContext) LoggerFor(controller string) zerolog.Logger {
	return cc.Logger.With().Str("controller", controller).Logger()
}
