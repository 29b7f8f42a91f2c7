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
	"github.com/kcmlab/kcm/kube/api"
	"github.com/kcmlab/kcm/kube/rest"
	"github.com/kcmlab/kcm/queue"
	"github.com/kcmlab/kcm/store"
)

// fixture is the sample-controller test shape: objects loaded into the
// listers, a fake apiserver that records the actions sync takes.
type fixture struct {
	t          *testing.T
	namespaces []*api.Namespace
	accounts   []*api.ServiceAccount
	// answer, when set, is the status the apiserver answers a create with.
	answer *rest.Status

	mu      sync.Mutex
	actions []string
}

func newFixture(t *testing.T) *fixture { return &fixture{t: t} }

func namespace(name string, phase api.NamespacePhase) *api.Namespace {
	return &api.Namespace{ObjectMeta: api.ObjectMeta{Name: name}, Status: api.NamespaceStatus{Phase: phase}}
}

func account(ns, name string) *api.ServiceAccount {
	return &api.ServiceAccount{ObjectMeta: api.ObjectMeta{Namespace: ns, Name: name}}
}

func (f *fixture) serve(w http.ResponseWriter, r *http.Request) {
	body, _ := io.ReadAll(r.Body)
	var obj struct {
		Metadata api.ObjectMeta `json:"metadata"`
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
	client, err := rest.NewClient(&rest.Config{Host: srv.URL, QPS: -1}, rest.WithRetryPolicy(rest.RetryPolicy{MaxAttempts: 1}))
	if err != nil {
		f.t.Fatal(err)
	}
	defer client.CloseIdleConnections()
	nsStore := store.New(store.Options[*api.Namespace]{})
	nsStore.Replace(f.namespaces)
	saStore := store.New(store.Options[*api.ServiceAccount]{})
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
		namespaces []*api.Namespace
		accounts   []*api.ServiceAccount
		want       []string
	}{
		{"new active namespace", []*api.Namespace{namespace("ns", api.NamespaceActive)}, nil, []string{create}},
		{"active namespace missing default", []*api.Namespace{namespace("ns", api.NamespaceActive)},
			[]*api.ServiceAccount{account("ns", "builder"), account("other", "default")}, []string{create}},
		{"active namespace with default", []*api.Namespace{namespace("ns", api.NamespaceActive)},
			[]*api.ServiceAccount{account("ns", "default")}, nil},
		{"terminating namespace", []*api.Namespace{namespace("ns", api.NamespaceTerminating)}, nil, nil},
		{"namespace without a phase yet", []*api.Namespace{namespace("ns", "")}, nil, nil},
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
		status  rest.Status
		wantErr bool
	}{
		{rest.Status{Code: 409, Reason: "AlreadyExists"}, false},
		{rest.Status{Code: 403, Reason: "Forbidden", Details: &rest.StatusDetails{Causes: []rest.StatusCause{{Type: "NamespaceTerminating"}}}}, false},
		{rest.Status{Code: 403, Reason: "Forbidden"}, true},
		{rest.Status{Code: 403, Reason: "Forbidden", Details: &rest.StatusDetails{Causes: []rest.StatusCause{{Type: "Other"}}}}, true},
		{rest.Status{Code: 500, Reason: "InternalError"}, true},
	} {
		f := newFixture(t)
		f.namespaces = []*api.Namespace{namespace("ns", api.NamespaceActive)}
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
	h.namespaceAdded(namespace("a", api.NamespaceActive), true)
	h.namespaceUpdated(namespace("x", api.NamespaceActive), namespace("b", api.NamespaceTerminating))
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
