package serviceaccount

import (
	"context"
	"slices"
	"testing"

	"github.com/kcmlab/kcm/informer"
	"github.com/kcmlab/kcm/internal/testing/resttest"
	"github.com/kcmlab/kcm/kube/api"
	"github.com/kcmlab/kcm/kube/rest"
	"github.com/kcmlab/kcm/queue"
)

// fixture is the sample-controller test shape: objects loaded into the
// listers (and held by the fake apiserver), the recording fake apiserver
// that answers the sync's writes.
type fixture struct {
	t          *testing.T
	namespaces []*api.Namespace
	accounts   []*api.ServiceAccount
	api        *resttest.Server
}

func newFixture(t *testing.T) *fixture {
	return &fixture{t: t, api: resttest.New(t, resttest.Options{})}
}

func namespace(name string, phase api.NamespacePhase) *api.Namespace {
	return &api.Namespace{ObjectMeta: api.ObjectMeta{Name: name}, Status: api.NamespaceStatus{Phase: phase}}
}

func account(ns, name string) *api.ServiceAccount {
	return &api.ServiceAccount{ObjectMeta: api.ObjectMeta{Namespace: ns, Name: name}}
}

// run loads the listers and the server, syncs key once and returns the
// error and the actions it took.
func (f *fixture) run(key string) ([]resttest.Action, error) {
	f.t.Helper()
	resttest.Add(f.api, rest.Namespaces, f.namespaces...)
	resttest.Add(f.api, rest.ServiceAccounts, f.accounts...)
	c := NewController(resttest.Lister("namespaces", f.namespaces...),
		informer.ServiceAccountLister{Lister: resttest.Lister("serviceaccounts", f.accounts...)}, f.api.Client())
	_, err := c.Sync(context.Background(), key)
	return f.api.Actions(), err
}

const create = "create serviceaccounts ns/default"

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
			if !resttest.Expect(t, got, tc.want...) || err != nil {
				t.Fatalf("actions %q, err %v; want %q", resttest.Lines(got), err, tc.want)
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
		f.api.Fail(resttest.On("create", "serviceaccounts"), tc.status)
		got, err := f.run("ns")
		if !resttest.Expect(t, got, create) || (err != nil) != tc.wantErr {
			t.Errorf("%d %s: actions %q err %v, want error %v", tc.status.Code, tc.status.Reason, resttest.Lines(got), err, tc.wantErr)
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
