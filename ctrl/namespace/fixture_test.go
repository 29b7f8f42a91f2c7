package namespace

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/rs/zerolog"

	"github.com/kcmlab/kcm/clock"
	"github.com/kcmlab/kcm/ctrl"
	"github.com/kcmlab/kcm/internal/testing/resttest"
	"github.com/kcmlab/kcm/kube/api"
	"github.com/kcmlab/kcm/kube/rest"
)

// t0 is the fake clock's start; the namespace was deleted at tDeleted.
var (
	t0       = time.Date(2025, 6, 1, 12, 0, 0, 0, time.UTC)
	tDeleted = t0.Add(-10 * time.Second)
)

// Resources of the fixtures' discovery.
var (
	configMaps = rest.APIResource{Resource: rest.ConfigMaps, Verbs: verbs("create delete deletecollection get list patch update watch")}
	podsRes    = rest.APIResource{Resource: rest.Pods, Verbs: verbs("create delete deletecollection get list patch update watch")}
	// widgets cannot be deleted as a collection: list, then one by one.
	widgets = rest.APIResource{Resource: rest.Resource{Group: "example.com", Version: "v1", Resource: "widgets", Kind: "Widget", Namespaced: true},
		Verbs: verbs("delete get list")}
	// bindings cannot be deleted at all: skipped.
	bindings = rest.APIResource{Resource: rest.Resource{Version: "v1", Resource: "bindings", Kind: "Binding", Namespaced: true}, Verbs: verbs("create")}
	// nodes are not namespaced: skipped.
	nodes = rest.APIResource{Resource: rest.Nodes, Verbs: verbs("delete deletecollection list")}
	// blind can be deleted but not listed: delete collection, no check.
	blind = rest.APIResource{Resource: rest.Resource{Group: "example.com", Version: "v1", Resource: "blinds", Kind: "Blind", Namespaced: true},
		Verbs: verbs("delete deletecollection")}
)

func verbs(s string) []string { return strings.Fields(s) }

// fakeObject is one object of the namespace's content.
type fakeObject struct {
	name       string
	finalizers []string
	// grace and phase are a pod's terminationGracePeriodSeconds and
	// status.phase; a pod with a grace period is on a node, so its
	// delete leaves it terminating for that long (a kubelet has not
	// confirmed yet), unless it has finished.
	grace *int64
	phase api.PodPhase
	// sticky objects survive their deletion without any reason a client
	// can see: the apiserver accepts their deletes and keeps them.
	sticky bool
}

// raw is the object as the apiserver holds it.
func (o *fakeObject) raw(t *testing.T, res rest.Resource) *api.RawObject {
	t.Helper()
	m := map[string]any{"metadata": map[string]any{"name": o.name, "namespace": "ns", "finalizers": o.finalizers}}
	if res == rest.Pods {
		spec := map[string]any{"containers": []any{map[string]any{"name": "c", "image": "i"}}}
		if o.grace != nil {
			spec["terminationGracePeriodSeconds"] = *o.grace
			spec["nodeName"] = "n1"
		}
		m["spec"] = spec
		m["status"] = map[string]any{"phase": string(o.phase)}
	}
	r, err := api.NewRawObject(m)
	if err != nil {
		t.Fatal(err)
	}
	return r
}

// fixture is the sample-controller test shape: the namespace loaded into
// the lister, the recording fake apiserver (resttest) holding the
// namespace and its content, and the controller on a fake clock.
type fixture struct {
	t     *testing.T
	clock *clock.Fake
	// ns is the namespace the apiserver holds at the first run; nil: none.
	ns *api.Namespace
	// cached is what the lister holds; nil: the namespace as the
	// apiserver holds it when the run starts (the cache caught up).
	cached *api.Namespace
	// resources is what discovery returns, with discoverErr.
	resources   []rest.APIResource
	discoverErr error

	api     *resttest.Server
	seeded  bool
	content []content // what add gave the apiserver
	// finalized is the last finalize of the namespace.
	finalized *resttest.Action
}

// content names one object of the namespace's content.
type content struct {
	res  rest.Resource
	name string
}

func newFixture(t *testing.T) *fixture {
	dt := api.NewTime(tDeleted)
	f := &fixture{
		t: t, clock: clock.NewFake(t0),
		ns: &api.Namespace{
			ObjectMeta: api.ObjectMeta{Name: "ns", UID: "uid-1", ResourceVersion: "1", DeletionTimestamp: &dt},
			Spec:       api.NamespaceSpec{Finalizers: []string{api.FinalizerKubernetes}},
			Status:     api.NamespaceStatus{Phase: api.NamespaceTerminating},
		},
		resources: []rest.APIResource{configMaps, podsRes, widgets, bindings, nodes, blind},
	}
	f.api = resttest.New(t, resttest.Options{Clock: f.clock})
	return f
}

// add puts objects of res into namespace ns.
func (f *fixture) add(res rest.Resource, objs ...*fakeObject) {
	for _, o := range objs {
		resttest.Add(f.api, res, o.raw(f.t, res))
		f.content = append(f.content, content{res, o.name})
		if o.sticky {
			f.api.Intercept(resttest.On("delete", res.Resource).Named("ns/"+o.name), func(resttest.Action) error { return resttest.NoOp })
			f.api.Intercept(resttest.On("deletecollection", res.Resource), func(resttest.Action) error { return resttest.NoOp })
		}
	}
}

// remaining returns "resource/name" of the content objects the apiserver
// still holds.
func (f *fixture) remaining() []string {
	var out []string
	for _, c := range f.content {
		if _, ok := resttest.Get[*api.RawObject](f.api, c.res, "ns", c.name); ok {
			out = append(out, c.res.Resource+"/"+c.name)
		}
	}
	return out
}

// finish removes the content: whatever held it let go.
func (f *fixture) finish() {
	for _, c := range f.content {
		f.api.Remove(c.res, "ns", c.name)
	}
}

func failure(code int32, reason, msg string) rest.Status { return resttest.Failure(code, reason, msg) }

func forbidden(verb, resource string) rest.Status {
	return failure(403, "Forbidden", resource+` is forbidden: User "system:serviceaccount:kube-system:namespace-controller" cannot `+
		verb+` resource "`+resource+`" in API group "" in the namespace "ns"`)
}

// run loads the apiserver (at the first run) and the lister and syncs the
// namespace once, returning the result, the error and the actions of
// this run.
func (f *fixture) run() (ctrl.Result, error, []resttest.Action) {
	f.t.Helper()
	if !f.seeded && f.ns != nil {
		resttest.Add(f.api, rest.Namespaces, f.ns)
	}
	f.seeded = true
	cached := f.cached
	if cached == nil {
		cached, _ = resttest.Get[*api.Namespace](f.api, rest.Namespaces, "", "ns")
	}
	var objs []*api.Namespace
	if cached != nil {
		objs = append(objs, cached)
	}
	c := NewController(resttest.Lister("namespaces", objs...), f.api.Client(), Config{
		Clock: f.clock, Logger: zerolog.Nop(),
		Discover: func(context.Context) ([]rest.APIResource, error) { return f.resources, f.discoverErr },
	})
	f.api.Take()
	res, err := c.Sync(context.Background(), "ns")
	actions := f.api.Take()
	if a, ok := resttest.Last(actions, putFinal); ok {
		f.finalized = &a
	}
	return res, err, actions
}

// state is the namespace as the apiserver holds it, or, once its finalize
// removed it, as that finalize left it; nil: never finalized and gone.
func (f *fixture) state() *api.Namespace {
	f.t.Helper()
	if ns, ok := resttest.Get[*api.Namespace](f.api, rest.Namespaces, "", "ns"); ok {
		return ns
	}
	if f.finalized == nil {
		return nil
	}
	ns, err := resttest.Decode[*api.Namespace](*f.finalized)
	if err != nil {
		f.t.Fatal(err)
	}
	return ns
}

// condition returns the namespace's condition of the type as
// "Status Reason: Message".
func (f *fixture) condition(typ string) string {
	ns := f.state()
	if ns == nil {
		return "<namespace gone>"
	}
	for _, c := range ns.Status.Conditions {
		if c.Type == typ {
			return string(c.Status) + " " + c.Reason + ": " + c.Message
		}
	}
	return "<none>"
}

// has reports whether actions hold one that starts with pattern's words.
func has(actions []resttest.Action, pattern string) bool {
	return len(resttest.Select(actions, pattern)) > 0
}

func grace(s int64) *int64 { return &s }
