//go:build !nocluster

package manager

import (
	"bufio"
	"context"
	"crypto/tls"
	"errors"
	"io"
	"net"
	"net/http"
	"os"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/rs/zerolog"

	"github.com/kcmlab/kcm/kube/api"
	"github.com/kcmlab/kcm/kube/api/decode"
	"github.com/kcmlab/kcm/kube/rest"
	"github.com/kcmlab/kcm/testenv"
)

// runBound bounds how long a test waits for Run to return once it should.
const runBound = 60 * time.Second

// instance is one manager under test: its Run in a goroutine, its
// endpoints on a free loopback port and its log lines on a channel.
type instance struct {
	url    string
	cancel context.CancelFunc
	done   chan error
	lines  chan string
	client *http.Client
}

// startManager runs Run on the shared cluster with o (defaults when nil),
// on the test run's --kube-api-content-type (testenv.ContentType:
// protobuf, the default, or JSON under `make test-json`).
func startManager(t *testing.T, cl *testenv.Cluster, o *Options, identity string) *instance {
	t.Helper()
	if o == nil {
		o = NewOptions(NewControllerDescriptors())
	}
	o.KubeAPIContentType = testenv.ContentType()
	// The port asks the cluster, as kube-controller-manager's does when
	// given these kubeconfigs; the client is the cluster's admin
	// (system:masters), by its bearer token.
	if o.Auth.AuthenticationKubeconfig == "" && o.Auth.AuthorizationKubeconfig == "" {
		o.Auth.AuthenticationKubeconfig, o.Auth.AuthorizationKubeconfig = cl.KubeconfigPath(), cl.KubeconfigPath()
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	pr, pw := io.Pipe()
	in := &instance{url: "https://" + ln.Addr().String(), done: make(chan error, 1), lines: make(chan string, 1024),
		client: &http.Client{Transport: bearer(adminToken(t, cl),
			&http.Transport{TLSClientConfig: &tls.Config{InsecureSkipVerify: true}})}}
	go func() {
		defer close(in.lines)
		s := bufio.NewScanner(pr)
		for s.Scan() {
			select {
			case in.lines <- s.Text():
			default: // nobody waits for it
			}
		}
	}()
	ctx, cancel := context.WithCancel(context.Background())
	in.cancel = cancel
	go func() {
		in.done <- Run(ctx, Config{Options: o, REST: cl.Config(), Listener: ln, Identity: identity,
			Logger: zerolog.New(pw).Level(zerolog.DebugLevel)})
		_ = pw.Close()
	}()
	t.Cleanup(func() {
		cancel()
		<-in.done
		in.client.CloseIdleConnections()
		for range in.lines {
		}
	})
	return in
}

// waitLog waits for a log line containing every one of subs.
func (in *instance) waitLog(t *testing.T, subs ...string) {
	t.Helper()
	for line := range in.lines {
		all := true
		for _, s := range subs {
			all = all && strings.Contains(line, s)
		}
		if all {
			return
		}
	}
	t.Fatalf("the log ended without a line containing %q", subs)
}

// stop cancels Run as SIGTERM does and returns its result, failing the
// test if it takes longer than runBound.
func (in *instance) stop(t *testing.T) error {
	t.Helper()
	in.cancel()
	return in.wait(t)
}

func (in *instance) wait(t *testing.T) error {
	t.Helper()
	select {
	case err := <-in.done:
		in.done <- err // for the cleanup
		return err
	case <-time.After(runBound):
		t.Fatalf("Run did not return within %v", runBound)
		return nil
	}
}

func (in *instance) get(t *testing.T, path string) (int, string) {
	t.Helper()
	resp, err := in.client.Get(in.url + path)
	if err != nil {
		t.Fatalf("GET %s: %v", path, err)
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	return resp.StatusCode, string(b)
}

func leases(t *testing.T, cl *testenv.Cluster) *rest.Resources[*api.Lease] {
	t.Helper()
	c, err := rest.NewClient(cl.Config())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(c.CloseIdleConnections)
	return rest.NewResources(c, rest.Leases, decode.Typed[api.Lease]()).InNamespace("kube-system")
}

// waitHolder watches the Lease until its holder satisfies ok.
func waitHolder(t *testing.T, ctx context.Context, ls *rest.Resources[*api.Lease], name string, ok func(string) bool) *api.Lease {
	t.Helper()
	w, err := ls.Watch(ctx, rest.WatchOptions{ListOptions: rest.ListOptions{FieldSelector: "metadata.name=" + name, TimeoutSeconds: 110}})
	if err != nil {
		t.Fatal(err)
	}
	defer w.Close()
	for {
		ev, err := w.Next()
		if err != nil {
			t.Fatalf("watching Lease %s: %v", name, err)
		}
		if ev.Type != rest.Deleted && ok(holder(ev.Object)) {
			return ev.Object
		}
	}
}

func holder(l *api.Lease) string {
	if l.Spec.HolderIdentity == nil {
		return ""
	}
	return *l.Spec.HolderIdentity
}

// TestManagerOnRealAPIServer runs the manager as `kcm` would, with
// kube-controller-manager's defaults: it becomes leader of Lease
// kube-system/kube-controller-manager under a "<hostname>_<uuid>"
// identity, serves /healthz, /readyz and /metrics with the named checks
// and series, gives a new namespace its default ServiceAccount, and on
// cancel (SIGTERM) returns nil and leaves the Lease with no holder.
func TestManagerOnRealAPIServer(t *testing.T) {
	cl := testenv.Shared(t)
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	ls := leases(t, cl)
	in := startManager(t, cl, nil, "")

	host, _ := os.Hostname()
	idRE := regexp.MustCompile("^" + regexp.QuoteMeta(host) + "_[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$")
	l := waitHolder(t, ctx, ls, "kube-controller-manager", func(h string) bool { return h != "" })
	if id := holder(l); !idRE.MatchString(id) {
		t.Fatalf("holder identity %q is not <hostname>_<uuid>", id)
	}

	// A namespace made without its account gets one from the controller.
	c, err := rest.NewClient(cl.Config())
	if err != nil {
		t.Fatal(err)
	}
	defer c.CloseIdleConnections()
	namespaces := rest.NewResources(c, rest.Namespaces, decode.Typed[api.Namespace]())
	ns, err := namespaces.Create(ctx, &api.Namespace{ObjectMeta: api.ObjectMeta{GenerateName: "kcm-manager-"}})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = namespaces.Delete(context.Background(), ns.Name, rest.DeleteOptions{}) })
	accounts := rest.NewResources(c, rest.ServiceAccounts, decode.Typed[api.ServiceAccount]()).InNamespace(ns.Name)
	w, err := accounts.Watch(ctx, rest.WatchOptions{ListOptions: rest.ListOptions{TimeoutSeconds: 110}})
	if err != nil {
		t.Fatal(err)
	}
	for {
		ev, err := w.Next()
		if err != nil {
			t.Fatalf("waiting for the default ServiceAccount: %v", err)
		}
		if ev.Type == rest.Added && ev.Object.Name == "default" {
			break
		}
	}
	w.Close()

	// The controller synced a key, so the caches synced: ready.
	for path, want := range map[string][]string{
		"/healthz?verbose":        {"[+]leaderElection ok\n", "[+]serviceaccount-controller ok\n", "healthz check passed"},
		"/readyz?verbose":         {"[+]leaderElection ok\n", "[+]serviceaccount-controller ok\n", "[+]informer-sync ok\n"},
		"/livez":                  {"ok"},
		"/healthz/leaderElection": {"ok"},
	} {
		code, body := in.get(t, path)
		if code != http.StatusOK {
			t.Errorf("GET %s = %d %q", path, code, body)
		}
		for _, s := range want {
			if !strings.Contains(body, s) {
				t.Errorf("GET %s = %q, want %q in it", path, body, s)
			}
		}
	}
	_, metrics := in.get(t, "/metrics")
	for _, s := range []string{
		`leader_election_master_status{name="kube-controller-manager"} 1`,
		`workqueue_adds_total{name="serviceaccount-controller"}`,
		`workqueue_depth{name="serviceaccount-controller"}`,
		`controller_runtime_reconcile_total{controller="serviceaccount-controller",result="success"}`,
		`controller_runtime_max_concurrent_reconciles{controller="serviceaccount-controller"} 1`,
		`reflector_lists_total{name="serviceaccounts"} 1`, `reflector_watches_total{name="namespaces"}`,
		`rest_client_requests_total{code="200",host=`, `rest_client_request_duration_seconds_bucket{host=`,
		`rest_client_rate_limiter_duration_seconds_count{host=`,
		"go_goroutines", "process_start_time_seconds",
	} {
		if !strings.Contains(metrics, s) {
			t.Errorf("/metrics lacks %s", s)
		}
	}

	if err := in.stop(t); err != nil {
		t.Fatalf("Run after cancel = %v, want nil", err)
	}
	l, err = ls.Get(ctx, "kube-controller-manager")
	if err != nil {
		t.Fatal(err)
	}
	if h := holder(l); h != "" {
		t.Errorf("after shutdown the Lease is held by %q; want it released", h)
	}
}

// TestStandbyThenLostLease: a second manager on the same Lease stays a
// standby — healthy, its leader gauge 0, the Lease still the first one's —
// and when someone else takes the Lease from the leader, the leader's Run
// returns ErrLeaderElectionLost (the binary exits non-zero).
func TestStandbyThenLostLease(t *testing.T) {
	cl := testenv.Shared(t)
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	ls := leases(t, cl)
	const name = "kcm-standby-test"
	opts := func() *Options {
		o := NewOptions(NewControllerDescriptors())
		o.LeaderElection.ResourceName = name
		return o
	}
	a := startManager(t, cl, opts(), "kcm-a")
	waitHolder(t, ctx, ls, name, func(h string) bool { return h == "kcm-a" })
	b := startManager(t, cl, opts(), "kcm-b")
	b.waitLog(t, "new leader observed", `"leader":"kcm-a"`)

	if code, body := b.get(t, "/healthz?verbose"); code != http.StatusOK || !strings.Contains(body, "[+]leaderElection ok") {
		t.Errorf("standby /healthz = %d %q", code, body)
	}
	if _, m := b.get(t, "/metrics"); !strings.Contains(m, `leader_election_master_status{name="`+name+`"} 0`) {
		t.Errorf("standby's leader gauge is not 0")
	}
	l, err := ls.Get(ctx, name)
	if err != nil {
		t.Fatal(err)
	}
	if holder(l) != "kcm-a" {
		t.Fatalf("holder %q, want kcm-a while it leads", holder(l))
	}

	// Someone else takes the Lease, for long enough that b waits too.
	intruder, long := "intruder", int32(3600)
	l.Spec.HolderIdentity, l.Spec.LeaseDurationSeconds = &intruder, &long
	if _, err := ls.Update(ctx, l); err != nil {
		t.Fatal(err)
	}
	if err := a.wait(t); !errors.Is(err, ErrLeaderElectionLost) {
		t.Fatalf("leader's Run after losing the Lease = %v, want ErrLeaderElectionLost", err)
	}
	if err := b.stop(t); err != nil {
		t.Fatalf("standby's Run after cancel = %v, want nil", err)
	}
	if l, err := ls.Get(ctx, name); err != nil || holder(l) != intruder {
		t.Errorf("after both stopped the holder is %q (%v); a standby must not release what it does not hold", holder(l), err)
	}
}
