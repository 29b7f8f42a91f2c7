package bench_test

import (
	"flag"
	"fmt"
	"io"
	"os"
	"sync"
	"testing"

	"go.uber.org/goleak"
	"k8s.io/klog/v2"

	"github.com/kcmlab/kcm/bench"
	"github.com/kcmlab/kcm/internal/testing/podgen"
)

// envAPISyncChild set to "1" makes the test binary the child that
// bench.APIRunner starts (TestAPISyncAgainstKubeAPIServer): it runs one
// sync with the arguments the runner appended and exits.
const envAPISyncChild = "KCM_BENCH_APISYNC_CHILD"

func TestMain(m *testing.M) {
	if os.Getenv(envAPISyncChild) == "1" {
		if err := bench.RunChild(os.Args[1:], os.Stdout); err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(1)
		}
		os.Exit(0)
	}
	// client-go reports closed watches through klog; the suite stops
	// informers on purpose, so those lines are noise.
	fs := flag.NewFlagSet("klog", flag.ContinueOnError)
	klog.InitFlags(fs)
	_ = fs.Set("logtostderr", "false")
	_ = fs.Set("stderrthreshold", "FATAL")
	klog.SetOutput(io.Discard)

	code := m.Run()
	closeServers()
	if code == 0 {
		if err := goleak.Find(goleak.IgnoreTopFunction("k8s.io/klog/v2.(*flushDaemon).run.func1")); err != nil {
			fmt.Fprintln(os.Stderr, "goroutine leak:", err)
			code = 1
		}
	}
	os.Exit(code)
}

// served is a podgen server shared by every benchmark that asks for the
// same shape; gate releases the MODIFIED events of one watch.
type served struct {
	*podgen.Server
	gate chan struct{}
}

type shape struct {
	pods, events int
	relabel      bool
}

var servers struct {
	sync.Mutex
	m map[shape]*served
}

// server returns the shared server with pods pods and events events
// (held at a gate until released when events > 0), starting it on first use.
func server(pods, events int) *served { return serverOf(shape{pods: pods, events: events}) }

// relabeledServer is server whose events relabel every pod on its second
// change (podgen.ServerOptions.Relabel).
func relabeledServer(pods, events int) *served {
	return serverOf(shape{pods: pods, events: events, relabel: true})
}

func serverOf(k shape) *served {
	pods, events := k.pods, k.events
	servers.Lock()
	defer servers.Unlock()
	if s, ok := servers.m[k]; ok {
		return s
	}
	if servers.m == nil {
		servers.m = map[shape]*served{}
	}
	s := &served{}
	o := podgen.ServerOptions{Pods: pods, Events: events, Relabel: k.relabel}
	if events > 0 {
		s.gate = make(chan struct{})
		o.EventsGate = s.gate
	}
	s.Server = podgen.NewServer(o)
	servers.m[k] = s
	return s
}

func closeServers() {
	servers.Lock()
	defer servers.Unlock()
	for k, s := range servers.m {
		s.Close()
		delete(servers.m, k)
	}
}
