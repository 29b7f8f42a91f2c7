package deployment

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/rs/zerolog"

	"github.com/kcmlab/kcm/clock"
	"github.com/kcmlab/kcm/ctrl"
	"github.com/kcmlab/kcm/informer"
	"github.com/kcmlab/kcm/internal/testing/resttest"
	"github.com/kcmlab/kcm/kube/api"
	"github.com/kcmlab/kcm/kube/api/decode"
	"github.com/kcmlab/kcm/kube/rest"
)

// t0 is the fake clock's start in every unit test.
var t0 = time.Date(2025, 6, 1, 12, 0, 0, 0, time.UTC)

// fixture is the sample-controller test shape: objects loaded into the
// listers and held by the recording fake apiserver (resttest), which
// answers the writes the sync makes, and a recorder that keeps the
// events.
type fixture struct {
	t           *testing.T
	deployments []*api.Deployment
	replicaSets []*api.ReplicaSet
	pods        []*api.Pod
	// stored are ReplicaSets the apiserver holds that the listers do not
	// show: the ones a test of one step passes to it.
	stored []*api.ReplicaSet
	clock  *clock.Fake
	api    *resttest.Server
	events resttest.Events
}

// creationClock is the apiserver's clock: each object it creates is a
// second younger than the one before (the fake clock moves a second per
// creation), so that creation order shows in creationTimestamp.
type creationClock struct{ *clock.Fake }

func (c creationClock) Now() time.Time {
	c.Step(time.Second)
	return c.Fake.Now()
}

func newFixture(t *testing.T) *fixture {
	f := &fixture{t: t, clock: clock.NewFake(t0)}
	f.api = resttest.New(t, resttest.Options{Clock: creationClock{f.clock},
		UID: func(_, name string) string { return "uid-" + name }})
	return f
}

// run gives the apiserver and the listers the fixture's objects, syncs
// key once and returns the sync's result and error. The actions are on
// f.api, the events on f.
func (f *fixture) run(key string) (ctrl.Result, error) {
	f.t.Helper()
	return f.controller(f.api.Client()).Sync(context.Background(), key)
}

// controller builds the controller on listers holding the fixture's
// objects, which the apiserver then holds too.
func (f *fixture) controller(client *rest.Client) *Controller {
	resttest.Replace(f.api, rest.Deployments, f.deployments...)
	resttest.Replace(f.api, rest.ReplicaSets, append(slices.Clone(f.stored), f.replicaSets...)...)
	resttest.Replace(f.api, rest.Pods, f.pods...)
	return NewController(Config{
		Deployments: informer.DeploymentLister{Lister: resttest.Lister("deployments", f.deployments...)},
		ReplicaSets: informer.ReplicaSetLister{Lister: resttest.Lister("replicasets", f.replicaSets...)},
		Pods:        informer.PodLister{Lister: resttest.Lister("pods", f.pods...)},
		Client:      client, Events: &f.events, Clock: f.clock, Logger: zerolog.Nop(),
	})
}

// writes returns the actions as resttest's lines.
func (f *fixture) writes() []string { return resttest.Lines(f.api.Actions()) }

// find returns the last action whose line starts with pattern's words.
func (f *fixture) find(pattern string) (resttest.Action, bool) {
	return resttest.Last(f.api.Actions(), pattern)
}

// rsSizes returns, for each create or update of a ReplicaSet,
// "name=replicas".
func (f *fixture) rsSizes() []string {
	var out []string
	for _, a := range f.api.Actions() {
		if a.Resource != "replicasets" || a.Subresource != "" || (a.Verb != "update" && a.Verb != "create") {
			continue
		}
		spec, _ := a.Object()["spec"].(map[string]any)
		out = append(out, fmt.Sprintf("%s=%v", a.Name, spec["replicas"]))
	}
	return out
}

// lastStatus decodes the last status write of the Deployment.
func (f *fixture) lastStatus() (*api.Deployment, bool) {
	a, ok := f.find("update deployments/status")
	if !ok {
		return nil, false
	}
	d, err := resttest.Decode[*api.Deployment](a)
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
	out, err := decode.Typed[S, P]().Decode(b)
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
// listers, for tests of one step of a sync; the apiserver holds the
// ReplicaSets stored (those fn passes to the step).
func (f *fixture) with(fn func(s *syncer), stored ...*api.ReplicaSet) {
	f.t.Helper()
	f.stored = stored
	fn(&syncer{Controller: f.controller(f.api.Client())})
}

// apply makes the fixture's objects what the apiserver now holds (the
// informers caught up with the writes), then forgets the actions and
// events; with settle, every ReplicaSet's status then reports its spec (a
// ReplicaSet controller and kubelet that are done), else statuses stay.
func (f *fixture) apply(settle bool) {
	f.t.Helper()
	f.api.Take()
	f.events.Reset()
	f.deployments = resttest.List[*api.Deployment](f.api, rest.Deployments, "")
	f.replicaSets = resttest.List[*api.ReplicaSet](f.api, rest.ReplicaSets, "")
	if !settle {
		return
	}
	for _, rs := range f.replicaSets {
		n := specReplicas(rs)
		rs.Status.Replicas, rs.Status.ReadyReplicas, rs.Status.AvailableReplicas = n, n, n
		rs.Status.ObservedGeneration = rs.Generation
		rs.ResourceVersion = "" // a new one: the status write of a ReplicaSet controller
		resttest.Add(f.api, rest.ReplicaSets, rs)
	}
	f.replicaSets = resttest.List[*api.ReplicaSet](f.api, rest.ReplicaSets, "")
}

// replaceRS returns a copy of list with rs in place of the ReplicaSet of
// its name (appended when there is none).
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
func (f *fixture) eventList() []string { return f.events.Lines() }
