package replicaset

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
	"testing"
	"time"

	"github.com/rs/zerolog"

	"github.com/kcmlab/kcm/clock"
	"github.com/kcmlab/kcm/ctrl"
	"github.com/kcmlab/kcm/informer"
	"github.com/kcmlab/kcm/kube/api"
	"github.com/kcmlab/kcm/kube/rest"
	"github.com/kcmlab/kcm/store"
)

// t0 is the fake clock's start.
var t0 = time.Date(2025, 6, 1, 12, 0, 0, 0, time.UTC)

// fixture is the sample-controller test shape: objects loaded into the
// listers, a fake apiserver that records every request the sync makes
// and answers as configured, and a recorder that keeps the events.
type fixture struct {
	t     *testing.T
	rss   []*api.ReplicaSet
	pods  []*api.Pod
	clock *clock.Fake

	// createFails, when set, answers the n-th pod create (from 1) with a
	// status; nil lets it succeed.
	createFails func(n int) *rest.Status
	// deleteFails answers the delete of the named pod with a status.
	deleteFails map[string]*rest.Status
	// statusFails answers the n-th status update (from 1) with a status.
	statusFails func(n int) *rest.Status
	// getRS is what GET replicaset answers; nil: the first of rss.
	getRS *api.ReplicaSet
	// getFails answers GET replicaset with a status.
	getFails *rest.Status

	srv    *httptest.Server
	client *rest.Client
	c      *Controller
	events *eventLog

	mu       sync.Mutex
	actions  []string
	creates  int
	updates  int
	bodies   map[string][][]byte // by action
	statuses []api.ReplicaSetStatus
}

func newFixture(t *testing.T) *fixture {
	f := &fixture{t: t, clock: clock.NewFake(t0), deleteFails: map[string]*rest.Status{}, bodies: map[string][][]byte{}}
	f.srv = httptest.NewServer(http.HandlerFunc(f.serve))
	t.Cleanup(f.srv.Close)
	c, err := rest.NewClient(&rest.Config{Host: f.srv.URL, QPS: -1}, rest.WithRetryPolicy(rest.RetryPolicy{MaxAttempts: 1}))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(c.CloseIdleConnections)
	f.client = c
	f.events = &eventLog{}
	return f
}

// eventLog is a recorder keeping "Type Reason Message" lines.
type eventLog struct {
	mu    sync.Mutex
	lines []string
	refs  []api.ObjectReference
}

func (e *eventLog) Eventf(ref api.ObjectReference, typ, reason, format string, args ...any) {
	e.mu.Lock()
	defer e.mu.Unlock()
	e.lines = append(e.lines, typ+" "+reason+" "+fmt.Sprintf(format, args...))
	e.refs = append(e.refs, ref)
}

func (e *eventLog) get() []string {
	e.mu.Lock()
	defer e.mu.Unlock()
	return slices.Clone(e.lines)
}

func failure(code int32, reason, msg string) *rest.Status {
	return &rest.Status{TypeMeta: api.TypeMeta{Kind: "Status", APIVersion: "v1"}, Status: "Failure", Code: code, Reason: reason, Message: msg}
}

func (f *fixture) answer(w http.ResponseWriter, st *rest.Status) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(int(st.Code))
	_ = json.NewEncoder(w).Encode(st)
}

func (f *fixture) reply(w http.ResponseWriter, code int, body []byte) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(code)
	_, _ = w.Write(body)
}

// serve records "VERB resource[/name[/sub]]" (the path after the
// namespace) and answers.
func (f *fixture) serve(w http.ResponseWriter, r *http.Request) {
	body, _ := io.ReadAll(r.Body)
	_, rel, _ := strings.Cut(r.URL.Path, "/namespaces/ns/")
	action := r.Method + " " + rel
	f.mu.Lock()
	f.actions = append(f.actions, action)
	f.bodies[action] = append(f.bodies[action], body)
	f.mu.Unlock()
	switch {
	case r.Method == http.MethodPost && rel == "pods":
		f.mu.Lock()
		f.creates++
		n := f.creates
		f.mu.Unlock()
		if f.createFails != nil {
			if st := f.createFails(n); st != nil {
				f.answer(w, st)
				return
			}
		}
		var m map[string]any
		_ = json.Unmarshal(body, &m)
		meta := m["metadata"].(map[string]any)
		meta["name"] = fmt.Sprintf("%s%d", meta["generateName"], n)
		out, _ := json.Marshal(m)
		f.reply(w, http.StatusCreated, out)
	case r.Method == http.MethodDelete && strings.HasPrefix(rel, "pods/"):
		if st := f.deleteFails[strings.TrimPrefix(rel, "pods/")]; st != nil {
			f.answer(w, st)
			return
		}
		f.reply(w, http.StatusOK, []byte(`{"kind":"Status","apiVersion":"v1","status":"Success"}`))
	case r.Method == http.MethodPatch && strings.HasPrefix(rel, "pods/"):
		f.reply(w, http.StatusOK, []byte(`{"kind":"Pod","apiVersion":"v1","metadata":{"name":"`+strings.TrimPrefix(rel, "pods/")+`"}}`))
	case r.Method == http.MethodGet && strings.HasPrefix(rel, "replicasets/"):
		if f.getFails != nil {
			f.answer(w, f.getFails)
			return
		}
		rs := f.getRS
		if rs == nil {
			rs = f.rss[0]
		}
		out, _ := json.Marshal(rs)
		f.reply(w, http.StatusOK, out)
	case r.Method == http.MethodPut && strings.HasSuffix(rel, "/status"):
		f.mu.Lock()
		f.updates++
		n := f.updates
		f.mu.Unlock()
		if f.statusFails != nil {
			if st := f.statusFails(n); st != nil {
				f.answer(w, st)
				return
			}
		}
		var rs api.ReplicaSet
		_ = json.Unmarshal(body, &rs)
		f.mu.Lock()
		f.statuses = append(f.statuses, rs.Status)
		f.mu.Unlock()
		f.reply(w, http.StatusOK, body)
	default:
		f.reply(w, http.StatusNotFound, []byte(`{"kind":"Status","apiVersion":"v1","status":"Failure","code":404,"reason":"NotFound"}`))
	}
}

// controller builds the controller on listers loaded with the fixture's
// objects (once; later calls return the same controller).
func (f *fixture) controller() *Controller {
	if f.c != nil {
		return f.c
	}
	rsStore := store.New(store.Options[*api.ReplicaSet]{Indexers: store.BuiltinIndexers[*api.ReplicaSet]()})
	rsStore.Replace(f.rss)
	podStore := store.New(store.Options[*api.Pod]{Indexers: store.BuiltinIndexers[*api.Pod]()})
	podStore.Replace(f.pods)
	f.c = NewController(informer.ReplicaSetLister{Lister: informer.NewLister(rsStore.View(), "replicasets")},
		informer.PodLister{Lister: informer.NewLister(podStore.View(), "pods")},
		f.client, Config{Clock: f.clock, Logger: zerolog.Nop(), Recorder: f.events})
	return f.c
}

// sync runs Sync on key once.
func (f *fixture) sync(key string) (ctrl.Result, error) {
	f.t.Helper()
	return f.controller().Sync(context.Background(), key)
}

// take returns and clears the actions so far, sorted when they ran
// concurrently is irrelevant to the test (sorted=true).
func (f *fixture) take(sorted bool) []string {
	f.mu.Lock()
	defer f.mu.Unlock()
	out := f.actions
	f.actions = nil
	if sorted {
		slices.Sort(out)
	}
	return out
}

func (f *fixture) count(action string) int {
	f.mu.Lock()
	defer f.mu.Unlock()
	n := 0
	for _, a := range f.actions {
		if a == action {
			n++
		}
	}
	return n
}

func (f *fixture) lastStatus() api.ReplicaSetStatus {
	f.mu.Lock()
	defer f.mu.Unlock()
	if len(f.statuses) == 0 {
		f.t.Fatal("no status written")
	}
	return f.statuses[len(f.statuses)-1]
}

// Builders.

var webLabels = map[string]string{"app": "web"}

// newRS returns a ReplicaSet as read from the apiserver: decoded from its
// JSON, so it keeps raw bytes like a cached object. extraSpec is spliced
// into the template's spec (fields kcm does not model).
func newRS(name string, replicas int32, extraSpec string) *api.ReplicaSet {
	rs := &api.ReplicaSet{
		TypeMeta:   api.TypeMeta{APIVersion: "apps/v1", Kind: "ReplicaSet"},
		ObjectMeta: api.ObjectMeta{Name: name, Namespace: "ns", UID: "uid-" + name, ResourceVersion: "7", Generation: 1},
		Spec: api.ReplicaSetSpec{
			Replicas: &replicas,
			Selector: &api.LabelSelector{MatchLabels: webLabels},
			Template: api.PodTemplateSpec{
				ObjectMeta: api.ObjectMeta{Labels: map[string]string{"app": "web", "tier": "front"}},
				Spec:       api.PodSpec{Containers: []api.Container{{Name: "c", Image: "nginx"}}},
			},
		},
		Status: api.ReplicaSetStatus{ObservedGeneration: 1},
	}
	return reread(rs, extraSpec)
}

// reread encodes rs and decodes it back, optionally splicing extraSpec
// (`"key":value`) into spec.template.spec.
func reread(rs *api.ReplicaSet, extraSpec string) *api.ReplicaSet {
	data, err := json.Marshal(rs)
	if err != nil {
		panic(err)
	}
	if extraSpec != "" {
		data = []byte(strings.Replace(string(data), `"spec":{"containers"`, `"spec":{`+extraSpec+`,"containers"`, 1))
	}
	out, err := api.Typed[api.ReplicaSet]().Decode(data)
	if err != nil {
		panic(err)
	}
	return out
}

// podOpt changes a test pod.
type podOpt func(*api.Pod)

func newPod(name string, opts ...podOpt) *api.Pod {
	p := &api.Pod{ObjectMeta: api.ObjectMeta{Name: name, Namespace: "ns", UID: "uid-" + name,
		Labels: map[string]string{"app": "web", "tier": "front"}, CreationTimestamp: api.Time{Time: t0.Add(-time.Hour)}},
		Status: api.PodStatus{Phase: api.PodRunning}}
	for _, o := range opts {
		o(p)
	}
	return p
}

// ownedBy sets rs as the pod's controller.
func ownedBy(rs *api.ReplicaSet) podOpt {
	return func(p *api.Pod) {
		t := true
		p.OwnerReferences = []api.OwnerReference{{APIVersion: "apps/v1", Kind: "ReplicaSet", Name: rs.Name, UID: rs.UID, Controller: &t, BlockOwnerDeletion: &t}}
	}
}

// ready makes the pod Ready since at.
func ready(at time.Time) podOpt {
	return func(p *api.Pod) {
		p.Status.Conditions = append(p.Status.Conditions, api.PodCondition{Type: api.PodReady, Status: api.ConditionTrue, LastTransitionTime: api.Time{Time: at}})
	}
}

func onNode(n string) podOpt { return func(p *api.Pod) { p.Spec.NodeName = n } }

func phase(ph api.PodPhase) podOpt { return func(p *api.Pod) { p.Status.Phase = ph } }

func created(at time.Time) podOpt {
	return func(p *api.Pod) { p.CreationTimestamp = api.Time{Time: at} }
}

func withLabels(l map[string]string) podOpt { return func(p *api.Pod) { p.Labels = l } }

func deleting() podOpt {
	return func(p *api.Pod) { p.DeletionTimestamp = &api.Time{Time: t0} }
}

func restartsOf(n int32) podOpt {
	return func(p *api.Pod) {
		p.Status.ContainerStatuses = append(p.Status.ContainerStatuses, api.ContainerStatus{Name: "c", RestartCount: n})
	}
}

func annotated(k, v string) podOpt {
	return func(p *api.Pod) {
		if p.Annotations == nil {
			p.Annotations = map[string]string{}
		}
		p.Annotations[k] = v
	}
}

func ownedPods(rs *api.ReplicaSet, n int, opts ...podOpt) []*api.Pod {
	out := make([]*api.Pod, n)
	for i := range out {
		out[i] = newPod(fmt.Sprintf("%s-p%d", rs.Name, i), append([]podOpt{ownedBy(rs), onNode("n1")}, opts...)...)
	}
	return out
}
