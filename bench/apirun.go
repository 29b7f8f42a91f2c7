package bench

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"runtime/pprof"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/kcmlab/kcm/internal/testing/managerbench"
)

// APISample is one sync of the real-apiserver benchmark: what the process
// that synced measured itself (SyncSample), and what was read from the
// outside — the CPU kube-apiserver and etcd spent meanwhile, the syncing
// process's peak resident memory, and how far kube-apiserver's resident
// memory rose above what it held before.
type APISample struct {
	SyncSample
	Round            int
	ServerCPU        time.Duration // kube-apiserver, from the child's start to its exit
	EtcdCPU          time.Duration // etcd, likewise
	ClientPeakRSS    uint64        // the syncing process's peak RSS over its life, bytes
	ServerPeakGrowth uint64        // kube-apiserver's peak RSS during the run minus its RSS before, bytes
}

// APIRunner runs syncs in child processes against one populated cluster.
type APIRunner struct {
	// Command starts a child; the runner appends
	// "-variant <name> -kubeconfig <path> -pods <n>". The child runs
	// SyncOnce and prints its SyncSample as JSON on stdout.
	Command    []string
	Kubeconfig string
	Pods       int
	// APIServerPID and EtcdPID are read in /proc around each run.
	APIServerPID, EtcdPID int
	// Stderr gets the children's stderr; nil discards it.
	Stderr io.Writer
	// ProfileDir, when set, has each child write a CPU profile of its
	// sync there (RunChild's -cpuprofile-dir). Profiled samples are not
	// for the tables: the profiler costs CPU of its own.
	ProfileDir string
}

// RunChild is the child's side of APIRunner: it parses args ("-variant
// <name> -kubeconfig <path> -pods <n>", and optionally "-timeout <d>" and
// "-cpuprofile-dir <dir>"), runs SyncOnce and writes the SyncSample as one
// JSON line to stdout. With -cpuprofile-dir the sync runs under the CPU
// profiler, whose profile goes to <dir>/<variant>-<pid>.pprof ("/" in the
// variant's name written "_").
func RunChild(args []string, stdout io.Writer) error {
	fs := flag.NewFlagSet("apisync child", flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	variant := fs.String("variant", "", "variant name")
	kubeconfig := fs.String("kubeconfig", "", "the cluster's kubeconfig")
	pods := fs.Int("pods", 0, "pods in the cluster")
	timeout := fs.Duration("timeout", 5*time.Minute, "bound on the sync")
	profileDir := fs.String("cpuprofile-dir", "", "write a CPU profile of the sync into this directory")
	if err := fs.Parse(args); err != nil {
		return fmt.Errorf("bench: child: %w", err)
	}
	if *variant == "" || *kubeconfig == "" || *pods <= 0 {
		return errors.New("bench: child: -variant, -kubeconfig and a positive -pods are required")
	}
	vs, err := LookupAPIVariants(*variant)
	if err != nil {
		return err
	}
	if len(vs) != 1 {
		return fmt.Errorf("bench: child: -variant %q names %d variants, want one", *variant, len(vs))
	}
	ctx, cancel := context.WithTimeout(context.Background(), *timeout)
	defer cancel()
	if *profileDir != "" {
		name := fmt.Sprintf("%s-%d.pprof", strings.ReplaceAll(vs[0].Name, "/", "_"), os.Getpid())
		f, err := os.Create(filepath.Join(*profileDir, name))
		if err != nil {
			return fmt.Errorf("bench: child: %w", err)
		}
		defer f.Close()
		if err := pprof.StartCPUProfile(f); err != nil {
			return fmt.Errorf("bench: child: %w", err)
		}
		defer pprof.StopCPUProfile()
	}
	s, err := SyncOnce(ctx, *kubeconfig, vs[0], *pods)
	if err != nil {
		return err
	}
	return json.NewEncoder(stdout).Encode(s)
}

// Run measures one sync of v in a fresh child process.
func (r *APIRunner) Run(ctx context.Context, v APIVariant, round int) (APISample, error) {
	s := APISample{Round: round}
	args := append(append([]string(nil), r.Command[1:]...),
		"-variant", v.Name, "-kubeconfig", r.Kubeconfig, "-pods", strconv.Itoa(r.Pods))
	if r.ProfileDir != "" {
		args = append(args, "-cpuprofile-dir", r.ProfileDir)
	}
	cmd := exec.CommandContext(ctx, r.Command[0], args...)
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, r.Stderr
	if err := ResetPeakRSS(r.APIServerPID); err != nil {
		return s, err
	}
	api0, etcd0, err := r.read()
	if err != nil {
		return s, err
	}
	if err := cmd.Run(); err != nil {
		return s, fmt.Errorf("bench: child for %s: %w (stdout %q)", v.Name, err, out.String())
	}
	api1, etcd1, err := r.read()
	if err != nil {
		return s, err
	}
	if err := json.Unmarshal(out.Bytes(), &s.SyncSample); err != nil {
		return s, fmt.Errorf("bench: child for %s printed %q: %w", v.Name, out.String(), err)
	}
	s.ServerCPU, s.EtcdCPU = api1.CPU-api0.CPU, etcd1.CPU-etcd0.CPU
	if api1.HWM > api0.RSS {
		s.ServerPeakGrowth = uint64(api1.HWM - api0.RSS)
	}
	if ru, ok := cmd.ProcessState.SysUsage().(*syscall.Rusage); ok {
		s.ClientPeakRSS = uint64(ru.Maxrss) << 10 // kB on Linux
	}
	return s, nil
}

// read samples kube-apiserver and etcd.
func (r *APIRunner) read() (api, etcd managerbench.Sample, err error) {
	now := time.Now()
	if api, err = managerbench.ReadSample(r.APIServerPID, now); err != nil {
		return api, etcd, err
	}
	etcd, err = managerbench.ReadSample(r.EtcdPID, now)
	return api, etcd, err
}

// RunRounds runs count rounds; each round runs every variant once, in an
// order rotated by one per round, so that no variant always follows the
// same one (or always runs first, on a cooler machine). progress, if not
// nil, gets a line per sample.
func RunRounds(ctx context.Context, r *APIRunner, variants []APIVariant, count int, progress io.Writer) ([]APISample, error) {
	if progress == nil {
		progress = io.Discard
	}
	var out []APISample
	for round := range count {
		for i := range variants {
			v := variants[(i+round)%len(variants)]
			s, err := r.Run(ctx, v, round)
			if err != nil {
				return out, err
			}
			fmt.Fprintf(progress, "round %d %-24s wall %6.3fs cpu %6.3fs apiserver %6.3fs etcd %5.3fs requests %d rss %s wire %s\n",
				round+1, v.Name, s.Wall.Seconds(), s.CPU.Seconds(), s.ServerCPU.Seconds(), s.EtcdCPU.Seconds(),
				s.Requests, mib(s.ClientPeakRSS), s.Wire)
			out = append(out, s)
		}
	}
	return out, nil
}

func mib(b uint64) string { return fmt.Sprintf("%.0f MiB", float64(b)/(1<<20)) }
