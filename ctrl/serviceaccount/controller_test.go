package serviceaccount

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"slices"
	"sync"
	"testing"

	"github.com/kcmlab/kcm/informer"
	"github.com/kcmlab/kcm/kube"
	"github.com/kcmlab/kcm/queue"
	"github.com/kcmlab/kcm/store"
)

// fixture is the sample-controller test shape: objects loaded into the
// listers, a fake apiserver that records the actions sync takes.
type fixture struct {
	t          *testing.T
	namespaces []*kube.Namespace
	accounts   []*kube.ServiceAccount
	// answer, when set, is the status the apiserver answers a create with.
	answer *kube.Status

	mu      sync.Mutex
	actions []string
}

func newFixture(t *testing.T) *fixture { return &fixture{t: t} }

func namespace(name string, phase kube.NamespacePhase) *kube.Namespace {
	return &kube.Namespace{ObjectMeta: kube.ObjectMeta{Name: name}, Status: kube.NamespaceStatus{Phase: phase}}
}

func account(ns, name string) *kube.ServiceAccount {
	return &kube.ServiceAccount{ObjectMeta: kube.ObjectMeta{Namespace: ns, Name: name}}
}

func (f *fixture) serve(w http.ResponseWriter, r *http.Request) {
	body, _ := io.ReadAll(r.Body)
	var obj struct {
		Metadata kube.ObjectMeta `json:"metadata"`
	}
	_ = json.Unmarshal(body, &obj)
	f.mu.Lock()
	f.actions = append(f.actions, r.Method+" "+r.URL.Path+" "+obj.Metadata.Name)
	f.mu.Unlock()
	w.Header().Set("Content-Type", "application/json")
	if f.answer != nil {
		w.WriteHeader(int(f.answer.Code))
		_ = json.NewEncoder(w).Encode(f.answer)
		return
	}
	w.WriteHeader(http.StatusCreated)
	_, _ = w.Write(body)
}

// run loads the listers, syncs key once and returns the error and the
// actions it took.
func (f *fixture) run(key string) ([]string, error) {
	f.t.Helper()
	srv := httptest.NewServer(http.HandlerFunc(f.serve))
	defer srv.Close()
	client, err := kube.NewClient(&kube.Config{Host: srv.URL, QPS: -1}, kube.WithRetryPolicy(kube.RetryPolicy{MaxAttempts: 1}))
	if err != nil {
		f.t.Fatal(err)
	}
	defer client.CloseIdleConnections()
	nsStore := store.New(store.Options[*kube.Namespace]{})
	nsStore.Replace(f.namespaces)
	saStore := store.New(store.Options[*kube.ServiceAccount]{})
	saStore.Replace(f.accounts)
	c := NewController(informer.NewLister(nsStore.View(), "namespaces"),
		informer.ServiceAccountLister{Lister: informer.NewLister(saStore.View(), "serviceaccounts")}, client)
	_, err = c.Sync(context.Background(), key)
	f.mu.Lock()
	defer f.mu.Unlock()
	return slices.Clone(f.actions), err
}

const create = "POST /api/v1/namespaces/ns/serviceaccounts default"

// TestSync follows kubernetes/pkg/controller/serviceaccount's
// TestServiceAccountCreation: which namespaces get a default account.
func TestSync(t *testing.T) {
	for _, tc := range []struct {
		name       string
		namespaces []*kube.Namespace
		accounts   []*kube.ServiceAccount
		want       []string
	}{
		{"new active namespace", []*kube.Namespace{namespace("ns", kube.NamespaceActive)}, nil, []string{create}},
		{"active namespace missing default", []*kube.Namespace{namespace("ns", kube.NamespaceActive)},
			[]*kube.ServiceAccount{account("ns", "builder"), account("other", "default")}, []string{create}},
		{"active namespace with default", []*kube.Namespace{namespace("ns", kube.NamespaceActive)},
			[]*kube.ServiceAccount{account("ns", "default")}, nil},
		{"terminating namespace", []*kube.Namespace{namespace("ns", kube.NamespaceTerminating)}, nil, nil},
		{"namespace without a phase yet", []*kube.Namespace{namespace("ns", "")}, nil, nil},
		{"deleted namespace", nil, nil, nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			f := newFixture(t)
			f.namespaces, f.accounts = tc.namespaces, tc.accounts
			got, err := f.run("ns")
			if err != nil || !slices.Equal(got, tc.want) {
				t.Fatalf("actions %q, err %v; want %q", got, err, tc.want)
			}
		})
	}
}

// TestSyncCreateAnswers: an account that exists already (the cache was
// behind) and a namespace being deleted are not errors; anything else is,
// so the loop retries it.
func TestSyncCreateAnswers(t *testing.T) {
	for _, tc := range []struct {
		status  kube.Status
		wantErr bool
	}{
		{kube.Status{Code: 409, Reason: "AlreadyExists"}, false},
		{kube.Status{Code: 403, Reason: "Forbidden", Details: &kube.StatusDetails{Causes: []kube.StatusCause{{Type: "NamespaceTerminating"}}}}, false},
		{kube.Status{Code: 403, Reason: "Forbidden"}, true},
		{kube.Status{Code: 403, Reason: "Forbidden", Details: &kube.StatusDetails{Causes: []kube.StatusCause{{Type: "Other"}}}}, true},
		{kube.Status{Code: 500, Reason: "InternalError"}, true},
	} {
		f := newFixture(t)
		f.namespaces = []*kube.Namespace{namespace("ns", kube.NamespaceActive)}
		f.answer = &tc.status
		f.answer.Kind, f.answer.APIVersion, f.answer.Status = "Status", "v1", "Failure"
		got, err := f.run("ns")
		if (err != nil) != tc.wantErr || !slices.Equal(got, []string{create}) {
			t.Errorf("%d %s: actions %q err %v, want error %v", tc.status.Code, tc.status.Reason, got, err, tc.wantErr)
		}
	}
}

func TestDescriptor(t *testing.T) {
	d := Descriptor()
	if d.Name != "serviceaccount-controller" || !slices.Equal(d.Aliases, []string{"serviceaccount"}) || d.DisabledByDefault || d.Concurrency != nil || d.Constructor == nil {
		t.Fatalf("descriptor %+v", d)
	}
}

// TestHandlers: namespace adds and updates, and the deletion of a
// "default" account, enqueue the namespace; other deletions do not.
func TestHandlers(t *testing.T) {
	q := queue.New(queue.Config[string]{})
	defer q.ShutDown()
	h := handlers{q: q}
	h.namespaceAdded(namespace("a", kube.NamespaceActive), true)
	h.namespaceUpdated(namespace("x", kube.NamespaceActive), namespace("b", kube.NamespaceTerminating))
	h.serviceAccountDeleted(account("c", "builder"), false)
	h.serviceAccountDeleted(account("d", "default"), true)
	var got []string
	for q.Len() > 0 {
		k, err := q.Get(context.Background())
		if err != nil {
			t.Fatal(err)
		}
		got = append(got, k)
		q.Done(k)
	}
	if !slices.Equal(got, []string{"a", "b", "d"}) {
		t.Fatalf("enqueued %q, want [a b d]", got)
	}
}
