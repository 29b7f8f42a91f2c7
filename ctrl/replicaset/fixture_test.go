package replicaset

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

// t0 is the fake clock's start.
var t0 = time.Date(2025, 6, 1, 12, 0, 0, 0, time.UTC)

// fixture is the sample-controller test shape: objects loaded into the
// listers and held by the recording fake apiserver (resttest), which
// answers the sync's requests, and a recorder that keeps the events.
type fixture struct {
	t     *testing.T
	rss   []*api.ReplicaSet
	pods  []*api.Pod
	clock *clock.Fake
	// getRS, when set, is the ReplicaSet the apiserver holds in place of
	// the first of rss (the cache is behind).
	getRS *api.ReplicaSet

	api    *resttest.Server
	c      *Controller
	events *resttest.Events
}

func newFixture(t *testing.T) *fixture {
	f := &fixture{t: t, clock: clock.NewFake(t0), events: &resttest.Events{}}
	f.api = resttest.New(t, resttest.Options{Clock: f.clock})
	return f
}

// controller builds the controller on listers loaded with the fixture's
// objects, and gives the apiserver the same objects (getRS in place of
// the first ReplicaSet); once: later calls return the same controller.
func (f *fixture) controller() *Controller {
	if f.c != nil {
		return f.c
	}
	held := slices.Clone(f.rss)
	if f.getRS != nil {
		held = append([]*api.ReplicaSet{f.getRS}, held[min(1, len(held)):]...)
	}
	resttest.Add(f.api, rest.ReplicaSets, held...)
	resttest.Add(f.api, rest.Pods, f.pods...)
	f.c = NewController(informer.ReplicaSetLister{Lister: resttest.Lister("replicasets", f.rss...)},
		informer.PodLister{Lister: resttest.Lister("pods", f.pods...)},
		f.api.Client(), Config{Clock: f.clock, Logger: zerolog.Nop(), Recorder: f.events})
	return f.c
}

// sync runs Sync on key once.
func (f *fixture) sync(key string) (ctrl.Result, error) {
	f.t.Helper()
	return f.controller().Sync(context.Background(), key)
}

// take returns and forgets the actions so far.
func (f *fixture) take() []resttest.Action { return f.api.Take() }

// count is how many actions so far start with pattern's words.
func (f *fixture) count(pattern string) int { return len(resttest.Select(f.api.Actions(), pattern)) }

// lastStatus is the status of ReplicaSet ns/web as the apiserver holds it
// after the sync's status writes; it fails the test when none was made.
func (f *fixture) lastStatus() api.ReplicaSetStatus {
	f.t.Helper()
	if f.count("update replicasets/status ns/web") == 0 {
		f.t.Fatal("no status written")
	}
	rs, ok := resttest.Get[*api.ReplicaSet](f.api, rest.ReplicaSets, "ns", "web")
	if !ok {
		f.t.Fatal("ReplicaSet ns/web is gone")
	}
	return rs.Status
}

// body is the body of the n-th action (from 0) starting with pattern's
// words.
func (f *fixture) body(pattern string, n int) []byte {
	f.t.Helper()
	sel := resttest.Select(f.api.Actions(), pattern)
	if n >= len(sel) {
		f.t.Fatalf("no action %d of %q in %q", n, pattern, resttest.Lines(f.api.Actions()))
	}
	return sel[n].Body
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
	out, err := decode.Typed[api.ReplicaSet]().Decode(data)
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
