package difftest

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"

	"github.com/rs/zerolog"

	"github.com/kcmlab/kcm/ctrl"
	"github.com/kcmlab/kcm/kube/rest"
	"github.com/kcmlab/kcm/testenv"
)

// Manager is a controller-manager under comparison: something that, once
// started against a cluster, runs controllers on it until stopped.
type Manager interface {
	// Name identifies the manager in reports ("kube-controller-manager
	// v1.34.4 [deployment replicaset]").
	Name() string
	// Start runs the manager against c and returns once it runs. stop
	// ends it, waits for it, and reports a failure it had while running.
	Start(ctx context.Context, c *testenv.Cluster) (stop func() error, err error)
}

// Diagnoser is implemented by managers that can say more when a scenario
// fails under them (the tail of a process log).
type Diagnoser interface {
	Diagnose() string
}

// KubeControllerManager is the reference: the real kube-controller-manager
// binary at testenv.KubernetesVersion, with the given --controllers.
type KubeControllerManager struct {
	Controllers []string
	Logger      zerolog.Logger

	mu   sync.Mutex
	last *testenv.ControllerManager // guarded by mu
}

// Name implements Manager.
func (m *KubeControllerManager) Name() string {
	return fmt.Sprintf("kube-controller-manager %s [%s]", testenv.KubernetesVersion, strings.Join(m.Controllers, ","))
}

// Start implements Manager.
func (m *KubeControllerManager) Start(ctx context.Context, c *testenv.Cluster) (func() error, error) {
	cm, err := c.StartKubeControllerManager(ctx, testenv.KCMOptions{Controllers: m.Controllers, Logger: m.Logger})
	if err != nil {
		return nil, err
	}
	m.mu.Lock()
	m.last = cm
	m.mu.Unlock()
	return cm.Stop, nil
}

// Diagnose returns the tail of the last started process's log.
func (m *KubeControllerManager) Diagnose() string {
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.last == nil {
		return ""
	}
	return "last lines of " + m.last.LogPath() + ":\n" + m.last.LogTail(40)
}

// InProcess runs kcm's controllers in the test process, wired the way kcm
// wires them: one ControllerContext (shared informer factory, a client per
// controller), every descriptor's constructor, the factory started, then
// each controller's Run with its worker count.
//
// It stands in for kcm's manager until the manager package's Run can be
// called here instead.
type InProcess struct {
	// Descriptors returns the controllers to run.
	Descriptors func() []*ctrl.ControllerDescriptor
	Logger      zerolog.Logger
}

// Name implements Manager.
func (m *InProcess) Name() string {
	var names []string
	for _, d := range m.Descriptors() {
		names = append(names, d.Name)
	}
	return "kcm in-process [" + strings.Join(names, ",") + "]"
}

// Start implements Manager.
func (m *InProcess) Start(ctx context.Context, c *testenv.Cluster) (func() error, error) {
	base, err := rest.NewClient(c.Config())
	if err != nil {
		return nil, err
	}
	cc, err := ctrl.CreateControllerContext(base, ctrl.Config{Version: "difftest", Logger: m.Logger})
	if err != nil {
		base.CloseIdleConnections()
		return nil, err
	}
	var controllers []ctrl.Controller
	for _, d := range m.Descriptors() {
		ctl, err := d.Constructor(ctx, cc, d.Name)
		if err != nil {
			base.CloseIdleConnections()
			return nil, fmt.Errorf("difftest: construct %s: %w", d.Name, err)
		}
		if ctl != nil {
			controllers = append(controllers, ctl)
		}
	}
	runCtx, cancel := context.WithCancel(context.Background())
	cc.InformerFactory.Start(runCtx)
	errs := make(chan error, len(controllers))
	for _, ctl := range controllers {
		go func() {
			if err := ctl.Run(runCtx, cc.Workers(ctl.Name())); err != nil {
				errs <- fmt.Errorf("%s: %w", ctl.Name(), err)
				return
			}
			errs <- nil
		}()
	}
	var once sync.Once
	var stopErr error
	stop := func() error {
		once.Do(func() {
			cancel()
			var all []error
			for range controllers {
				all = append(all, <-errs)
			}
			cc.InformerFactory.Shutdown()
			base.CloseIdleConnections()
			stopErr = errors.Join(all...)
		})
		return stopErr
	}
	return stop, nil
}
