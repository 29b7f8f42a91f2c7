package testenv

import (
	"context"
	"fmt"
	"os"
	"path/filepath"

	"go.yaml.in/yaml/v3"
)

// StartScheduler builds (or finds cached) kube-scheduler at
// KubernetesVersion and runs it against the cluster, returning once its
// /readyz answers ok (its informers have synced). It is idempotent: while
// a scheduler started by an earlier call runs, it returns nil at once; if
// that one has exited, it starts a new one. Cluster.Stop ends it.
//
// kube-scheduler reads a KubeSchedulerConfiguration that points it at the
// cluster's kubeconfig (a member of system:masters) with leader election
// off, serves HTTPS on a free loopback port with a self-signed certificate
// and no delegated authentication or authorization (only /healthz, /readyz
// and /livez are open), and logs at --v=2 into kube-scheduler.log in the
// cluster's directory.
func (c *Cluster) StartScheduler(ctx context.Context) error {
	c.helpers.Lock()
	defer c.helpers.Unlock()
	return c.startHelperDaemon(ctx, &c.scheduler, func(ctx context.Context) (daemonSpec, error) {
		bin := c.opts.SchedulerBinary
		if bin == "" {
			var err error
			if bin, err = EnsureScheduler(ctx, c.progress, c.log); err != nil {
				return daemonSpec{}, err
			}
		}
		configPath := filepath.Join(c.dir, "kube-scheduler.yaml")
		if err := writeSchedulerConfig(configPath, c.kubeconfigPath); err != nil {
			return daemonSpec{}, err
		}
		certDir := filepath.Join(c.dir, "kube-scheduler-certs")
		if err := os.MkdirAll(certDir, 0o700); err != nil {
			return daemonSpec{}, fmt.Errorf("testenv: %w", err)
		}
		return daemonSpec{
			name:      "kube-scheduler",
			bin:       bin,
			logPath:   filepath.Join(c.dir, "kube-scheduler.log"),
			args:      func(port int) []string { return schedulerArgs(configPath, certDir, port) },
			healthURL: func(port int) string { return fmt.Sprintf("https://127.0.0.1:%d/readyz", port) },
		}, nil
	})
}

// schedulerArgs are kube-scheduler's flags; everything else is in the
// configuration file. Without --tls-cert-file it writes a self-signed
// serving certificate into certDir.
func schedulerArgs(configPath, certDir string, port int) []string {
	return []string{
		"--config=" + configPath,
		"--bind-address=127.0.0.1",
		fmt.Sprintf("--secure-port=%d", port),
		"--cert-dir=" + certDir,
		"--v=2",
	}
}

// schedulerConfig is the part of kube-scheduler's
// KubeSchedulerConfiguration (kubescheduler.config.k8s.io/v1) testenv
// sets; everything else keeps its default. A configuration file replaces
// the deprecated --kubeconfig flag (with --config, kube-scheduler ignores
// it).
type schedulerConfig struct {
	APIVersion       string `yaml:"apiVersion"`
	Kind             string `yaml:"kind"`
	ClientConnection struct {
		Kubeconfig string `yaml:"kubeconfig"`
	} `yaml:"clientConnection"`
	LeaderElection struct {
		LeaderElect bool `yaml:"leaderElect"`
	} `yaml:"leaderElection"`
}

// marshalSchedulerConfig renders the configuration for a cluster's
// kubeconfig, leader election off: a test cluster has one scheduler.
func marshalSchedulerConfig(kubeconfig string) ([]byte, error) {
	cfg := schedulerConfig{APIVersion: "kubescheduler.config.k8s.io/v1", Kind: "KubeSchedulerConfiguration"}
	cfg.ClientConnection.Kubeconfig = kubeconfig
	b, err := yaml.Marshal(&cfg)
	if err != nil {
		return nil, fmt.Errorf("encode kube-scheduler configuration: %w", err)
	}
	return b, nil
}

func writeSchedulerConfig(path, kubeconfig string) error {
	b, err := marshalSchedulerConfig(kubeconfig)
	if err != nil {
		return err
	}
	if err := os.WriteFile(path, b, 0o600); err != nil {
		return fmt.Errorf("write kube-scheduler configuration: %w", err)
	}
	return nil
}
