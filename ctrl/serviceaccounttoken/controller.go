package serviceaccounttoken

import (
	"context"
	"errors"
	"sync"

	"github.com/rs/zerolog"

	"github.com/kcmlab/kcm/clock"
	"github.com/kcmlab/kcm/ctrl"
	"github.com/kcmlab/kcm/informer"
	"github.com/kcmlab/kcm/kube/api"
	"github.com/kcmlab/kcm/kube/api/decode"
	"github.com/kcmlab/kcm/kube/rest"
	"github.com/kcmlab/kcm/queue"
)

// MaxRetries is how many times in a row a key is retried before the loop
// gives up on it until its object's next event (upstream's default
// TokensControllerOptions.MaxRetries).
const MaxRetries = 10

// Config is what the controller needs besides its listers and client.
type Config struct {
	// Signer signs the tokens; required.
	Signer *Signer
	// RootCA is written as ca.crt (--root-ca-file, else the CA kcm
	// trusts for the apiserver); empty writes no ca.crt.
	RootCA []byte
	// Clock paces the conflict retries of removing a reference; nil is
	// clock.Real.
	Clock clock.Clock
	// Logger gets the controller's debug lines.
	Logger zerolog.Logger
}

// Controller holds what the two syncs read and write. It runs as two
// loops, one keyed by ServiceAccount, one by token Secret (upstream's
// syncServiceAccountQueue and syncSecretQueue), each with the
// --concurrent-serviceaccount-token-syncs workers.
type Controller struct {
	accounts      informer.ServiceAccountLister
	secrets       informer.Lister[*api.Secret]
	accountClient *rest.Resources[*api.ServiceAccount]
	secretClient  *rest.Resources[*api.Secret]
	signer        *Signer
	rootCA        []byte
	clock         clock.Clock
	log           zerolog.Logger

	accountLoop, secretLoop *ctrl.Loop
}

// NewController returns the controller's state on the given listers and
// client (tests build it directly and call its syncs).
func NewController(accounts informer.ServiceAccountLister, secrets informer.Lister[*api.Secret], client *rest.Client, cfg Config) *Controller {
	if cfg.Clock == nil {
		cfg.Clock = clock.Real{}
	}
	return &Controller{
		accounts: accounts, secrets: secrets,
		accountClient: rest.NewResources(client, rest.ServiceAccounts, decode.Typed[api.ServiceAccount]()),
		secretClient:  rest.NewResources(client, rest.Secrets, decode.Typed[api.Secret]()),
		signer:        cfg.Signer, rootCA: cfg.RootCA, clock: cfg.Clock, log: cfg.Logger,
	}
}

// Name implements ctrl.Controller.
func (c *Controller) Name() string { return Name }

// Run implements ctrl.Controller: both loops, workers each, until ctx
// ends; it returns when both have stopped. The secret loop waits for what
// the account loop waits for (both informers' handlers).
func (c *Controller) Run(ctx context.Context, workers int) error {
	if c.accountLoop == nil || c.secretLoop == nil {
		return errors.New("serviceaccounttoken: Run needs a controller built by New")
	}
	var wg sync.WaitGroup
	errs := make([]error, 2)
	wg.Go(func() { errs[0] = c.accountLoop.Run(ctx, workers) })
	wg.Go(func() { errs[1] = c.secretLoop.Run(ctx, workers) })
	wg.Wait()
	for i, err := range errs {
		if errors.Is(err, ctrl.ErrCacheNotSynced) && ctx.Err() != nil {
			errs[i] = nil
		}
	}
	return errors.Join(errs...)
}

// handlers turn informer notifications into the loops' keys (upstream's
// queueServiceAccountSync, queueServiceAccountUpdateSync, queueSecretSync
// and queueSecretUpdateSync). Only token Secrets reach the secret queue.
type handlers struct {
	accounts *queue.Queue[string]
	secrets  *queue.Queue[string]
}

func (h *handlers) accountAdded(sa *api.ServiceAccount, _ bool)   { h.accounts.Add(AccountKey(sa)) }
func (h *handlers) accountUpdated(_, sa *api.ServiceAccount)      { h.accounts.Add(AccountKey(sa)) }
func (h *handlers) accountDeleted(sa *api.ServiceAccount, _ bool) { h.accounts.Add(AccountKey(sa)) }

func (h *handlers) secret(s *api.Secret) {
	if s.Type == api.SecretTypeServiceAccountToken {
		h.secrets.Add(SecretKey(s))
	}
}
func (h *handlers) secretAdded(s *api.Secret, _ bool)   { h.secret(s) }
func (h *handlers) secretUpdated(_, s *api.Secret)      { h.secret(s) }
func (h *handlers) secretDeleted(s *api.Secret, _ bool) { h.secret(s) }
