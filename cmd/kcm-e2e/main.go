// Command kcm-e2e runs the upstream Kubernetes e2e specs of kcm's
// controllers twice, on a fresh test cluster each time (etcd,
// kube-apiserver, kube-scheduler, kwok nodes; package testenv): under
// kube-controller-manager alone, then under kcm for its controllers with
// kube-controller-manager running the others. It writes one markdown table
// with a row per spec (package internal/testing/e2e says how):
//
//	make e2e                                    # builds bin/kcm, then runs this with the defaults
//	go run ./cmd/kcm-e2e --kcm bin/kcm --modes kcm --focus '\[sig-apps\] ReplicaSet '
//	go run ./cmd/kcm-e2e --render-only          # the table again from the last run's reports
//
// A first run builds the e2e test binary, kube-scheduler and kwok
// (minutes each); the binaries are cached.
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"path/filepath"
	"strings"
	"syscall"
	"time"

	"github.com/rs/zerolog"

	"github.com/kcmlab/kcm/internal/testing/e2e"
	"github.com/kcmlab/kcm/manager"
	"github.com/kcmlab/kcm/testenv"
)

func main() { os.Exit(run(os.Args[1:], os.Stdout, os.Stderr)) }

func run(args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("kcm-e2e", flag.ContinueOnError)
	fs.SetOutput(stderr)
	var (
		cfg        e2e.Config
		out        = fs.String("out", "docs/e2e/RESULTS.md", "write the markdown table to this file")
		modes      = fs.String("modes", "kube-controller-manager,kcm", "which runs to make, in order: kube-controller-manager (alone), kcm (with kube-controller-manager for the other controllers)")
		nodes      = fs.Int("nodes", 3, "kwok nodes, one per zone")
		renderOnly = fs.Bool("render-only", false, "run nothing: render the table from the reports in --workdir")
		kcmArgs    = fs.String("kcm-args", "", "extra flags for kcm, space-separated, e.g. --v=4")
		buildOnly  = fs.Bool("build-only", false, "build (or find cached) the e2e test binary, print its path, and exit")
	)
	fs.StringVar(&cfg.KCMBinary, "kcm", "bin/kcm", "the kcm binary (make e2e builds it from this tree)")
	fs.StringVar(&cfg.KubeBinary, "kube-controller-manager", "", "the kube-controller-manager binary; empty: testenv's cached build")
	fs.StringVar(&cfg.E2EBinary, "e2e-binary", "", "the e2e test binary; empty: testenv's cached build (built on first use)")
	fs.StringVar(&cfg.WorkDir, "workdir", defaultWorkDir, "where the reports and the logs of every process go")
	fs.StringVar(&cfg.Focus, "focus", e2e.Focus(e2e.Groups), "ginkgo --focus: the specs to run")
	fs.StringVar(&cfg.Skip, "skip", e2e.Skip(e2e.Exclusions), "ginkgo --skip: specs of the focus left out")
	fs.StringVar(&cfg.LabelFilter, "label-filter", "", "ginkgo --label-filter")
	fs.DurationVar(&cfg.Timeout, "timeout", 3*time.Hour, "bound on one run of the e2e binary")
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return 0
		}
		return 2
	}
	var runModes []e2e.Mode
	for _, m := range strings.Split(*modes, ",") {
		switch mode := e2e.Mode(strings.TrimSpace(m)); mode {
		case e2e.KubeOnly, e2e.WithKCM:
			runModes = append(runModes, mode)
		default:
			fmt.Fprintf(stderr, "kcm-e2e: unknown mode %q (want %s or %s)\n", m, e2e.KubeOnly, e2e.WithKCM)
			return 2
		}
	}
	if *nodes < 1 {
		fmt.Fprintln(stderr, "kcm-e2e: at least one node is needed")
		return 2
	}
	descriptors := manager.NewControllerDescriptors()
	cfg.Controllers = descriptors.KnownControllers()
	for _, d := range descriptors.All() {
		for _, f := range d.Flags {
			cfg.ControllerFlags = append(cfg.ControllerFlags, f.Name)
		}
	}
	cfg.Progress = stderr
	cfg.Log = zerolog.New(zerolog.ConsoleWriter{Out: stderr, TimeFormat: "15:04:05"}).With().Timestamp().Logger()
	if *buildOnly {
		began := time.Now()
		bin, err := testenv.EnsureE2E(context.Background(), cfg.Progress, cfg.Log)
		if err != nil {
			fmt.Fprintf(stderr, "kcm-e2e: %v\n", err)
			return 1
		}
		fmt.Fprintf(stdout, "%s\n", bin)
		cfg.Log.Info().Str("took", time.Since(began).Round(time.Second).String()).Msg("e2e test binary ready")
		return 0
	}
	cfg.Nodes = Nodes(*nodes)
	cfg.KCMArgs = strings.Fields(*kcmArgs)
	if !*renderOnly {
		abs, err := filepath.Abs(cfg.KCMBinary)
		if err == nil {
			_, err = os.Stat(abs)
		}
		if err != nil {
			fmt.Fprintf(stderr, "kcm-e2e: the kcm binary: %v (build it: go build -o bin/kcm ./cmd/kcm)\n", err)
			return 2
		}
		cfg.KCMBinary = abs
		ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
		defer stop()
		if code := runModesIn(ctx, cfg, runModes, stderr); code != 0 {
			return code
		}
	}
	page, err := render(cfg, *nodes)
	if err != nil {
		fmt.Fprintf(stderr, "kcm-e2e: %v\n", err)
		return 1
	}
	md := page.Markdown()
	if err := os.MkdirAll(filepath.Dir(*out), 0o755); err == nil {
		err = os.WriteFile(*out, []byte(md), 0o644)
	}
	if err != nil {
		fmt.Fprintf(stderr, "kcm-e2e: %v\n", err)
		return 1
	}
	s := e2e.Summarize(page.Rows)
	fmt.Fprintf(stdout, "kcm-e2e: %d specs: %d passed under both, %d regressions, %d failed under both (%d without a listed reason); table in %s\n",
		s.Total, s.ByVerdict[e2e.BothPassed], s.ByVerdict[e2e.Regression], s.ByVerdict[e2e.BothFailed], s.Unexplained, *out)
	if s.ByVerdict[e2e.Regression] > 0 {
		return 1
	}
	return 0
}

// runModesIn makes the runs in order and saves each one's result.
func runModesIn(ctx context.Context, cfg e2e.Config, modes []e2e.Mode, stderr io.Writer) int {
	if cfg.E2EBinary == "" {
		began := time.Now()
		bin, err := testenv.EnsureE2E(ctx, cfg.Progress, cfg.Log)
		if err != nil {
			fmt.Fprintf(stderr, "kcm-e2e: %v\n", err)
			return 1
		}
		cfg.Log.Info().Str("binary", bin).Str("took", time.Since(began).Round(time.Second).String()).Msg("e2e test binary ready")
		cfg.E2EBinary = bin
	}
	commit, machine := machineLine(ctx)
	for _, m := range modes {
		res, err := e2e.RunMode(ctx, cfg, m)
		res.Commit, res.Machine = commit, machine
		if err != nil {
			fmt.Fprintf(stderr, "kcm-e2e: run %s: %v\n", m, err)
			return 1
		}
		if err := res.Save(cfg.WorkDir); err != nil {
			fmt.Fprintf(stderr, "kcm-e2e: %v\n", err)
			return 1
		}
		cfg.Log.Info().Str("mode", string(m)).Str("e2e", res.Wall.Round(time.Second).String()).Str("report", res.Report).Msg("run done")
	}
	return 0
}
