package ctrl

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/rs/zerolog"

	"github.com/kcmlab/kcm/clock"
	"github.com/kcmlab/kcm/informer"
	"github.com/kcmlab/kcm/kube/api"
	"github.com/kcmlab/kcm/kube/rest"
)

// request is what the fake apiserver saw.
type request struct {
	method, path, contentType, userAgent, body string
}

// requests is what the fake apiserver saw, one channel per client
// (User-Agent): each assertion reads only its own client's requests, in
// whatever order the clients' goroutines reach the server (a request the
// shared informers sent before their Shutdown can arrive after it).
type requests struct {
	mu   sync.Mutex
	by   map[string]chan request
	seen []string // the User-Agents the server saw, in order of first request
}

// add reports r on its client's channel.
func (rs *requests) add(r request) {
	rs.mu.Lock()
	if !slices.Contains(rs.seen, r.userAgent) {
		rs.seen = append(rs.seen, r.userAgent)
	}
	rs.mu.Unlock()
	rs.of(r.userAgent) <- r
}

// of is the channel of the requests sent with User-Agent ua.
func (rs *requests) of(ua string) chan request {
	rs.mu.Lock()
	defer rs.mu.Unlock()
	c, ok := rs.by[ua]
	if !ok {
		c = make(chan request, 100)
		rs.by[ua] = c
	}
	return c
}

// fakeEventsAPI serves POST and PATCH of events and LIST/WATCH of
// namespaces (empty), reporting every request on its client's channel.
func fakeEventsAPI(t *testing.T) (*httptest.Server, *requests) {
	t.Helper()
	reqs := &requests{by: map[string]chan request{}}
	var rv atomic.Int64 // the handler runs on one goroutine per request
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		reqs.add(request{r.Method, r.URL.Path, r.Header.Get("Content-Type"), r.Header.Get("User-Agent"), string(body)})
		w.Header().Set("Content-Type", "application/json")
		switch {
		case r.URL.Path == "/api/v1/namespaces" && r.URL.Query().Get("watch") == "true":
			w.WriteHeader(http.StatusOK)
			w.(http.Flusher).Flush()
			<-r.Context().Done()
		case r.URL.Path == "/api/v1/namespaces":
			_, _ = io.WriteString(w, `{"kind":"NamespaceList","apiVersion":"v1","metadata":{"resourceVersion":"1"},"items":[]}`)
		case r.Method == http.MethodPost && strings.HasSuffix(r.URL.Path, "/events"):
			var e map[string]any
			if err := json.Unmarshal(body, &e); err != nil {
				http.Error(w, err.Error(), http.StatusBadRequest)
				return
			}
			e["metadata"].(map[string]any)["resourceVersion"] = fmt.Sprint(rv.Add(1))
			w.WriteHeader(http.StatusCreated)
			_ = json.NewEncoder(w).Encode(e)
		case r.Method == http.MethodPatch:
			rv.Add(1)
			name := r.URL.Path[strings.LastIndex(r.URL.Path, "/")+1:]
			_, _ = io.WriteString(w, `{"kind":"Event","apiVersion":"v1","metadata":{"name":"`+name+`","namespace":"ns","resourceVersion":"9"},"count":2}`)
		default:
			http.NotFound(w, r)
		}
	}))
	t.Cleanup(srv.Close)
	return srv, reqs
}

// clients is the User-Agents the server has seen requests from.
func (rs *requests) clients() []string {
	rs.mu.Lock()
	defer rs.mu.Unlock()
	return slices.Clone(rs.seen)
}

// next is the next request sent with User-Agent ua. The deadline only
// turns a missing request into a failure.
func next(t *testing.T, reqs *requests, ua string) request {
	t.Helper()
	select {
	case r := <-reqs.of(ua):
		return r
	case <-time.After(10 * time.Second):
		t.Fatalf("no request with User-Agent %q reached the fake apiserver (clients seen: %q)", ua, reqs.clients())
		return request{}
	}
}

// TestControllerContextClients: each controller's client and the shared
// informers' client send "kcm/<version> (<name>)"; events go to the
// apiserver as client-go's recorder sends them: POST to the object's
// namespace, then a strategic merge patch of count, lastTimestamp and
// message for a repeat.
func TestControllerContextClients(t *testing.T) {
	srv, reqs := fakeEventsAPI(t)
	base, err := rest.NewClient(&rest.Config{Host: srv.URL, QPS: -1})
	if err != nil {
		t.Fatal(err)
	}
	defer base.CloseIdleConnections()
	o := &Options{ConcurrentSyncs: map[string]int{"replicaset-controller": 7}}
	reg := prometheus.NewRegistry()
	cc, err := CreateControllerContext(base, Config{Version: "v1.2.3", QPS: 50, Burst: 60, Options: o, Registerer: reg, Logger: zerolog.Nop()})
	if err != nil {
		t.Fatal(err)
	}
	if cc.Workers("replicaset-controller") != 7 || cc.Workers("serviceaccount-controller") != DefaultWorkers || cc.Metrics == nil {
		t.Fatalf("workers %d/%d metrics %v", cc.Workers("replicaset-controller"), cc.Workers("serviceaccount-controller"), cc.Metrics)
	}
	if cc.Clock != (clock.Real{}) {
		t.Fatalf("no Clock configured: cc.Clock = %v, want clock.Real", cc.Clock)
	}
	fake := clock.NewFake(t0)
	if cc2, _ := CreateControllerContext(base, Config{Clock: fake}); cc2.Clock != fake || cc2.Metrics != nil {
		t.Fatalf("configured clock not kept (%v) or metrics without a registerer (%v)", cc2.Clock, cc2.Metrics)
	} else if ua := cc2.ClientFor("x").UserAgent(); ua != "kcm/v0 (x)" {
		t.Fatalf("no Version configured: User-Agent %q, want kcm/v0 (x)", ua)
	}
	if got := (ControllerContext{}).Workers("x"); got != DefaultWorkers {
		t.Fatalf("no options: %d workers", got)
	}

	// The shared informers' client.
	informer.NamespacesLister(cc.InformerFactory)
	ctx, cancel := context.WithCancel(context.Background())
	cc.InformerFactory.Start(ctx)
	if r := next(t, reqs, "kcm/v1.2.3 (shared-informers)"); r.path != "/api/v1/namespaces" {
		t.Fatalf("informer request %+v", r)
	}
	cancel()
	cc.InformerFactory.Shutdown()

	// A controller's client, through its event broadcaster.
	client := cc.ClientFor("replicaset-controller")
	if client.UserAgent() != "kcm/v1.2.3 (replicaset-controller)" {
		t.Fatalf("UserAgent = %q", client.UserAgent())
	}
	b := cc.NewBroadcaster(client)
	ctx, cancel = context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() { defer close(done); b.Run(ctx) }()
	defer func() { cancel(); <-done }()
	rec := b.NewRecorder("replicaset-controller")
	rec.Event(rsRef, api.EventTypeNormal, ReasonSuccessfulCreate, "Created pod: web-1")
	const events = "kcm/v1.2.3 (replicaset-controller)" // the controller's client sends them
	r := next(t, reqs, events)
	if r.method != http.MethodPost || r.path != "/api/v1/namespaces/ns/events" {
		t.Fatalf("create request %+v", r)
	}
	var sent api.CoreEvent
	if err := json.Unmarshal([]byte(r.body), &sent); err != nil {
		t.Fatal(err)
	}
	if sent.InvolvedObject != rsRef || sent.Source.Component != "replicaset-controller" || sent.ReportingController != "replicaset-controller" ||
		sent.Count != 1 || sent.Reason != ReasonSuccessfulCreate || !strings.HasPrefix(sent.Name, "web-5d4f.") {
		t.Fatalf("created event %+v", sent)
	}
	rec.Event(rsRef, api.EventTypeNormal, ReasonSuccessfulCreate, "Created pod: web-1")
	r = next(t, reqs, events)
	if r.method != http.MethodPatch || r.path != "/api/v1/namespaces/ns/events/"+sent.Name ||
		r.contentType != string(rest.StrategicMergePatch) || !strings.HasPrefix(r.body, `{"count":2,"lastTimestamp":`) {
		t.Fatalf("patch request %+v", r)
	}
}

func TestCreateControllerContextMetricsClash(t *testing.T) {
	reg := prometheus.NewRegistry()
	reg.MustRegister(prometheus.NewGauge(prometheus.GaugeOpts{Name: "controller_runtime_reconcile_total", Help: "a clash"}))
	base, err := rest.NewClient(&rest.Config{Host: "http://127.0.0.1:1"})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := CreateControllerContext(base, Config{Registerer: reg}); err == nil {
		t.Fatal("a metric name clash went unreported")
	}
	if _, err := NewMetrics(nil); err == nil {
		t.Fatal("NewMetrics(nil) succeeded")
	}
	// Registering twice on one registry shares the collectors.
	reg2 := prometheus.NewRegistry()
	m1, err1 := NewMetrics(reg2)
	m2, err2 := NewMetrics(reg2)
	if err1 != nil || err2 != nil || m1.total != m2.total || m1.Queue == nil {
		t.Fatalf("second NewMetrics: %v %v", err1, err2)
	}
}

// TestMetricsRegisterer: a controller registers its own families where the
// framework's are (the endpointslice controller's endpoint_slice_controller_*);
// a context without a Registerer has nil Metrics, whose Registerer is nil.
func TestMetricsRegisterer(t *testing.T) {
	reg := prometheus.NewRegistry()
	m, err := NewMetrics(reg)
	if err != nil {
		t.Fatal(err)
	}
	if m.Registerer() != prometheus.Registerer(reg) {
		t.Error("Registerer is not the registry the families were registered with")
	}
	var none *Metrics
	if none.Registerer() != nil {
		t.Error("a nil Metrics has a Registerer")
	}
}

// TestClientScaledFor: kube-controller-manager's namespace controller
// gets 20 times --kube-api-qps and 100 times --kube-api-burst; the
// defaults are scaled when none were given, and an unlimited client stays
// unlimited.
func TestClientScaledFor(t *testing.T) {
	base, err := rest.NewClient(&rest.Config{Host: "https://example.invalid"})
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		qps        float32
		burst      int
		wantQPS    float64
		wantBurst  int
		unlimited  bool
		configured string
	}{
		{20, 30, 400, 3000, false, "kube-controller-manager's defaults"},
		{0, 0, 400, 3000, false, "nothing configured"},
		{5, 2, 100, 200, false, "configured"},
		{-1, 0, 0, 0, true, "unlimited"},
	} {
		cc, err := CreateControllerContext(base, Config{Version: "v1", QPS: tc.qps, Burst: tc.burst})
		if err != nil {
			t.Fatal(err)
		}
		c := cc.ClientScaledFor("namespace-controller", 20, 100)
		qps, burst, ok := c.RateLimit()
		if ok == tc.unlimited || qps != tc.wantQPS || burst != tc.wantBurst {
			t.Errorf("%s: qps %v burst %d limited %v, want %v %d", tc.configured, qps, burst, ok, tc.wantQPS, tc.wantBurst)
		}
		if ua := c.UserAgent(); ua != "kcm/v1 (namespace-controller)" {
			t.Errorf("User-Agent %q", ua)
		}
	}
}

// TestClientScaledForGarbageCollector: the garbage collector's client gets twice the
// configured QPS and the same burst, as kube-controller-manager's
// (config.QPS *= 2); without a configured QPS, twice rest's default.
func TestClientScaledForGarbageCollector(t *testing.T) {
	base, err := rest.NewClient(&rest.Config{Host: "https://127.0.0.1:1"})
	if err != nil {
		t.Fatal(err)
	}
	cc, err := CreateControllerContext(base, Config{Version: "v1", QPS: 20, Burst: 30, Logger: zerolog.Nop()})
	if err != nil {
		t.Fatal(err)
	}
	c := cc.ClientScaledFor("generic-garbage-collector", 2, 1)
	if qps, burst, _ := c.RateLimit(); qps != 40 || burst != 30 || c.UserAgent() != "kcm/v1 (generic-garbage-collector)" {
		t.Errorf("qps %v burst %d agent %q, want 40, 30, kcm/v1 (generic-garbage-collector)", qps, burst, c.UserAgent())
	}
	if qps, _, _ := cc.ClientFor("x").RateLimit(); qps != 20 {
		t.Errorf("ClientFor changed: qps %v", qps)
	}
	cc0, _ := CreateControllerContext(base, Config{Logger: zerolog.Nop()})
	if qps, burst, _ := cc0.ClientScaledFor("gc", 2, 1).RateLimit(); qps != 2*rest.DefaultQPS || burst != rest.DefaultBurst {
		t.Errorf("defaults: qps %v burst %d", qps, burst)
	}
}

// accountClients records which ServiceAccounts' clients were asked for.
type accountClients struct {
	base *rest.Client
	mu   sync.Mutex
	got  []string // "<account> <user agent> <qps> <burst>"; guarded by mu
}

func (a *accountClients) Client(serviceAccount, userAgent string, qps float32, burst int) *rest.Client {
	a.mu.Lock()
	a.got = append(a.got, fmt.Sprintf("%s %s %v %d", serviceAccount, userAgent, qps, burst))
	a.mu.Unlock()
	return a.base.WithOptions(userAgent, qps, burst)
}

// TestServiceAccountClients: with Config.ServiceAccounts (the
// --use-service-account-credentials mode) ClientFor and ClientScaledFor
// build the controller's client as its ServiceAccount, named after the
// client, with the limits they would have had; the shared informers and a
// context WithRootCredentials keep the manager's client.
func TestServiceAccountClients(t *testing.T) {
	base, err := rest.NewClient(&rest.Config{Host: "https://127.0.0.1:1"})
	if err != nil {
		t.Fatal(err)
	}
	accounts := &accountClients{base: base}
	cc, err := CreateControllerContext(base, Config{Version: "v1", QPS: 10, Burst: 15, ServiceAccounts: accounts, Logger: zerolog.Nop()})
	if err != nil {
		t.Fatal(err)
	}
	if !cc.ServiceAccountCredentials() || cc.WithRootCredentials().ServiceAccountCredentials() {
		t.Errorf("ServiceAccountCredentials: %t, root %t; want true, false", cc.ServiceAccountCredentials(),
			cc.WithRootCredentials().ServiceAccountCredentials())
	}
	if c := cc.ClientFor("replicaset-controller"); c.UserAgent() != "kcm/v1 (replicaset-controller)" {
		t.Errorf("User-Agent %q", c.UserAgent())
	}
	cc.ClientScaledFor("namespace-controller", 20, 100)
	if c := cc.WithRootCredentials().ClientFor("tokens-controller"); c.UserAgent() != "kcm/v1 (tokens-controller)" {
		t.Errorf("root User-Agent %q", c.UserAgent())
	}
	want := []string{"replicaset-controller kcm/v1 (replicaset-controller) 10 15",
		"namespace-controller kcm/v1 (namespace-controller) 200 1500"}
	accounts.mu.Lock()
	defer accounts.mu.Unlock()
	if !slices.Equal(accounts.got, want) {
		t.Errorf("ServiceAccount clients %q, want %q (no shared-informers, no tokens-controller)", accounts.got, want)
	}
}
