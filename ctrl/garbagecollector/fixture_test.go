package garbagecollector

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/rs/zerolog"

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

// fakeAPI is an apiserver of metadata: it answers Get from its objects,
// checks delete preconditions and refuses strategic merge patches of
// custom resources, as kube-apiserver does, and records every call as a
// line: "get pods ns/name", "delete replicasets ns/web-1 uid=rs1 rv=7
// policy=Background", "patch pods ns/p strategic {…}".
type fakeAPI struct {
	mu      sync.Mutex
	objects map[string]*api.RawObject // by "resource ns/name"
	actions []string
	// fail, when set, may fail a call before it is carried out.
	fail func(action string) error
}

func newFakeAPI(objs ...*api.RawObject) *fakeAPI {
	f := &fakeAPI{objects: map[string]*api.RawObject{}}
	for _, o := range objs {
		f.put(o)
	}
	return f
}

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

func fakeKey(res rest.Resource, ns, name string) string {
	return res.Resource + " " + strings.TrimPrefix(namespaceFor(res, ns)+"/"+name, "/")
}

func (f *fakeAPI) put(o *api.RawObject) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.objects[fakeKey(resourceOf(o.APIVersion, o.Kind), o.Namespace, o.Name)] = o
}

func (f *fakeAPI) record(action string) error {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.actions = append(f.actions, action)
	if f.fail != nil {
		return f.fail(action)
	}
	return nil
}

func (f *fakeAPI) took() []string {
	f.mu.Lock()
	defer f.mu.Unlock()
	return slices.Clone(f.actions)
}

func statusErr(code int32, reason string) error {
	return rest.StatusErrorFrom("X", "/x", rest.Status{Code: code, Reason: reason})
}

func (f *fakeAPI) Get(_ context.Context, res rest.Resource, ns, name string) (*api.RawObject, error) {
	key := fakeKey(res, ns, name)
	if err := f.record("get " + key); err != nil {
		return nil, err
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	o, ok := f.objects[key]
	if !ok {
		return nil, statusErr(404, "NotFound")
	}
	return o, nil
}

func (f *fakeAPI) Delete(_ context.Context, res rest.Resource, ns, name string, opts rest.DeleteOptions) error {
	key := fakeKey(res, ns, name)
	var pre []string
	if p := opts.Preconditions; p != nil {
		if p.UID != nil {
			pre = append(pre, "uid="+*p.UID)
		}
		if p.ResourceVersion != nil {
			pre = append(pre, "rv="+*p.ResourceVersion)
		}
	}
	if err := f.record(fmt.Sprintf("delete %s %s policy=%s", key, strings.Join(pre, " "), opts.PropagationPolicy)); err != nil {
		return err
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	o, ok := f.objects[key]
	switch {
	case !ok:
		return statusErr(404, "NotFound")
	case opts.Preconditions != nil && opts.Preconditions.UID != nil && *opts.Preconditions.UID != o.UID,
		opts.Preconditions != nil && opts.Preconditions.ResourceVersion != nil && *opts.Preconditions.ResourceVersion != o.ResourceVersion:
		return statusErr(409, "Conflict")
	}
	delete(f.objects, key)
	return nil
}

func (f *fakeAPI) Patch(_ context.Context, res rest.Resource, ns, name string, pt rest.PatchType, patch []byte) error {
	key := fakeKey(res, ns, name)
	kind := map[rest.PatchType]string{rest.StrategicMergePatch: "strategic", rest.MergePatch: "merge"}[pt]
	if err := f.record(fmt.Sprintf("patch %s %s %s", key, kind, patch)); err != nil {
		return err
	}
	if pt == rest.StrategicMergePatch && res.Group == widgets.Group {
		return statusErr(415, "UnsupportedMediaType")
	}
	return nil
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

// recordedEvent is one event the collector recorded.
type recordedEvent struct {
	ref                     api.ObjectReference
	eventType, reason, text string
}

type eventLog struct {
	mu     sync.Mutex
	events []recordedEvent
}

func (l *eventLog) Eventf(ref api.ObjectReference, eventType, reason, format string, args ...any) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.events = append(l.events, recordedEvent{ref, eventType, reason, fmt.Sprintf(format, args...)})
}

// fixture is a collector on a fake server, with recording queues.
type fixture struct {
	c                *Collector
	api              *fakeAPI
	deleteQ, orphanQ *recordingQueue
	events           *eventLog
}

func newFixture(t *testing.T, live ...*api.RawObject) *fixture {
	t.Helper()
	f := &fixture{api: newFakeAPI(live...), deleteQ: &recordingQueue{}, orphanQ: &recordingQueue{}, events: &eventLog{}}
	f.c = NewCollector(f.api, f.deleteQ, f.orphanQ, Config{Logger: zerolog.Nop(), Recorder: f.events})
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

func wantActions(t *testing.T, f *fixture, want ...string) {
	t.Helper()
	if got := f.api.took(); !slices.Equal(got, want) {
		t.Errorf("API calls:\n got %q\nwant %q", got, want)
	}
}
