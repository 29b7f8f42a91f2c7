package e2e

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/rs/zerolog"

	"github.com/kcmlab/kcm/internal/testing/managerbench"
	"github.com/kcmlab/kcm/testenv"
)

// Mode says which controller-manager configuration a run has.
type Mode string

const (
	// KubeOnly runs kube-controller-manager alone with every controller
	// ("*"): the reference.
	KubeOnly Mode = "kube-controller-manager"
	// WithKCM runs kcm with its controllers and kube-controller-manager
	// with every other one ("*,-<each of kcm's>").
	WithKCM Mode = "kcm"
)

// Config configures a run.
type Config struct {
	// KCMBinary is kcm's binary (cmd/kcm) built from the tree under test.
	KCMBinary string
	// KubeBinary is kube-controller-manager; empty: testenv's cached build.
	KubeBinary string
	// E2EBinary is the e2e test binary; empty: testenv's cached build.
	E2EBinary string
	// KCMArgs are extra flags for kcm (--v=4 for its debug log).
	KCMArgs []string
	// Controllers are kcm's controllers, by kube-controller-manager's
	// names (manager.NewControllerDescriptors().KnownControllers()).
	Controllers []string
	// ControllerFlags are the names of the flags kcm's controllers
	// declare (every descriptor's Flags): a run hands kcm the cluster's
	// files through those of them that name one (KCMFileArgs).
	ControllerFlags []string
	// Focus, Skip and LabelFilter select the specs (ginkgo's --focus,
	// --skip, --label-filter); empty means none.
	Focus, Skip, LabelFilter string
	// Nodes are the kwok nodes of each run's cluster.
	Nodes []testenv.NodeSpec
	// WorkDir receives each run's reports and logs.
	WorkDir string
	// Timeout bounds one run of the e2e binary.
	Timeout time.Duration
	// Progress receives the lines a person waits on (builds, spec
	// results); Log testenv's and the runner's steps.
	Progress io.Writer
	Log      zerolog.Logger
}

// Result is what one run left in the work directory.
type Result struct {
	Mode Mode
	// Report is the path of ginkgo's JSON report; E2ELog the e2e
	// binary's output.
	Report, E2ELog string
	// Managers says which process ran which controllers.
	Managers string
	// Wall is the e2e binary's wall-clock time.
	Wall time.Duration
	// Began is when the run started; Commit the kcm tree's commit and
	// Machine the machine it ran on (set by the caller, for the page).
	Began   time.Time
	Commit  string
	Machine string
}

// ReportPath is where a mode's ginkgo JSON report is written in dir.
func ReportPath(dir string, m Mode) string { return filepath.Join(dir, string(m)+".json") }

// kubeControllers is kube-controller-manager's --controllers for a mode.
func kubeControllers(m Mode, kcm []string) []string {
	list := []string{"*"}
	if m == WithKCM {
		for _, c := range kcm {
			list = append(list, "-"+c)
		}
	}
	return list
}

// kcmSyncedLine is what kcm logs once its caches synced and its
// controllers start (manager/start.go).
const kcmSyncedLine = "caches synced; starting controllers"

// e2eStopGrace is how long the e2e binary and kcm get after SIGTERM.
const e2eStopGrace = 30 * time.Second

// RunMode starts a fresh cluster with kube-scheduler, cfg.Nodes, the
// claim binder and DefaultStorageClass, the controller managers of mode m, and runs the e2e binary against it. The
// failures of specs are in the report, not in the error: an error means
// the run itself did not happen or did not finish (the cluster or a
// manager did not start, kcm exited, the e2e binary wrote no report).
func RunMode(ctx context.Context, cfg Config, m Mode) (res Result, err error) {
	res = Result{Mode: m, Report: ReportPath(cfg.WorkDir, m), E2ELog: filepath.Join(cfg.WorkDir, string(m)+"-e2e.log"),
		Began: time.Now()}
	if len(cfg.Controllers) == 0 {
		return res, errors.New("e2e: kcm's controller list is empty")
	}
	if err := os.MkdirAll(cfg.WorkDir, 0o755); err != nil {
		return res, fmt.Errorf("e2e: %w", err)
	}
	_ = os.Remove(res.Report) // a report left by an earlier run must not pass for this one's
	e2eBin := cfg.E2EBinary
	if e2eBin == "" {
		if e2eBin, err = testenv.EnsureE2E(ctx, cfg.Progress, cfg.Log); err != nil {
			return res, err
		}
	}
	cl, err := testenv.Start(ctx, testenv.Options{Logger: cfg.Log, Progress: cfg.Progress, Scheduler: true, Nodes: cfg.Nodes,
		ClaimBinder: true})
	if err != nil {
		return res, err
	}
	defer cl.Stop()
	if err := createDefaultStorageClass(ctx, cl.Config()); err != nil {
		return res, err
	}

	kubeList := kubeControllers(m, cfg.Controllers)
	res.Managers = "kube-controller-manager --controllers=" + strings.Join(kubeList, ",")
	if m == WithKCM {
		kcm, err := startKCM(ctx, cfg, cl)
		if err != nil {
			return res, err
		}
		defer func() {
			if serr := kcm.Stop(e2eStopGrace); serr != nil && err == nil {
				err = fmt.Errorf("e2e: kcm did not run to the end of the e2e run: %w", serr)
			}
		}()
		res.Managers = "kcm --controllers=" + strings.Join(cfg.Controllers, ",") + "; " + res.Managers
	}
	cm, err := cl.StartKubeControllerManager(ctx, testenv.KCMOptions{
		Controllers: kubeList,
		Binary:      cfg.KubeBinary,
		Logger:      cfg.Log,
		Progress:    cfg.Progress,
		// The serviceaccount-token controller runs only with the key
		// kube-apiserver signs tokens with, as in a real cluster.
		Args: append([]string{"--service-account-private-key-file=" + cl.ServiceAccountKeyFile()}, managerArgs...),
	})
	if err != nil {
		return res, err
	}
	defer func() {
		// The cluster's directory, where its log is, goes with the cluster.
		_ = copyFile(cm.LogPath(), filepath.Join(cfg.WorkDir, string(m)+"-kube-controller-manager.log"))
	}()

	began := time.Now()
	runErr := runE2E(ctx, cfg, e2eBin, cl.KubeconfigPath(), res)
	res.Wall = time.Since(began)
	if _, statErr := os.Stat(res.Report); statErr != nil {
		return res, fmt.Errorf("e2e: %s: no report (%v): %w; see %s", m, statErr, runErr, res.E2ELog)
	}
	select {
	case <-cm.Exited():
		return res, fmt.Errorf("e2e: %s: kube-controller-manager exited during the run; see its log in %s", m, cfg.WorkDir)
	default:
	}
	return res, nil
}

// managerArgs are flags both managers get: the pod garbage collector's
// spec ("Pod garbage collector", test/e2e/node/pod_gc.go) needs
// --terminated-pod-gc-threshold=100, the value upstream's test clusters
// run with (cluster/gce's TERMINATED_POD_GC_THRESHOLD for tests).
var managerArgs = []string{"--terminated-pod-gc-threshold=100"}

// KCMFileArgs are the flags that give kcm the cluster files
// kube-controller-manager gets in a run, for those of kcm's controller
// flags (controllerFlags) that read one: the key kube-apiserver verifies
// ServiceAccount tokens with (--service-account-private-key-file, the
// serviceaccount-token controller's). A flag kcm does not have is not
// given: kcm refuses kube-controller-manager's flags it lacks.
// --root-ca-file is given to neither manager: both publish the CA of
// their kubeconfig, the cluster's.
func KCMFileArgs(controllerFlags []string, serviceAccountKeyFile string) []string {
	var args []string
	if slices.Contains(controllerFlags, "service-account-private-key-file") {
		args = append(args, "--service-account-private-key-file="+serviceAccountKeyFile)
	}
	return args
}

// startKCM runs kcm with its controllers against the cluster and waits
// until its caches synced.
func startKCM(ctx context.Context, cfg Config, cl *testenv.Cluster) (*managerbench.Proc, error) {
	port, err := freePort()
	if err != nil {
		return nil, err
	}
	extra := append(append([]string(nil), managerArgs...), KCMFileArgs(cfg.ControllerFlags, cl.ServiceAccountKeyFile())...)
	mgr := managerbench.Manager{Label: "kcm", Kind: managerbench.KCM, Binary: cfg.KCMBinary, Controllers: cfg.Controllers,
		ExtraArgs: append(extra, cfg.KCMArgs...)}
	args := mgr.Args(cl.KubeconfigPath(), port, filepath.Join(cfg.WorkDir, "kcm-certs"), 50, 100)
	proc, err := managerbench.StartProc("kcm", cfg.KCMBinary, args, filepath.Join(cfg.WorkDir, "kcm.log"), kcmSyncedLine)
	if err != nil {
		return nil, err
	}
	wctx, cancel := context.WithTimeout(ctx, 2*time.Minute)
	defer cancel()
	if _, err := proc.WaitLine(wctx, kcmSyncedLine); err != nil {
		_ = proc.Stop(e2eStopGrace)
		return nil, err
	}
	return proc, nil
}

// The headers ginkgo's verbose output starts a finished spec's report
// with: "• [12.345 seconds]" for a pass, "• [FAILED] [...]" and the like
// for a failure (github.com/onsi/ginkgo/v2/reporters, DefaultReporter).
var (
	specDone     = "• ["
	specFailures = []string{"• [FAILED]", "• [TIMEDOUT]", "• [PANICKED]", "• [INTERRUPTED]", "• [ABORTED]"}
)

// progressInterval is how often a run reports how far it got.
const progressInterval = 2 * time.Minute

// runE2E runs the e2e binary, its output into res.E2ELog, and tells
// cfg.Progress every progressInterval how many specs finished.
func runE2E(ctx context.Context, cfg Config, bin, kubeconfig string, res Result) error {
	args := E2EArgs(kubeconfig, res.Report, cfg)
	cfg.Log.Info().Str("mode", string(res.Mode)).Str("log", res.E2ELog).Strs("args", args).Msg("running the e2e suite")
	proc, err := managerbench.StartProc("e2e.test", bin, args, res.E2ELog, append([]string{specDone}, specFailures...)...)
	if err != nil {
		return err
	}
	timeout := cfg.Timeout
	if timeout <= 0 {
		timeout = 3 * time.Hour
	}
	t := time.NewTimer(timeout)
	defer t.Stop()
	tick := time.NewTicker(progressInterval)
	defer tick.Stop()
	for {
		select {
		case <-tick.C:
			failed := 0
			for _, f := range specFailures {
				failed += proc.Log.Marks(f).Count
			}
			fmt.Fprintf(progressOut(cfg), "e2e %s: %d specs finished, %d failed, %s elapsed\n",
				res.Mode, proc.Log.Marks(specDone).Count, failed, time.Since(proc.Started).Round(time.Second))
		case <-proc.Exited():
			return proc.Stop(e2eStopGrace) // nil after a clean exit; ginkgo exits 1 when a spec failed
		case <-ctx.Done():
			_ = proc.Stop(e2eStopGrace)
			return ctx.Err()
		case <-t.C:
			_ = proc.Stop(e2eStopGrace) // ginkgo writes its report on SIGTERM
			return fmt.Errorf("e2e: %s: the e2e binary ran past %s", res.Mode, timeout)
		}
	}
}

func progressOut(cfg Config) io.Writer {
	if cfg.Progress == nil {
		return os.Stderr
	}
	return cfg.Progress
}

// E2EArgs is the e2e binary's command line: the cluster, the skeleton
// provider (no cloud), no node may be unready, the spec selection, the
// JSON report, and no test or suite timeout of its own (the runner bounds
// the run).
func E2EArgs(kubeconfig, report string, cfg Config) []string {
	args := []string{
		"-test.timeout=0",
		"--kubeconfig=" + kubeconfig,
		"--provider=skeleton",
		"--allowed-not-ready-nodes=0",
		"--ginkgo.json-report=" + report,
		"--ginkgo.timeout=24h",
		"--ginkgo.no-color",
		"--ginkgo.v",
	}
	if cfg.Focus != "" {
		args = append(args, "--ginkgo.focus="+cfg.Focus)
	}
	if cfg.Skip != "" {
		args = append(args, "--ginkgo.skip="+cfg.Skip)
	}
	if cfg.LabelFilter != "" {
		args = append(args, "--ginkgo.label-filter="+cfg.LabelFilter)
	}
	return args
}
