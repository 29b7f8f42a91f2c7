package manager

import (
	"context"
	"errors"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/rs/zerolog"

	"github.com/kcmlab/kcm/clock"
	"github.com/kcmlab/kcm/lease"
)

func get(t *testing.T, h http.Handler, path string) (int, string) {
	t.Helper()
	rec := httptest.NewRecorder()
	h.ServeHTTP(rec, httptest.NewRequest(http.MethodGet, path, nil))
	return rec.Code, rec.Body.String()
}

// TestHealthzHandler checks the responses of k8s.io/apiserver's healthz
// handler that kcm keeps: "ok" when all pass; the [+]/[-] lines and
// "<endpoint> check failed" with 500 when one fails; ?verbose lists them
// on success; ?exclude skips a check; /healthz/<name> runs one.
func TestHealthzHandler(t *testing.T) {
	broken := errors.New("queue stuck")
	var fail error
	mux := http.NewServeMux()
	InstallHealthChecks(mux, "/healthz", zerolog.Nop(),
		NamedCheck("leaderElection", func() error { return nil }),
		NamedCheck("serviceaccount-controller", func() error { return fail }))

	tests := []struct {
		name, path string
		fail       error
		code       int
		body       string
	}{
		{"all pass", "/healthz", nil, 200, "ok"},
		{"verbose", "/healthz?verbose", nil, 200,
			"[+]leaderElection ok\n[+]serviceaccount-controller ok\nhealthz check passed\n"},
		{"one fails", "/healthz", broken, 500,
			"[+]leaderElection ok\n[-]serviceaccount-controller failed: queue stuck\nhealthz check failed\n"},
		{"one fails, verbose", "/healthz?verbose=1", broken, 500,
			"[+]leaderElection ok\n[-]serviceaccount-controller failed: queue stuck\nhealthz check failed\n"},
		{"failing check excluded", "/healthz?verbose&exclude=serviceaccount-controller", broken, 200,
			"[+]leaderElection ok\n[+]serviceaccount-controller excluded: ok\nhealthz check passed\n"},
		{"one check, passing", "/healthz/leaderElection", broken, 200, "ok"},
		{"one check, failing", "/healthz/serviceaccount-controller", broken, 500, "internal server error: queue stuck\n"},
		{"one check, recovered", "/healthz/serviceaccount-controller", nil, 200, "ok"},
		{"no such check", "/healthz/nope", nil, 404, "404 page not found\n"},
	}
	for _, tt := range tests {
		fail = tt.fail
		code, body := get(t, mux, tt.path)
		if code != tt.code || body != tt.body {
			t.Errorf("%s: GET %s = %d %q, want %d %q", tt.name, tt.path, code, body, tt.code, tt.body)
		}
	}
}

// TestEndpoints: the manager's three endpoints carry the checks its doc
// promises — /healthz leaderElection and one per controller, /readyz
// those and informer-sync, /livez leaderElection — and /metrics serves
// the registry.
func TestEndpoints(t *testing.T) {
	const controllersOK = "[+]serviceaccount-token-controller ok\n" +
		"[+]namespace-controller ok\n[+]serviceaccount-controller ok\n[+]replicaset-controller ok\n[+]deployment-controller ok\n" +
		"[+]statefulset-controller ok\n" +
		"[+]endpoints-controller ok\n" +
		"[+]endpointslice-controller ok\n" +
		"[+]endpointslice-mirroring-controller ok\n" +
		"[+]pod-garbage-collector-controller ok\n" +
		"[+]resourcequota-controller ok\n" +
		"[+]garbage-collector-controller ok\n" +
		"[+]node-lifecycle-controller ok\n" +
		"[+]root-ca-certificate-publisher-controller ok\n" +
		"[+]legacy-serviceaccount-token-cleaner-controller ok\n" +
		"[+]taint-eviction-controller ok\n"
	st := newStatus()
	clk := clock.NewFake(time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC))
	m := &manager{status: st, reg: newRegistry(), log: zerolog.Nop(), cfg: Config{Clock: clk},
		enabled: NewControllerDescriptors().All()}
	e, err := lease.NewWithStore(&lease.MemoryStore{}, lease.Config{Identity: "me", Clock: clk, Registerer: m.reg,
		Callbacks: lease.Callbacks{OnStartedLeading: func(context.Context) {}}})
	if err != nil {
		t.Fatal(err)
	}
	mux := newMux(m.endpoints(e), m.reg, m.log)
	for path, want := range map[string]string{
		"/healthz?verbose": "[+]leaderElection ok\n" + controllersOK + "healthz check passed\n",
		"/readyz?verbose":  "[+]leaderElection ok\n" + controllersOK + "[+]informer-sync ok\nreadyz check passed\n",
		"/livez?verbose":   "[+]leaderElection ok\nlivez check passed\n",
	} {
		if code, body := get(t, mux, path); code != 200 || body != want {
			t.Errorf("GET %s = %d %q, want 200 %q", path, code, body, want)
		}
	}
	st.startLeading()
	if code, body := get(t, mux, "/readyz"); code != 500 || !strings.Contains(body, "[-]informer-sync failed: "+ErrCachesNotSynced.Error()) {
		t.Errorf("leading, caches not synced: /readyz = %d %q", code, body)
	}
	if code, _ := get(t, mux, "/healthz"); code != 200 {
		t.Errorf("leading, caches not synced: /healthz = %d, want 200 (sync is readiness, not health)", code)
	}
	st.cachesSynced()
	if code, _ := get(t, mux, "/readyz"); code != 200 {
		t.Errorf("caches synced: /readyz = %d", code)
	}
	st.controllerFailed("serviceaccount-controller", errors.New("boom"))
	want := "[-]serviceaccount-controller failed: controller failed: boom\n"
	for _, path := range []string{"/healthz", "/readyz"} {
		if code, body := get(t, mux, path); code != 500 || !strings.Contains(body, want) {
			t.Errorf("controller failed: GET %s = %d %q, want 500 with %q", path, code, body, want)
		}
	}
	if code, _ := get(t, mux, "/livez"); code != 200 {
		t.Errorf("controller failed: /livez = %d, want 200", code)
	}
	if code, body := get(t, mux, "/metrics"); code != 200 || !strings.Contains(body, "go_goroutines") ||
		!strings.Contains(body, `leader_election_master_status{name="kube-controller-manager"} 0`) {
		t.Errorf("/metrics = %d, missing go_goroutines or the leader gauge:\n%s", code, body)
	}
}

// TestEndpointsWithoutLeaderElection: no elector, no leaderElection
// check; /livez still answers (ping).
func TestEndpointsWithoutLeaderElection(t *testing.T) {
	m := &manager{status: newStatus(), reg: newRegistry(), log: zerolog.Nop(), cfg: Config{Clock: clock.Real{}}}
	mux := newMux(m.endpoints(nil), m.reg, m.log)
	if code, body := get(t, mux, "/livez?verbose"); code != 200 || body != "[+]ping ok\nlivez check passed\n" {
		t.Errorf("/livez = %d %q", code, body)
	}
	if code, body := get(t, mux, "/healthz?verbose"); code != 200 || strings.Contains(body, "leaderElection") {
		t.Errorf("/healthz = %d %q", code, body)
	}
}

// checker records the time the check is asked at.
type checker func(now time.Time) error

func (c checker) Check(now time.Time) error { return c(now) }

// TestLeaderElectionCheck: the check asks the elector at the injected
// clock's time, so a leader that stops renewing fails once the lease
// duration plus the tolerance (15 s + 20 s) passed on that clock, not
// before — client-go's HealthzAdaptor rule, kept by lease.Elector.Check.
func TestLeaderElectionCheck(t *testing.T) {
	t0 := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	store := &lease.MemoryStore{}
	elClock := clock.NewFake(t0) // the elector's: it acquires and then nothing moves it
	leading := make(chan struct{})
	e, err := lease.NewWithStore(store, lease.Config{Identity: "me", Clock: elClock,
		Callbacks: lease.Callbacks{OnStartedLeading: func(ctx context.Context) { close(leading); <-ctx.Done() }}})
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- e.Run(ctx) }()
	defer func() { cancel(); <-done }()
	<-leading

	checkClock := clock.NewFake(t0)
	c := leaderElectionCheck(e, checkClock)
	if c.Name != "leaderElection" {
		t.Fatalf("check name %q, want leaderElection (kube-controller-manager's)", c.Name)
	}
	limit := lease.DefaultLeaseDuration + lease.DefaultHealthTolerance
	checkClock.Step(limit)
	if err := c.Check(); err != nil {
		t.Fatalf("at lease duration + tolerance: %v, want healthy", err)
	}
	checkClock.Step(time.Nanosecond)
	if err := c.Check(); !errors.Is(err, lease.ErrRenewalStalled) {
		t.Fatalf("past lease duration + tolerance: %v, want ErrRenewalStalled", err)
	}
	var calls []time.Time
	fake := leaderElectionCheck(checker(func(now time.Time) error { calls = append(calls, now); return nil }), checkClock)
	_ = fake.Check()
	if len(calls) != 1 || !calls[0].Equal(checkClock.Now()) {
		t.Fatalf("Check called with %v, want the clock's now %v", calls, checkClock.Now())
	}
}
