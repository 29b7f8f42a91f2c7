package bench

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os/exec"
	"strconv"
	"syscall"
	"time"
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
}

// Run measures one sync of v in a fresh child process.
func (r *APIRunner) Run(ctx context.Context, v APIVariant, round int) (APISample, error) {
	s := APISample{Round: round}
	args := append(append([]string(nil), r.Command[1:]...),
		"-variant", v.Name, "-kubeconfig", r.Kubeconfig, "-pods", strconv.Itoa(r.Pods))
	cmd := exec.CommandContext(ctx, r.Command[0], args...)
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, r.Stderr
	if err := ResetPeakRSS(r.APIServerPID); err != nil {
		return s, err
	}
	mem0, err := ReadProcMemory(r.APIServerPID)
	if err != nil {
		return s, err
	}
	api0, err := ProcCPU(r.APIServerPID)
	if err != nil {
		return s, err
	}
	etcd0, err := ProcCPU(r.EtcdPID)
	if err != nil {
		return s, err
	}
	if err := cmd.Run(); err != nil {
		return s, fmt.Errorf("bench: child for %s: %w (stdout %q)", v.Name, err, out.String())
	}
	api1, err := ProcCPU(r.APIServerPID)
	if err != nil {
		return s, err
	}
	etcd1, err := ProcCPU(r.EtcdPID)
	if err != nil {
		return s, err
	}
	mem1, err := ReadProcMemory(r.APIServerPID)
	if err != nil {
		return s, err
	}
	if err := json.Unmarshal(out.Bytes(), &s.SyncSample); err != nil {
		return s, fmt.Errorf("bench: child for %s printed %q: %w", v.Name, out.String(), err)
	}
	s.ServerCPU, s.EtcdCPU = api1-api0, etcd1-etcd0
	if mem1.Peak > mem0.RSS {
		s.ServerPeakGrowth = mem1.Peak - mem0.RSS
	}
	if ru, ok := cmd.ProcessState.SysUsage().(*syscall.Rusage); ok {
		s.ClientPeakRSS = uint64(ru.Maxrss) << 10 // kB on Linux
	}
	return s, nil
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
			fmt.Fprintf(progress, "round %d %-22s wall %6.3fs cpu %6.3fs apiserver %6.3fs etcd %5.3fs requests %d rss %s\n",
				round+1, v.Name, s.Wall.Seconds(), s.CPU.Seconds(), s.ServerCPU.Seconds(), s.EtcdCPU.Seconds(),
				s.Requests, mib(s.ClientPeakRSS))
			out = append(out, s)
		}
	}
	return out, nil
}

func mib(b uint64) string { return fmt.Sprintf("%.0f MiB", float64(b)/(1<<20)) }
