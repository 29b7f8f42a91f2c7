package difftest

import (
	"context"
	"fmt"
	"strings"
	"sync"

	"github.com/rs/zerolog"

	"github.com/kcmlab/kcm/ctrl"
	"github.com/kcmlab/kcm/manager"
	"github.com/kcmlab/kcm/testenv"
)

// Manager is a controller-manager under comparison: something that, once
// started against a cluster, runs controllers on it until stopped.
type Manager interface {
	// Name identifies the manager in reports ("kube-controller-manager
	// v1.37.2 [deployment replicaset]").
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
// binary at testenv.KubernetesVersion, with the given --controllers and
// --use-service-account-credentials, as kubeadm runs it (audit.go).
type KubeControllerManager struct {
	Controllers []string
	// Args are appended to testenv's flags (a controller's flags).
	Args   []string
	Logger zerolog.Logger

	mu   sync.Mutex
	last *testenv.ControllerManager // guarded by mu
}

// Name implements Manager.
func (m *KubeControllerManager) Name() string {
	return fmt.Sprintf("kube-controller-manager %s [%s]", testenv.KubernetesVersion, strings.Join(m.Controllers, ","))
}

// Start implements Manager.
func (m *KubeControllerManager) Start(ctx context.Context, c *testenv.Cluster) (func() error, error) {
	cm, err := c.StartKubeControllerManager(ctx, testenv.KCMOptions{Controllers: m.Controllers,
		Args: append([]string{"--use-service-account-credentials=true"}, m.Args...), Logger: m.Logger})
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

// InProcess runs kcm's controller manager in the test process: manager.Run,
// the function behind the kcm binary, with the command line a user would
// give it — --controllers naming the chosen controllers, leader election on
// (the Lease is not among the recorded objects), serving off, and each
// controller acting as its own ServiceAccount
// (--use-service-account-credentials, audit.go).
type InProcess struct {
	// Descriptors returns the controllers to run.
	Descriptors func() []*ctrl.ControllerDescriptor
	// Args are appended to the command line (a controller's flags).
	Args   []string
	Logger zerolog.Logger
}

// Name implements Manager.
func (m *InProcess) Name() string {
	return "kcm in-process [" + strings.Join(m.names(), ",") + "]"
}

func (m *InProcess) names() []string {
	var names []string
	for _, d := range m.Descriptors() {
		names = append(names, d.Name)
	}
	return names
}

// Start implements Manager: it parses the command line, then runs
// manager.Run until stop cancels it.
func (m *InProcess) Start(_ context.Context, c *testenv.Cluster) (func() error, error) {
	ds, err := ctrl.NewDescriptors(m.Descriptors()...)
	if err != nil {
		return nil, err
	}
	cmd := manager.NewControllerManagerCommand(ds)
	// --kube-api-content-type: the test run's (testenv.ContentType:
	// protobuf, the manager's default, or JSON under `make test-json`).
	args := []string{"--controllers=" + strings.Join(m.names(), ","), "--leader-elect=true", "--secure-port=0",
		"--use-service-account-credentials", "--kube-api-content-type=" + testenv.ContentType()}
	args = append(args, m.Args...)
	if err := cmd.Parse(args); err != nil {
		return nil, fmt.Errorf("difftest: kcm %s: %w", strings.Join(args, " "), err)
	}
	runCtx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() {
		done <- manager.Run(runCtx, manager.Config{Options: cmd.Options, Descriptors: ds, REST: c.Config(),
			Identity: "difftest", Logger: m.Logger})
	}()
	var once sync.Once
	var stopErr error
	stop := func() error {
		once.Do(func() {
			cancel()
			stopErr = <-done
		})
		return stopErr
	}
	return stop, nil
}
