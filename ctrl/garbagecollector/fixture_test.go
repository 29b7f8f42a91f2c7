package garbagecollector

import (
	"sync"
	"testing"
	"time"

	"github.com/rs/zerolog"

	"github.com/kcmlab/kcm/clock"
	"github.com/kcmlab/kcm/internal/testing/resttest"
	"github.com/kcmlab/kcm/kube/api"
	"github.com/kcmlab/kcm/kube/rest"
)

// The resources of the unit tests' fake server, in discovery's form.
var (
	widgets     = rest.Resource{Group: "example.com", Version: "v1", Resource: "widgets", Kind: "Widget", Namespaced: true}
	clusterRole = rest.Resource{Group: "rbac.authorization.k8s.io", Version: "v1", Resource: "clusterroles", Kind: "ClusterRole"}
	testAPIs    = []rest.APIResource{
		{Resource: rest.Pods, Verbs: []string{"create", "delete", "get", "list", "patch", "watch"}},
		{Resource: rest.ConfigMaps, Verbs: []string{"delete", "get", "list", "watch"}},
		{Resource: rest.Nodes, Verbs: []string{"delete", "get", "list", "watch"}},
		{Resource: rest.Events, Verbs: []string{"delete", "get", "list", "watch"}},
		{Resource: rest.ReplicaSets, Verbs: []string{"delete", "get", "list", "watch"}},
		{Resource: rest.Deployments, Verbs: []string{"delete", "get", "list", "watch"}},
		{Resource: clusterRole, Verbs: []string{"delete", "get", "list", "watch"}},
		{Resource: widgets, Verbs: []string{"delete", "get", "list", "watch"}},
		{Resource: rest.Resource{Version: "v1", Resource: "bindings", Kind: "Binding", Namespaced: true}, Verbs: []string{"create"}},
	}
)

// obj builds a live object: kind and apiVersion pick the resource.
func obj(apiVersion, kind, ns, name, uid, rv string, owners ...api.OwnerReference) *api.RawObject {
	return &api.RawObject{TypeMeta: api.TypeMeta{APIVersion: apiVersion, Kind: kind},
		ObjectMeta: api.ObjectMeta{Namespace: ns, Name: name, UID: uid, ResourceVersion: rv, OwnerReferences: owners}}
}

func resourceOf(apiVersion, kind string) rest.Resource {
	m := &mapper{}
	m.set(testAPIs)
	r, err := m.resourceFor(apiVersion, kind)
	if err != nil {
		panic(err)
	}
	return r
}

// put gives the apiserver o, in place of any object of its name.
func put(s *resttest.Server, o *api.RawObject) {
	resttest.Add(s, resourceOf(o.APIVersion, o.Kind), o)
}

// recordingQueue records the keys added to it.
type recordingQueue struct {
	mu          sync.Mutex
	added       []string
	rateLimited []string
}

func (q *recordingQueue) Add(k string) {
	q.mu.Lock()
	defer q.mu.Unlock()
	q.added = append(q.added, k)
}

func (q *recordingQueue) AddRateLimited(k string) {
	q.mu.Lock()
	defer q.mu.Unlock()
	q.rateLimited = append(q.rateLimited, k)
}

// fixture is a collector acting through the recording fake apiserver
// (resttest) that holds the live objects, with recording queues.
type fixture struct {
	c                *Collector
	api              *resttest.Server
	deleteQ, orphanQ *recordingQueue
	events           *resttest.Events
	clk              *clock.Fake // the collector's clock, given through Config
}

func newFixture(t *testing.T, live ...*api.RawObject) *fixture {
	t.Helper()
	f := &fixture{api: resttest.New(t, resttest.Options{}), deleteQ: &recordingQueue{}, orphanQ: &recordingQueue{}, events: &resttest.Events{},
		clk: clock.NewFake(time.Date(2025, 6, 1, 12, 0, 0, 0, time.UTC))}
	for _, o := range live {
		put(f.api, o)
	}
	f.c = NewCollector(RESTObjectAPI{Client: f.api.Client()}, f.deleteQ, f.orphanQ, Config{Logger: zerolog.Nop(), Recorder: f.events, Clock: f.clk})
	f.c.mapper.set(testAPIs)
	f.c.jitter = func() float64 { return 0 }
	return f
}

// observe feeds the graph the add of each object, as its informer would.
func (f *fixture) observe(objs ...*api.RawObject) {
	for _, o := range objs {
		f.c.Apply(Change{Type: Added, APIVersion: o.APIVersion, Kind: o.Kind, Object: &o.ObjectMeta})
	}
	f.deleteQ.added, f.orphanQ.added = nil, nil
}

// wantActions checks the calls the collector made to the apiserver.
func wantActions(t *testing.T, f *fixture, want ...string) {
	t.Helper()
	resttest.Expect(t, f.api.Actions(), want...)
}
