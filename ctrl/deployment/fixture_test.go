package deployment

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

// t0 is the fake clock's start in every unit test.
var t0 = time.Date(2025, 6, 1, 12, 0, 0, 0, time.UTC)

// fixture is the sample-controller test shape: objects loaded into the
// listers, a fake apiserver that records every write the sync makes and
// answers it (echoing the body, or with a chosen error), a recorder that
// keeps the events.
type fixture struct {
	t           *testing.T
	deployments []*api.Deployment
	replicaSets []*api.ReplicaSet
	pods        []*api.Pod
	clock       *clock.Fake
	// fail maps "VERB resource[/subresource]" (e.g. "POST replicasets",
	// "PUT deployments/status") to the Status to answer with.
	fail map[string]*rest.Status

	mu      sync.Mutex
	actions []action
	events  []string
}

// action is one request the sync made.
type action struct {
	verb, resource, sub, name string
	body                      map[string]any
	raw                       []byte
}

func (a action) String() string {
	r := a.resource
	if a.sub != "" {
		r += "/" + a.sub
	}
	return a.verb + " " + r + " " + a.name
}

func newFixture(t *testing.T) *fixture {
	return &fixture{t: t, clock: clock.NewFake(t0), fail: map[string]*rest.Status{}}
}

// Eventf implements EventRecorder.
func (f *fixture) Eventf(ref api.ObjectReference, eventType, reason, format string, args ...any) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.events = append(f.events, eventType+" "+reason+" "+fmt.Sprintf(format, args...))
}

// parsePath splits /apis/apps/v1/namespaces/ns/replicasets/name/status.
func parsePath(p string) (resource, name, sub string) {
	parts := strings.Split(strings.Trim(p, "/"), "/")
	for i, s := range parts {
		if s == "namespaces" && i+2 < len(parts) {
			rest := parts[i+2:]
			resource = rest[0]
			if len(rest) > 1 {
				name = rest[1]
			}
			if len(rest) > 2 {
				sub = rest[2]
			}
			return
		}
	}
	return
}

func (f *fixture) serve(w http.ResponseWriter, r *http.Request) {
	raw, _ := io.ReadAll(r.Body)
	var body map[string]any
	_ = json.Unmarshal(raw, &body)
	res, name, sub := parsePath(r.URL.Path)
	if name == "" {
		if md, ok := body["metadata"].(map[string]any); ok {
			name, _ = md["name"].(string)
		}
	}
	a := action{verb: r.Method, resource: res, sub: sub, name: name, body: body, raw: raw}
	f.mu.Lock()
	f.actions = append(f.actions, a)
	f.mu.Unlock()
	w.Header().Set("Content-Type", "application/json")
	key := r.Method + " " + res
	if sub != "" {
		key += "/" + sub
	}
	if st := f.fail[key]; st != nil {
		st.Kind, st.APIVersion, st.Status = "Status", "v1", "Failure"
		w.WriteHeader(int(st.Code))
		_ = json.NewEncoder(w).Encode(st)
		return
	}
	switch r.Method {
	case http.MethodGet:
		for _, d := range f.deployments {
			if res == "deployments" && d.Name == name {
				_ = json.NewEncoder(w).Encode(d)
				return
			}
		}
		w.WriteHeader(http.StatusNotFound)
		_, _ = w.Write([]byte(`{"kind":"Status","apiVersion":"v1","status":"Failure","reason":"NotFound","code":404}`))
	case http.MethodDelete:
		_, _ = w.Write([]byte(`{"kind":"Status","apiVersion":"v1","status":"Success"}`))
	case http.MethodPatch:
		_, _ = fmt.Fprintf(w, `{"metadata":{"name":%q}}`, name)
	default:
		if r.Method == http.MethodPost {
			w.WriteHeader(http.StatusCreated)
		}
		_, _ = w.Write(raw)
	}
}

// run loads the listers, syncs key once and returns the sync's result
// and error. The actions and events are on f.
func (f *fixture) run(key string) (ctrl.Result, error) {
	f.t.Helper()
	srv := httptest.NewServer(http.HandlerFunc(f.serve))
	defer srv.Close()
	client, err := rest.NewClient(&rest.Config{Host: srv.URL, QPS: -1}, rest.WithRetryPolicy(rest.RetryPolicy{MaxAttempts: 1}))
	if err != nil {
		f.t.Fatal(err)
	}
	defer client.CloseIdleConnections()
	c := f.controller(client)
	return c.Sync(context.Background(), key)
}

func (f *fixture) controller(client *rest.Client) *Controller {
	ds := store.New(store.Options[*api.Deployment]{})
	ds.Replace(f.deployments)
	rss := store.New(store.Options[*api.ReplicaSet]{})
	rss.Replace(f.replicaSets)
	ps := store.New(store.Options[*api.Pod]{})
	ps.Replace(f.pods)
	return NewController(Config{
		Deployments: informer.DeploymentLister{Lister: informer.NewLister(ds.View(), "deployments")},
		ReplicaSets: informer.ReplicaSetLister{Lister: informer.NewLister(rss.View(), "replicasets")},
		Pods:        informer.PodLister{Lister: informer.NewLister(ps.View(), "pods")},
		Client:      client, Events: f, Clock: f.clock, Logger: zerolog.Nop(),
	})
}

// writes returns the actions as strings.
func (f *fixture) writes() []string {
	f.mu.Lock()
	defer f.mu.Unlock()
	out := make([]string, len(f.actions))
	for i, a := range f.actions {
		out[i] = a.String()
	}
	return out
}

// find returns the last action matching verb, resource and name ("" =
// any name).
func (f *fixture) find(verb, resource, name string) (action, bool) {
	f.mu.Lock()
	defer f.mu.Unlock()
	for i := len(f.actions) - 1; i >= 0; i-- {
		a := f.actions[i]
		r := a.resource
		if a.sub != "" {
			r += "/" + a.sub
		}
		if a.verb == verb && r == resource && (name == "" || a.name == name) {
			return a, true
		}
	}
	return action{}, false
}

// rsSizes returns, for each PUT of a ReplicaSet, "name=replicas".
func (f *fixture) rsSizes() []string {
	f.mu.Lock()
	defer f.mu.Unlock()
	var out []string
	for _, a := range f.actions {
		if a.resource != "replicasets" || (a.verb != http.MethodPut && a.verb != http.MethodPost) {
			continue
		}
		spec, _ := a.body["spec"].(map[string]any)
		out = append(out, fmt.Sprintf("%s=%v", a.name, spec["replicas"]))
	}
	return out
}

// lastStatus decodes the last status write of the Deployment.
func (f *fixture) lastStatus() (*api.Deployment, bool) {
	a, ok := f.find(http.MethodPut, "deployments/status", "")
	if !ok {
		return nil, false
	}
	d, err := api.Typed[api.Deployment]().Decode(a.raw)
	if err != nil {
		f.t.Fatal(err)
	}
	return d, true
}

// roundTrip encodes obj and decodes it back, so that it carries raw JSON
// as objects from the apiserver do.
func roundTrip[S any, P api.TypedPtr[S]](t *testing.T, obj P) P {
	t.Helper()
	b, err := json.Marshal(obj)
	if err != nil {
		t.Fatal(err)
	}
	out, err := api.Typed[S, P]().Decode(b)
	if err != nil {
		t.Fatal(err)
	}
	return out
}

func i32(n int32) *int32 { return &n }

func intstr(s string) *api.IntOrString {
	if strings.HasSuffix(s, "%") {
		v := api.IntOrStringFromString(s)
		return &v
	}
	var n int32
	_, _ = fmt.Sscan(s, &n)
	v := api.IntOrStringFromInt(n)
	return &v
}

// newDeployment is a RollingUpdate Deployment as the apiserver stores it:
// defaults filled in, template labelled app=<name>.
func newDeployment(name string, replicas int32, image string) *api.Deployment {
	return &api.Deployment{
		TypeMeta: api.TypeMeta{APIVersion: "apps/v1", Kind: "Deployment"},
		ObjectMeta: api.ObjectMeta{Name: name, Namespace: "ns", UID: "uid-" + name, Generation: 1,
			ResourceVersion: "10", CreationTimestamp: api.NewTime(t0.Add(-time.Hour))},
		Spec: api.DeploymentSpec{
			Replicas: i32(replicas),
			Selector: &api.LabelSelector{MatchLabels: map[string]string{"app": name}},
			Template: api.PodTemplateSpec{
				ObjectMeta: api.ObjectMeta{Labels: map[string]string{"app": name}},
				Spec:       api.PodSpec{Containers: []api.Container{{Name: "c", Image: image}}},
			},
			Strategy: api.DeploymentStrategy{Type: api.RollingUpdateDeploymentStrategyType,
				RollingUpdate: &api.RollingUpdateDeployment{MaxSurge: intstr("25%"), MaxUnavailable: intstr("25%")}},
			RevisionHistoryLimit:    i32(10),
			ProgressDeadlineSeconds: i32(600),
		},
	}
}

// newRS is a ReplicaSet of d with d's current template, revision rev,
// sized replicas with every replica available, created at t0+age.
func newRS(d *api.Deployment, name string, rev int, replicas int32, age time.Duration) *api.ReplicaSet {
	tmpl := d.Spec.Template
	tmpl.Labels = withLabel(tmpl.Labels, PodTemplateHashLabel, strings.TrimPrefix(name, d.Name+"-"))
	t := true
	return &api.ReplicaSet{
		TypeMeta: api.TypeMeta{APIVersion: "apps/v1", Kind: "ReplicaSet"},
		ObjectMeta: api.ObjectMeta{Name: name, Namespace: d.Namespace, UID: "uid-" + name, Generation: 1,
			ResourceVersion: "5", CreationTimestamp: api.NewTime(t0.Add(age)), Labels: tmpl.Labels,
			Annotations: map[string]string{RevisionAnnotation: fmt.Sprint(rev),
				DesiredReplicasAnnotation: fmt.Sprint(desired(d)), MaxReplicasAnnotation: fmt.Sprint(desired(d) + MaxSurge(d))},
			OwnerReferences: []api.OwnerReference{{APIVersion: "apps/v1", Kind: "Deployment", Name: d.Name, UID: d.UID, Controller: &t, BlockOwnerDeletion: &t}}},
		Spec: api.ReplicaSetSpec{Replicas: i32(replicas),
			Selector: selectorWithLabel(d.Spec.Selector, PodTemplateHashLabel, tmpl.Labels[PodTemplateHashLabel]),
			Template: tmpl},
		Status: api.ReplicaSetStatus{Replicas: replicas, ReadyReplicas: replicas, AvailableReplicas: replicas, ObservedGeneration: 1},
	}
}

// withStatus sets a ReplicaSet's status counters.
func withStatus(rs *api.ReplicaSet, replicas, ready, available int32) *api.ReplicaSet {
	rs.Status.Replicas, rs.Status.ReadyReplicas, rs.Status.AvailableReplicas = replicas, ready, available
	return rs
}

// load round-trips and stores the objects of the fixture.
func (f *fixture) load(ds []*api.Deployment, rss ...*api.ReplicaSet) {
	for _, d := range ds {
		f.deployments = append(f.deployments, roundTrip(f.t, d))
	}
	for _, rs := range rss {
		f.replicaSets = append(f.replicaSets, roundTrip(f.t, rs))
	}
}

// with runs fn on a syncer wired to the fake apiserver and the fixture's
// listers, for tests of one step of a sync.
func (f *fixture) with(fn func(s *syncer)) {
	f.t.Helper()
	srv := httptest.NewServer(http.HandlerFunc(f.serve))
	defer srv.Close()
	client, err := rest.NewClient(&rest.Config{Host: srv.URL, QPS: -1}, rest.WithRetryPolicy(rest.RetryPolicy{MaxAttempts: 1}))
	if err != nil {
		f.t.Fatal(err)
	}
	defer client.CloseIdleConnections()
	fn(&syncer{Controller: f.controller(client)})
}

// apply plays the recorded writes onto the fixture's objects, as the
// apiserver would have stored them, then forgets them: created
// ReplicaSets get a UID and a creation time (the clock moves a second per
// creation); with settle, every ReplicaSet's status then reports its spec
// (a ReplicaSet controller and kubelet that are done), else statuses stay.
func (f *fixture) apply(settle bool) {
	f.t.Helper()
	f.mu.Lock()
	acts := f.actions
	f.actions, f.events = nil, nil
	f.mu.Unlock()
	for _, a := range acts {
		switch {
		case a.resource == "replicasets" && (a.verb == http.MethodPost || a.verb == http.MethodPut):
			rs, err := api.Typed[api.ReplicaSet]().Decode(a.raw)
			if err != nil {
				f.t.Fatal(err)
			}
			if a.verb == http.MethodPost {
				f.clock.Step(time.Second)
				rs.UID, rs.CreationTimestamp, rs.Generation = "uid-"+rs.Name, api.NewTime(f.clock.Now()), 1
			}
			f.replicaSets = replaceRS(f.replicaSets, roundTrip(f.t, rs))
		case a.resource == "replicasets" && a.verb == http.MethodDelete:
			f.replicaSets = slices.DeleteFunc(f.replicaSets, func(rs *api.ReplicaSet) bool { return rs.Name == a.name })
		case a.resource == "deployments" && a.verb == http.MethodPut:
			d, err := api.Typed[api.Deployment]().Decode(a.raw)
			if err != nil {
				f.t.Fatal(err)
			}
			for i := range f.deployments {
				if f.deployments[i].Name == d.Name {
					f.deployments[i] = d
				}
			}
		}
	}
	if settle {
		for i, rs := range f.replicaSets {
			rs = roundTrip(f.t, rs)
			n := specReplicas(rs)
			rs.Status.Replicas, rs.Status.ReadyReplicas, rs.Status.AvailableReplicas = n, n, n
			rs.Status.ObservedGeneration = rs.Generation
			f.replicaSets[i] = roundTrip(f.t, rs)
		}
	}
}

func replaceRS(list []*api.ReplicaSet, rs *api.ReplicaSet) []*api.ReplicaSet {
	for i := range list {
		if list[i].Name == rs.Name {
			if rs.UID == "" {
				rs.UID, rs.CreationTimestamp, rs.Generation = list[i].UID, list[i].CreationTimestamp, list[i].Generation
			}
			out := slices.Clone(list)
			out[i] = rs
			return out
		}
	}
	return append(slices.Clone(list), rs)
}

// sizes returns "name=spec.replicas" of every ReplicaSet, sorted.
func (f *fixture) sizes() []string {
	var out []string
	for _, rs := range f.replicaSets {
		out = append(out, fmt.Sprintf("%s=%d", rs.Name, specReplicas(rs)))
	}
	slices.Sort(out)
	return out
}

// rsNamed returns the fixture's ReplicaSet of that name, or nil.
func (f *fixture) rsNamed(name string) *api.ReplicaSet {
	for _, rs := range f.replicaSets {
		if rs.Name == name {
			return rs
		}
	}
	return nil
}

// eventList returns the events recorded since the last apply.
func (f *fixture) eventList() []string {
	f.mu.Lock()
	defer f.mu.Unlock()
	return slices.Clone(f.events)
}
