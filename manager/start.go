package manager

import (
	"context"
	"fmt"
	"sync"

	"github.com/kcmlab/kcm/ctrl"
	"github.com/kcmlab/kcm/ctrl/clientbuilder"
)

// runControllers is the leader's work, in the order of
// kube-controller-manager's start-up: CreateControllerContext (one shared
// informer factory, a client per controller), BuildControllers (each
// constructor takes its informers and registers its handlers), start the
// factory and wait for the caches, then StartControllers (every
// controller's workers). It blocks until ctx ends and every controller has
// returned, then stops the informers. A failure to start ends the whole
// Run through m.fail, as kube-controller-manager exits when a controller
// cannot start.
func (m *manager) runControllers(ctx context.Context) {
	m.status.startLeading()
	defer m.status.stopLeading()
	cfg := ctrl.Config{
		Version: GetVersion(), QPS: m.o.KubeAPIQPS, Burst: int(m.o.KubeAPIBurst), Options: m.o.Controllers,
		Clock: m.cfg.Clock, Logger: m.log, Registerer: m.reg, Tap: tapOf(m.hub), APIServerCAData: m.caData,
	}
	if m.o.UseServiceAccountCredentials {
		// kube-controller-manager's createClientBuilders: the controllers'
		// clients from an anonymous copy of the manager's config, each
		// with its ServiceAccount's token; the manager's own client
		// manages the accounts and asks for the tokens.
		accounts := clientbuilder.New(m.client, clientbuilder.Options{Clock: m.cfg.Clock, Logger: m.log})
		defer accounts.Close()
		cfg.ServiceAccounts = accounts
	}
	cc, err := ctrl.CreateControllerContext(m.client, cfg)
	if err != nil {
		m.fail(fmt.Errorf("creating the controller context: %w", err))
		return
	}
	controllers, err := BuildControllers(ctx, cc, m.enabled)
	if err != nil {
		m.fail(err)
		return
	}
	m.debug.mount(controllers, m.enabled)
	defer m.debug.unmount()
	cc.InformerFactory.Start(ctx)
	defer cc.InformerFactory.Shutdown()
	for name, ok := range cc.InformerFactory.WaitForCacheSync(ctx) {
		if !ok {
			m.log.Info().Str("informer", name).Msg("stopped before the caches synced")
			return
		}
	}
	m.status.cachesSynced()
	m.log.Info().Msg("caches synced; starting controllers")
	StartControllers(ctx, cc, controllers, func(name string, err error) {
		m.status.controllerFailed(name, err)
		m.log.Error().Err(err).Str("controller", name).Msg("controller stopped with an error")
	})
}

// BuildControllers calls the constructor of every descriptor in enabled
// (kube-controller-manager's BuildControllers): each takes its informers
// from cc.InformerFactory and registers its handlers, but nothing runs
// yet. A constructor returning a nil Controller is skipped (disabled by
// its configuration). The first error is returned, naming the controller.
func BuildControllers(ctx context.Context, cc ctrl.ControllerContext, enabled []*ctrl.ControllerDescriptor) ([]ctrl.Controller, error) {
	var out []ctrl.Controller
	for _, d := range enabled {
		dcc := cc
		if d.RootCredentials {
			dcc = cc.WithRootCredentials()
		}
		c, err := d.Constructor(ctx, dcc, d.Name)
		if err != nil {
			return nil, fmt.Errorf("starting %s: %w", d.Name, err)
		}
		if c == nil {
			cc.Logger.Warn().Str("controller", d.Name).Msg("skipping controller: its configuration disables it")
			continue
		}
		out = append(out, c)
	}
	return out, nil
}

// StartControllers runs every controller's workers, each in its own
// goroutine with its --concurrent-<x>-syncs worker count
// (kube-controller-manager's StartControllers, or RunControllers in newer
// releases), and blocks until all have returned. A controller whose Run
// returns an error is reported to failed; the others go on.
func StartControllers(ctx context.Context, cc ctrl.ControllerContext, controllers []ctrl.Controller, failed func(name string, err error)) {
	var wg sync.WaitGroup
	for _, c := range controllers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			if err := c.Run(ctx, cc.Workers(c.Name())); err != nil {
				failed(c.Name(), err)
			}
		}()
	}
	wg.Wait()
}
