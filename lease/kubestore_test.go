package lease_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strconv"
	"sync"
	"testing"
	"time"

	"github.com/kcmlab/kcm/clock"
	"github.com/kcmlab/kcm/kube/rest"
	"github.com/kcmlab/kcm/lease"
)

// leaseServer is a fake kube-apiserver that serves one
// coordination.k8s.io/v1 Lease, ns/kcm-test, with the rules KubeStore
// relies on: GET answers 404 NotFound while there is no Lease; POST answers
// 409 AlreadyExists when there is one; PUT answers 404 when there is none
// and 409 Conflict when the body's metadata.resourceVersion is not the
// current one; every successful write takes a new resourceVersion. The
// object is kept as JSON, so fields KubeStore does not model (labels)
// survive only if the client sends them back.
type leaseServer struct {
	t   *testing.T
	srv *httptest.Server

	mu   sync.Mutex
	obj  map[string]any   // the Lease; nil when there is none
	rv   int              // last resourceVersion handed out
	puts []map[string]any // bodies of the PUTs received, in order
	// hang, when set, holds every request until the client gives up.
	hang bool
}

const (
	ksNamespace = "ns"
	ksName      = "kcm-test"
	leasesPath  = "/apis/coordination.k8s.io/v1/namespaces/" + ksNamespace + "/leases"
)

func newLeaseServer(t *testing.T) *leaseServer {
	s := &leaseServer{t: t}
	s.srv = httptest.NewServer(http.HandlerFunc(s.serve))
	t.Cleanup(s.srv.Close)
	return s
}

// client returns a rest client for the server, with no rate limit.
func (s *leaseServer) client() *rest.Client {
	c, err := rest.NewClient(&rest.Config{Host: s.srv.URL, QPS: -1, Source: "leaseServer"})
	if err != nil {
		s.t.Fatal(err)
	}
	s.t.Cleanup(c.CloseIdleConnections)
	return c
}

func (s *leaseServer) serve(w http.ResponseWriter, r *http.Request) {
	s.mu.Lock()
	hang := s.hang
	s.mu.Unlock()
	if hang {
		<-r.Context().Done()
		return
	}
	var body, sent map[string]any // sent: a copy the server never changes
	if data, _ := io.ReadAll(r.Body); len(data) > 0 {
		if json.Unmarshal(data, &body) != nil || json.Unmarshal(data, &sent) != nil {
			status(w, http.StatusBadRequest, "BadRequest", "malformed body")
			return
		}
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	switch {
	case r.Method == http.MethodGet && r.URL.Path == leasesPath+"/"+ksName:
		if s.obj == nil {
			status(w, http.StatusNotFound, "NotFound", "leases \"kcm-test\" not found")
			return
		}
		reply(w, http.StatusOK, s.obj)
	case r.Method == http.MethodPost && r.URL.Path == leasesPath:
		if s.obj != nil {
			status(w, http.StatusConflict, "AlreadyExists", "leases \"kcm-test\" already exists")
			return
		}
		reply(w, http.StatusCreated, s.storeLocked(body))
	case r.Method == http.MethodPut && r.URL.Path == leasesPath+"/"+ksName:
		s.puts = append(s.puts, sent)
		if s.obj == nil {
			status(w, http.StatusNotFound, "NotFound", "leases \"kcm-test\" not found")
			return
		}
		if rv, _ := meta(body)["resourceVersion"].(string); rv != meta(s.obj)["resourceVersion"] {
			status(w, http.StatusConflict, "Conflict", "the object has been modified")
			return
		}
		reply(w, http.StatusOK, s.storeLocked(body))
	default:
		status(w, http.StatusMethodNotAllowed, "MethodNotAllowed", r.Method+" "+r.URL.Path)
	}
}

// storeLocked saves obj under the next resourceVersion and returns it.
func (s *leaseServer) storeLocked(obj map[string]any) map[string]any {
	s.rv++
	m := meta(obj)
	m["resourceVersion"] = strconv.Itoa(s.rv)
	obj["metadata"] = m
	s.obj = obj
	return obj
}

// put stores obj directly, as another client's write would (nil deletes).
func (s *leaseServer) put(obj map[string]any) string {
	s.mu.Lock()
	defer s.mu.Unlock()
	if obj == nil {
		s.obj = nil
		return ""
	}
	return meta(s.storeLocked(obj))["resourceVersion"].(string)
}

// label adds a label to the stored Lease, as `kubectl label` would.
func (s *leaseServer) label(key, value string) string {
	s.mu.Lock()
	obj := s.obj
	s.mu.Unlock()
	m := meta(obj)
	labels, _ := m["labels"].(map[string]any)
	if labels == nil {
		labels = map[string]any{}
	}
	labels[key] = value
	m["labels"] = labels
	obj["metadata"] = m
	return s.put(obj)
}

func (s *leaseServer) lastPut() map[string]any {
	s.mu.Lock()
	defer s.mu.Unlock()
	if len(s.puts) == 0 {
		s.t.Fatal("no PUT received")
	}
	return s.puts[len(s.puts)-1]
}

func (s *leaseServer) stored() map[string]any {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.obj
}

func meta(obj map[string]any) map[string]any {
	m, _ := obj["metadata"].(map[string]any)
	if m == nil {
		m = map[string]any{}
	}
	return m
}

func spec(obj map[string]any) map[string]any {
	m, _ := obj["spec"].(map[string]any)
	return m
}

func labelsOf(obj map[string]any) map[string]any {
	l, _ := meta(obj)["labels"].(map[string]any)
	return l
}

func reply(w http.ResponseWriter, code int, obj map[string]any) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(code)
	_ = json.NewEncoder(w).Encode(obj)
}

func status(w http.ResponseWriter, code int, reason, msg string) {
	reply(w, code, map[string]any{"kind": "Status", "apiVersion": "v1", "metadata": map[string]any{},
		"status": "Failure", "reason": reason, "message": msg, "code": code})
}

func bareLease(spec map[string]any) map[string]any {
	return map[string]any{"apiVersion": "coordination.k8s.io/v1", "kind": "Lease",
		"metadata": map[string]any{"namespace": ksNamespace, "name": ksName}, "spec": spec}
}

// sameRecord compares records with time.Time.Equal (the wire form carries
// no location).
func sameRecord(a, b lease.Record) bool {
	return a.HolderIdentity == b.HolderIdentity && a.LeaseDuration == b.LeaseDuration &&
		a.AcquireTime.Equal(b.AcquireTime) && a.RenewTime.Equal(b.RenewTime) &&
		a.LeaseTransitions == b.LeaseTransitions && a.ResourceVersion == b.ResourceVersion
}

// TestKubeStore checks the Store contract on a coordination.k8s.io/v1
// Lease (LeaseSpec: holderIdentity, leaseDurationSeconds, acquireTime,
// renewTime, leaseTransitions; all optional): the sentinel errors of the
// contract come from the apiserver's NotFound / AlreadyExists / Conflict,
// and an update is a PUT of the whole object at the record's
// resourceVersion that keeps what kcm does not model (the labels) — a PUT
// replaces the object, so the writer must start from what it read.
func TestKubeStore(t *testing.T) {
	ctx := context.Background()
	srv := newLeaseServer(t)
	k := lease.NewKubeStore(srv.client(), ksNamespace, ksName, 0)

	if _, err := k.Get(ctx); !rest.IsNotFound(err) {
		t.Fatalf("Get with no lease = %v, want NotFound", err)
	}
	if _, err := k.Update(ctx, lease.Record{HolderIdentity: "a", ResourceVersion: "1"}); !rest.IsNotFound(err) {
		t.Fatalf("Update with no lease = %v, want NotFound", err)
	}

	rec := lease.Record{HolderIdentity: "a", LeaseDuration: 2500 * time.Millisecond,
		AcquireTime: t0.Add(-time.Minute), RenewTime: t0.Add(1500 * time.Microsecond), LeaseTransitions: 3}
	got, err := k.Create(ctx, rec)
	if err != nil {
		t.Fatal(err)
	}
	want := rec
	want.LeaseDuration, want.ResourceVersion = 3*time.Second, "1" // whole seconds, rounded up
	if !sameRecord(got, want) {
		t.Errorf("Create returned %+v, want %+v", got, want)
	}
	sp := spec(srv.stored())
	wantSpec := map[string]any{"holderIdentity": "a", "leaseDurationSeconds": 3.0,
		"acquireTime": "2026-03-01T11:59:00.000000Z", "renewTime": "2026-03-01T12:00:00.001500Z", "leaseTransitions": 3.0}
	if fmt.Sprint(sp) != fmt.Sprint(wantSpec) {
		t.Errorf("created spec %v, want %v", sp, wantSpec)
	}
	if _, err := k.Create(ctx, rec); !rest.IsAlreadyExists(err) {
		t.Errorf("second Create = %v, want AlreadyExists", err)
	}

	rv := srv.label("team", "x") // someone else writes: rv 2
	got, err = k.Get(ctx)
	if err != nil {
		t.Fatal(err)
	}
	want.ResourceVersion = rv
	if !sameRecord(got, want) {
		t.Errorf("Get returned %+v, want %+v", got, want)
	}
	release := got
	release.HolderIdentity, release.LeaseDuration, release.RenewTime = "", time.Second, t0.Add(time.Second)
	got, err = k.Update(ctx, release)
	if err != nil {
		t.Fatal(err)
	}
	want = release
	want.ResourceVersion = "3"
	if !sameRecord(got, want) {
		t.Errorf("Update returned %+v, want %+v", got, want)
	}
	put := srv.lastPut()
	if _, ok := spec(put)["holderIdentity"]; ok || labelsOf(put)["team"] != "x" || meta(put)["resourceVersion"] != rv {
		t.Errorf("PUT body %v: want no holderIdentity, the label kept, resourceVersion %s", put, rv)
	}

	if _, err := k.Update(ctx, release); !rest.IsConflict(err) { // release still carries rv 2
		t.Errorf("Update at a stale resourceVersion = %v, want Conflict", err)
	}

	// A store that has not read the object (or read another version of it)
	// writes a bare Lease: it has nothing else to start from.
	fresh := lease.NewKubeStore(srv.client(), ksNamespace, ksName, 0)
	if _, err := fresh.Update(ctx, lease.Record{HolderIdentity: "b", LeaseDuration: time.Second, ResourceVersion: "3"}); err != nil {
		t.Fatal(err)
	}
	if l := labelsOf(srv.lastPut()); len(l) != 0 {
		t.Errorf("a store that never read the lease sent labels %v", l)
	}
	srv.label("team", "y")                // rv 5
	if _, err := k.Get(ctx); err != nil { // k last saw rv 5 with team=y
		t.Fatal(err)
	}
	srv.label("team", "z") // rv 6
	if _, err := k.Update(ctx, lease.Record{HolderIdentity: "b", LeaseDuration: time.Second, ResourceVersion: "6"}); err != nil {
		t.Fatal(err)
	}
	if l := labelsOf(srv.lastPut()); len(l) != 0 {
		t.Errorf("an update at a version the store did not read sent labels %v from an older one", l)
	}
}

// TestKubeStoreEmptySpec: every LeaseSpec field is optional; a Lease with
// none (as `kubectl create` could make it) reads as a free record.
func TestKubeStoreEmptySpec(t *testing.T) {
	srv := newLeaseServer(t)
	rv := srv.put(bareLease(map[string]any{}))
	got, err := lease.NewKubeStore(srv.client(), ksNamespace, ksName, 0).Get(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if !sameRecord(got, lease.Record{ResourceVersion: rv}) {
		t.Errorf("empty spec read as %+v", got)
	}
}

// TestKubeStoreRequestTimeout: with a request timeout, a call to an
// apiserver that never answers returns once the timeout passed, with
// context.DeadlineExceeded, although the caller's context has no deadline.
func TestKubeStoreRequestTimeout(t *testing.T) {
	srv := newLeaseServer(t)
	srv.mu.Lock()
	srv.hang = true
	srv.mu.Unlock()
	k := lease.NewKubeStore(srv.client(), ksNamespace, ksName, 50*time.Millisecond)
	if _, err := k.Get(context.Background()); !errors.Is(err, context.DeadlineExceeded) {
		t.Errorf("Get from a hanging server = %v, want context.DeadlineExceeded", err)
	}
}

// TestNew: New keeps the Lease cfg.Namespace/cfg.Name through a KubeStore
// whose requests are bounded by RenewDeadline/2, so a hung request leaves
// room for another attempt before the deadline.
func TestNew(t *testing.T) {
	srv := newLeaseServer(t)
	clk := clock.NewFake(t0)
	started := make(chan struct{})
	e, err := lease.New(srv.client(), lease.Config{Namespace: ksNamespace, Name: ksName, Identity: "a",
		RenewDeadline: 6 * time.Second, Clock: clk,
		Callbacks: lease.Callbacks{OnStartedLeading: func(ctx context.Context) { close(started); <-ctx.Done() }}})
	if err != nil {
		t.Fatal(err)
	}
	if d := lease.RequestTimeout(e); d != 3*time.Second {
		t.Errorf("request timeout %v, want RenewDeadline/2 = 3s", d)
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- e.Run(ctx) }()
	recv(t, "start", started)
	cancel()
	if err := recv(t, "Run's end", done); err != nil {
		t.Fatalf("Run = %v", err)
	}
	if h := spec(srv.stored())["holderIdentity"]; h != "a" {
		t.Errorf("holderIdentity %v, want a", h)
	}
	if _, err := lease.New(srv.client(), lease.Config{}); !errors.Is(err, lease.ErrInvalidConfig) {
		t.Errorf("New without OnStartedLeading = %v, want ErrInvalidConfig", err)
	}
}
