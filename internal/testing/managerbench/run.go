package managerbench

import (
	"context"
	"crypto/tls"
	"errors"
	"fmt"
	"io"
	"os"
	"slices"
	"time"

	"github.com/rs/zerolog"

	"github.com/kcmlab/kcm/kube/rest"
	"github.com/kcmlab/kcm/testenv"
)

// The --controllers lists of the configurations measured, with
// kube-controller-manager v1.37's controller names (kcm accepts the same
// names).
var (
	// SameControllers is the set kcm has, the set of the reference figure
	// (150-164 MB) the manager issue's target was set against: the
	// comparison is between managers running exactly these.
	SameControllers = []string{"serviceaccount-controller", "replicaset-controller", "deployment-controller",
		"garbage-collector-controller", "namespace-controller"}
)

// Reference names a kube-controller-manager configuration measured for
// reference in the sync benchmark, besides the one with kcm's controllers.
type Reference string

const (
	// RefDefault runs kube-controller-manager's default set ("*").
	RefDefault Reference = "default"
)

// Config configures Run.
type Config struct {
	KCMBinary  string   // kcm, built from the tree measured
	KubeBinary string   // kube-controller-manager; empty: testenv's cached build (built on first use)
	KubeArgs   []string // extra flags for every kube-controller-manager measured (not the populator)
	Repo       string   // the kcm checkout, for the commit
	WorkDir    string   // logs of every process; empty: a temporary directory that is kept

	Runs       int        // runs per manager and benchmark
	Scale      bool       // run the scale benchmark
	Sync       bool       // run the sync benchmark
	Endpoints  bool       // run the endpoints benchmark
	Nodes      bool       // run the nodes (node lifecycle) benchmark
	NLWorkload NLWorkload // the nodes benchmark's cluster and outage
	ESWorkload ESWorkload // the endpoints benchmark's workload
	// ESSameReference adds, to the endpoints benchmark, a
	// kube-controller-manager with exactly kcm's controllers when kcm lacks
	// some of EndpointControllers: the like-for-like memory comparison.
	ESSameReference bool
	Quotas          bool        // run the quotas (resourcequota-controller) benchmark
	RQWorkload      RQWorkload  // the quotas benchmark's workload
	StatefulSets    bool        // run the StatefulSet benchmark
	STSWorkload     STSWorkload // the StatefulSet benchmark's workload
	// STSManagers are the managers of the StatefulSet benchmark, by label
	// ("kcm", "kube-controller-manager"); empty means both.
	STSManagers []string
	References  []Reference    // extra kube-controller-manager configurations in the sync benchmark
	Population  Population     // the sync benchmark's workload
	Replicas    int            // the scale benchmark's Deployment
	QPS, Burst  int            // the managers' client rate in both benchmarks
	Settle      time.Duration  // how long a manager runs after the probe before the last sample
	Timeout     time.Duration  // bound on each wait for a manager
	Log         zerolog.Logger // progress
	Progress    io.Writer      // build progress of testenv (nil: stderr)
}

// bench is the state of a run: the configuration and the cluster of the
// benchmark in progress.
type bench struct {
	cfg struct {
		QPS, Burst    int
		ScaleReplicas int
		Settle        time.Duration
		Timeout       time.Duration
	}
	c   *cluster
	tc  *testenv.Cluster
	dir string
}

// Run runs the benchmarks cfg selects and returns the report. Each
// benchmark gets its own fresh testenv cluster, stopped at its end.
func Run(ctx context.Context, cfg Config) (*Report, error) {
	if cfg.Runs < 1 {
		return nil, errors.New("managerbench: at least one run is needed")
	}
	if cfg.KCMBinary == "" {
		return nil, errors.New("managerbench: no kcm binary given")
	}
	if cfg.WorkDir == "" {
		d, err := os.MkdirTemp("", "kcm-bench-manager-")
		if err != nil {
			return nil, fmt.Errorf("managerbench: %w", err)
		}
		cfg.WorkDir = d
	}
	if cfg.KubeBinary == "" {
		bin, err := testenv.EnsureControllerManager(ctx, cfg.Progress, cfg.Log)
		if err != nil {
			return nil, err
		}
		cfg.KubeBinary = bin
	}
	kcm := Manager{Label: "kcm", Kind: KCM, Binary: cfg.KCMBinary, Controllers: SameControllers}
	kube := Manager{Label: "kube-controller-manager", Kind: Kube, Binary: cfg.KubeBinary, Controllers: SameControllers,
		ExtraArgs: cfg.KubeArgs}
	populator := kube
	populator.ExtraArgs = nil
	rep := &Report{Machine: ReadMachine(ctx, cfg.Repo), KubeVersion: testenv.KubernetesVersion, Config: cfg,
		WorkDir: cfg.WorkDir, Began: time.Now()}
	cfg.Log.Info().Str("logs", cfg.WorkDir).Str("load", rep.Machine.LoadBefore.String()).Msg("manager benchmark")

	b := &bench{dir: cfg.WorkDir}
	b.cfg.QPS, b.cfg.Burst, b.cfg.ScaleReplicas = cfg.QPS, cfg.Burst, cfg.Replicas
	b.cfg.Settle, b.cfg.Timeout = cfg.Settle, cfg.Timeout

	if cfg.Scale {
		err := b.withCluster(ctx, cfg, testenv.Options{}, func() error {
			for run := range cfg.Runs {
				for _, m := range order([]Manager{kcm, kube}, run) {
					cfg.Log.Info().Str("manager", m.Label).Int("run", run+1).Int("replicas", cfg.Replicas).Msg("scale benchmark")
					r, err := b.runScale(ctx, m, run+1)
					if err != nil {
						return err
					}
					cfg.Log.Info().Str("manager", m.Label).Stringer("all pods", r.AllPods).Stringer("ready", r.Ready).Msg("scale run done")
					rep.Scale = append(rep.Scale, r)
				}
			}
			return nil
		}, &rep.ScaleLoad)
		if err != nil {
			return rep, err
		}
	}
	if cfg.Sync {
		managers := []Manager{kcm, kube}
		for _, ref := range cfg.References {
			switch ref {
			case RefDefault:
				managers = append(managers, Manager{Label: "kube-controller-manager default", Kind: Kube, Binary: cfg.KubeBinary, ExtraArgs: cfg.KubeArgs})
			default:
				return rep, fmt.Errorf("managerbench: unknown reference %q (want %q)", ref, RefDefault)
			}
		}
		err := b.withCluster(ctx, cfg, testenv.Options{}, func() error {
			cfg.Log.Info().Int("pods", cfg.Population.Pods()).Msg("populating the sync benchmark's cluster")
			t, err := populate(ctx, b.c, populator, cfg.Population, cfg.WorkDir, cfg.Log)
			if err != nil {
				return err
			}
			rep.Populate = t
			cfg.Log.Info().Stringer("took", t.Total).Stringer("create", t.Create).Stringer("ready", t.Ready).Stringer("settle", t.Settle).Msg("populated")
			for run := range cfg.Runs {
				for _, m := range order(managers, run) {
					cfg.Log.Info().Str("manager", m.Label).Int("run", run+1).Msg("sync benchmark")
					r, err := b.runSync(ctx, m, run+1)
					if err != nil {
						return err
					}
					cfg.Log.Info().Str("manager", m.Label).Stringer("probe", r.Probe).Int64("rss MiB", r.AtProbe.RSS>>20).
						Msg("sync run done")
					rep.Sync = append(rep.Sync, r)
				}
			}
			return nil
		}, &rep.SyncLoad)
		if err != nil {
			return rep, err
		}
	}
	if cfg.Endpoints {
		if err := b.runEndpointsAll(ctx, cfg, kcm, kube, rep); err != nil {
			return rep, err
		}
	}
	if cfg.StatefulSets {
		if err := b.runStatefulSetsAll(ctx, cfg, kcm, kube, rep); err != nil {
			return rep, err
		}
	}
	if cfg.Nodes {
		if err := b.runNodesAll(ctx, cfg, kcm, kube, rep); err != nil {
			return rep, err
		}
	}
	if cfg.Quotas {
		if err := b.runQuotasAll(ctx, cfg, kcm, kube, rep); err != nil {
			return rep, err
		}
	}
	rep.Machine.LoadAfter, _ = ReadLoadAvg()
	rep.Took = time.Since(rep.Began)
	return rep, nil
}

// runStatefulSetsAll runs the StatefulSet benchmark: each run, each
// manager of cfg.STSManagers with the statefulset-controller alone on a
// cluster of its own.
func (b *bench) runStatefulSetsAll(ctx context.Context, cfg Config, kcm, kube Manager, rep *Report) error {
	kcm.Controllers, kube.Controllers = []string{StatefulSetController}, []string{StatefulSetController}
	managers, err := pickManagers([]Manager{kcm, kube}, cfg.STSManagers)
	if err != nil {
		return err
	}
	for _, m := range managers {
		if m.Kind == KCM {
			if err := kcmHas(ctx, m.Binary, StatefulSetController); err != nil {
				return err
			}
		}
	}
	for run := range cfg.Runs {
		for _, m := range order(managers, run) {
			cfg.Log.Info().Str("manager", m.Label).Int("run", run+1).Int("sets", cfg.STSWorkload.Sets).
				Int("replicas", cfg.STSWorkload.Replicas).Msg("statefulset benchmark")
			r, err := b.runStatefulSets(ctx, cfg, m, run+1)
			if err != nil {
				return err
			}
			cfg.Log.Info().Str("manager", m.Label).Stringer("all ready", r.Converged).Stringer("rolled", r.Rolled).
				Int64("rss MiB", r.AtEnd.RSS>>20).Msg("statefulset run done")
			rep.StatefulSets = append(rep.StatefulSets, r)
		}
	}
	return nil
}

// pickManagers is the managers of ms whose labels are in labels, in ms's
// order; all of ms when labels is empty.
func pickManagers(ms []Manager, labels []string) ([]Manager, error) {
	if len(labels) == 0 {
		return ms, nil
	}
	var out []Manager
	for _, l := range labels {
		found := false
		for _, m := range ms {
			if m.Label == l {
				found = true
			}
		}
		if !found {
			return nil, fmt.Errorf("managerbench: unknown manager %q", l)
		}
	}
	for _, m := range ms {
		if contains(labels, m.Label) {
			out = append(out, m)
		}
	}
	return out, nil
}

// runEndpointsAll runs the endpoints benchmark: each run, each manager
// with the endpoint controllers (kcm: those it has) on a cluster of its
// own.
func (b *bench) runEndpointsAll(ctx context.Context, cfg Config, kcm, kube Manager, rep *Report) error {
	has, err := kcmControllers(ctx, cfg.KCMBinary)
	if err != nil {
		return err
	}
	kcm.Controllers, kube.Controllers = has, EndpointControllers
	managers := []Manager{kcm, kube}
	if cfg.ESSameReference && !slices.Equal(has, EndpointControllers) {
		ref := kube
		ref.Label, ref.Controllers = ESSameLabel, has
		managers = append(managers, ref)
	}
	for run := range cfg.Runs {
		for _, m := range order(managers, run) {
			cfg.Log.Info().Str("manager", m.Label).Int("run", run+1).Int("services", cfg.ESWorkload.Services).
				Int("pods", cfg.ESWorkload.Pods()).Strs("controllers", m.Controllers).Msg("endpoints benchmark")
			r, err := b.runEndpoints(ctx, cfg, m, run+1)
			if err != nil {
				return err
			}
			lagE, _ := r.EndpointsLag()
			cfg.Log.Info().Str("manager", m.Label).Stringer("ready→endpoints", lagE).Stringer("converged", r.Converged).
				Int64("rss MiB", r.AtEnd.RSS>>20).Msg("endpoints run done")
			rep.Endpoints = append(rep.Endpoints, r)
		}
	}
	return nil
}

// withCluster runs fn with b.c and b.tc on a fresh testenv cluster started
// with opts, recording the load average before and after.
func (b *bench) withCluster(ctx context.Context, cfg Config, opts testenv.Options, fn func() error, load *[2]LoadAvg) error {
	load[0], _ = ReadLoadAvg()
	opts.Logger, opts.Progress = cfg.Log, cfg.Progress
	tc, err := testenv.Start(ctx, opts)
	if err != nil {
		return err
	}
	defer tc.Stop()
	b.tc = tc
	rc := tc.Config()
	rc.QPS = -1 // the harness is not what is measured
	client, err := rest.NewClient(rc)
	if err != nil {
		return fmt.Errorf("managerbench: %w", err)
	}
	defer client.CloseIdleConnections()
	scraper, _, _, err := tc.ClientCA().ClientCertificate("kcm-bench-scraper", "system:masters")
	if err != nil {
		return fmt.Errorf("managerbench: %w", err)
	}
	b.c = newCluster(client, tc.KubeconfigPath(),
		&tls.Config{InsecureSkipVerify: true, Certificates: []tls.Certificate{scraper}})
	err = fn()
	load[1], _ = ReadLoadAvg()
	return err
}

// order is the managers in the order of one run: as given on even runs,
// reversed on odd ones, so that neither always runs first (on a warmer
// apiserver, or after the other's leftovers).
func order(ms []Manager, run int) []Manager {
	out := slices.Clone(ms)
	if run%2 == 1 {
		slices.Reverse(out)
	}
	return out
}
