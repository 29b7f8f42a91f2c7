package legacysatokencleaner

import (
	"context"
	"fmt"
	"time"

	"github.com/rs/zerolog"

	"github.com/kcmlab/kcm/clock"
	"github.com/kcmlab/kcm/ctrl"
	"github.com/kcmlab/kcm/informer"
	"github.com/kcmlab/kcm/kube/api"
	"github.com/kcmlab/kcm/kube/api/decode"
	"github.com/kcmlab/kcm/kube/rest"
)

// Name is the controller's canonical name, kube-controller-manager's.
const Name = "legacy-serviceaccount-token-cleaner-controller"

// ClientName is the User-Agent name of its client, as upstream's
// controllerContext.NewClient("legacy-service-account-token-cleaner").
const ClientName = "legacy-service-account-token-cleaner"

// FlagCleanUpPeriod is --legacy-service-account-token-clean-up-period;
// DefaultCleanUpPeriod its default, one year (8760h0m0s).
const (
	FlagCleanUpPeriod    = "legacy-service-account-token-clean-up-period"
	DefaultCleanUpPeriod = 365 * 24 * time.Hour
)

// DefaultSyncInterval is how long after one pass ends the next begins
// (upstream's DefaultCleanerSyncInterval).
const DefaultSyncInterval = 24 * time.Hour

// passKey is the loop's only key: each sync is one pass over every Secret.
const passKey = "pass"

// Descriptor registers the controller: on by default (the
// LegacyServiceAccountTokenCleanUp gate is GA and gone), one worker, its
// clean-up period flag.
func Descriptor() *ctrl.ControllerDescriptor {
	return &ctrl.ControllerDescriptor{
		Name: Name, Aliases: []string{"legacy-serviceaccount-token-cleaner"},
		Flags: []ctrl.ControllerFlag{ctrl.DurationFlag(FlagCleanUpPeriod, DefaultCleanUpPeriod,
			"The period of time since the last usage of an legacy service account token before it can be deleted.")},
		Constructor: New,
	}
}

// Config is what the controller needs besides its listers and client.
type Config struct {
	// CleanUpPeriod is how long a token must have been unused (and then
	// marked invalid) before it is deleted; must be > 0.
	CleanUpPeriod time.Duration
	// SyncInterval is the time between passes; must be > 0.
	SyncInterval time.Duration
	// Clock gives "now" (dates are its UTC days); nil is clock.Real.
	Clock  clock.Clock
	Logger zerolog.Logger
}

// Controller holds what a pass reads and writes; the ctrl.Loop runs it.
type Controller struct {
	accounts   informer.ServiceAccountLister
	secrets    informer.Lister[*api.Secret]
	pods       informer.PodLister
	secretAPI  *rest.Resources[*api.Secret]
	configMaps *rest.Resources[*api.ConfigMap]
	cfg        Config
}

// NewController checks cfg as upstream's NewLegacySATokenCleaner does
// and returns the controller on the given listers and client.
func NewController(accounts informer.ServiceAccountLister, secrets informer.Lister[*api.Secret], pods informer.PodLister, client *rest.Client, cfg Config) (*Controller, error) {
	if !(cfg.CleanUpPeriod > 0) {
		return nil, fmt.Errorf("invalid CleanUpPeriod: %v", cfg.CleanUpPeriod)
	}
	if !(cfg.SyncInterval > 0) {
		return nil, fmt.Errorf("invalid SyncInterval: %v", cfg.SyncInterval)
	}
	if cfg.Clock == nil {
		cfg.Clock = clock.Real{}
	}
	return &Controller{
		accounts: accounts, secrets: secrets, pods: pods,
		secretAPI:  rest.NewResources(client, rest.Secrets, decode.Typed[api.Secret]()),
		configMaps: rest.NewResources(client, rest.ConfigMaps, decode.Typed[api.ConfigMap]()).InNamespace("kube-system"),
		cfg:        cfg,
	}, nil
}

// New is the ControllerConstructor: ServiceAccounts, Secrets and pods are
// watched without handlers (a pass reads whole caches); the loop waits for
// the three caches, then runs the first pass at once.
func New(_ context.Context, cc ctrl.ControllerContext, name string) (ctrl.Controller, error) {
	cfg := Config{CleanUpPeriod: cc.DurationFlag(FlagCleanUpPeriod, DefaultCleanUpPeriod), SyncInterval: DefaultSyncInterval,
		Clock: cc.Clock, Logger: cc.LoggerFor(name)}
	w := cc.Wire(name, ctrl.LoopOptions{})
	accounts := ctrl.Watch[api.ServiceAccount](w, rest.ServiceAccounts, nil)
	secrets := ctrl.Watch[api.Secret](w, rest.Secrets, nil)
	pods := ctrl.Watch[api.Pod](w, rest.Pods, nil)
	c, err := NewController(informer.ServiceAccountLister{Lister: accounts}, secrets, informer.PodLister{Lister: pods}, cc.ClientFor(ClientName), cfg)
	if err != nil {
		w.Queue().ShutDown()
		return nil, fmt.Errorf("failed to init the legacy service account token cleaner: %w", err)
	}
	w.Queue().Add(passKey)
	return w.Build(c.Sync)
}

// Sync runs one pass and asks to run again SyncInterval after it ended,
// as wait.UntilWithContext runs upstream's evaluateSATokens. A pass never
// fails: what goes wrong is logged, and the next pass tries again.
func (c *Controller) Sync(ctx context.Context, _ string) (ctrl.Result, error) {
	c.Pass(ctx)
	return ctrl.Result{RequeueAfter: c.cfg.SyncInterval}, nil
}
