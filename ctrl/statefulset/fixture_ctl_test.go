package statefulset

// The sample-controller shape of the controller-level tests (handlers,
// Sync): listers the test loads, the recording fake apiserver answering
// the writes, and, for the rules of Sync itself, a fake statefulSetControl
// in place of UpdateStatefulSet. Helper names carry "ctl" so that they do
// not meet the pod and control tests' helpers in this package.

import (
	"context"
	"errors"
	"fmt"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/rs/zerolog"

	"github.com/kcmlab/kcm/clock"
	"github.com/kcmlab/kcm/ctrl"
	"github.com/kcmlab/kcm/informer"
	"github.com/kcmlab/kcm/internal/testing/resttest"
	"github.com/kcmlab/kcm/kube/api"
	"github.com/kcmlab/kcm/kube/rest"
	"github.com/kcmlab/kcm/store"
)

// ctlT0 is the fake clock's start.
var ctlT0 = time.Date(2026, 6, 1, 12, 0, 0, 0, time.UTC)

// ctlCacheRV is the resourceVersion the fixture's caches are at: that of
// the newest object they load; every write the server answers is newer.
const ctlCacheRV = "9"

// fakeSetControl records what Sync hands UpdateStatefulSet and
// AdoptOrphanRevisions, and answers with status and err.
type fakeSetControl struct {
	revisions []*api.ControllerRevision
	listErr   error
	adoptErr  error
	status    *api.StatefulSetStatus
	err       error

	updated []string // "web: web-0 web-1" per UpdateStatefulSet call
	adopted []string // revision names
	now     time.Time
}

func (f *fakeSetControl) UpdateStatefulSet(_ context.Context, set *api.StatefulSet, pods []*api.Pod, now time.Time) (*api.StatefulSetStatus, error) {
	line := set.Name + ":"
	for _, p := range pods {
		line += " " + p.Name
	}
	f.updated = append(f.updated, line)
	f.now = now
	if f.err != nil {
		return nil, f.err
	}
	if f.status == nil {
		return &set.Status, nil
	}
	return f.status, nil
}

func (f *fakeSetControl) ListRevisions(*api.StatefulSet) ([]*api.ControllerRevision, error) {
	return f.revisions, f.listErr
}

func (f *fakeSetControl) AdoptOrphanRevisions(_ context.Context, _ *api.StatefulSet, revs []*api.ControllerRevision) error {
	for _, r := range revs {
		f.adopted = append(f.adopted, r.Name)
	}
	return f.adoptErr
}

// ctlFixture holds the objects of one test: sets and pods in the caches
// and, unless serverSet replaces it, the same on the server.
type ctlFixture struct {
	t     *testing.T
	sets  []*api.StatefulSet
	pods  []*api.Pod
	clock *clock.Fake
	// serverSet, when set, is what the apiserver holds in place of the
	// first set (the cache is behind); noServerSet: it holds none.
	serverSet   *api.StatefulSet
	noServerSet bool
	control     *fakeSetControl
	// realControl keeps the controller's own setControl (pods, claims,
	// revisions and status written for real on the fake apiserver).
	realControl bool

	api      *resttest.Server
	reg      *prometheus.Registry
	podStore *store.Store[*api.Pod]
	setStore *store.Store[*api.StatefulSet]
	pvcStore *store.Store[*api.PersistentVolumeClaim]
	c        *Controller
}

func newCtlFixture(t *testing.T) *ctlFixture {
	f := &ctlFixture{t: t, clock: clock.NewFake(ctlT0), control: &fakeSetControl{}, reg: prometheus.NewRegistry()}
	f.api = resttest.New(t, resttest.Options{Clock: f.clock})
	return f
}

// controller builds the controller once: caches loaded with the
// fixture's objects at ctlCacheRV, the server holding them, metrics on
// f.reg, and the fake control in place of setControl.
func (f *ctlFixture) controller() *Controller {
	if f.c != nil {
		return f.c
	}
	held := f.sets
	switch {
	case f.noServerSet && len(held) > 0:
		held = held[1:]
	case f.serverSet != nil:
		held = append([]*api.StatefulSet{f.serverSet}, held[1:]...)
	}
	resttest.Add(f.api, rest.StatefulSets, held...)
	resttest.Add(f.api, rest.Pods, f.pods...)
	f.setStore = ctlStore(f.sets)
	f.podStore = ctlStore(f.pods)
	f.pvcStore = ctlStore[*api.PersistentVolumeClaim](nil)
	m, err := ctrl.NewMetrics(f.reg)
	if err != nil {
		f.t.Fatal(err)
	}
	skips, err := m.StaleSyncSkips("statefulset_controller", "StatefulSet")
	if err != nil {
		f.t.Fatal(err)
	}
	metrics, err := NewMetrics(f.reg)
	if err != nil {
		f.t.Fatal(err)
	}
	f.c = NewController(informer.StatefulSetLister{Lister: informer.NewLister(f.setStore.View(), "statefulsets")},
		informer.PodLister{Lister: informer.NewLister(f.podStore.View(), "pods")},
		informer.ControllerRevisionLister{Lister: informer.NewLister(ctlStore[*api.ControllerRevision](nil).View(), "controllerrevisions")},
		informer.PersistentVolumeClaimLister{Lister: informer.NewLister(f.pvcStore.View(), "persistentvolumeclaims")},
		f.api.Client(), Config{Clock: f.clock, Logger: zerolog.Nop(), Metrics: metrics, StaleSkips: skips})
	if !f.realControl {
		f.c.control = f.control
	}
	return f.c
}

// ctlStore is a cache holding objs, at resourceVersion ctlCacheRV.
func ctlStore[T api.Object](objs []T) *store.Store[T] {
	st := store.New(store.Options[T]{Indexers: store.BuiltinIndexers[T]()})
	st.Replace(objs)
	st.Bookmark(ctlCacheRV)
	return st
}

func (f *ctlFixture) sync(key string) (ctrl.Result, error) {
	f.t.Helper()
	return f.controller().Sync(context.Background(), key)
}

// Builders.

var ctlLabels = map[string]string{"app": "web"}

// ctlSet returns StatefulSet ns/<name> selecting app=web.
func ctlSet(name string, replicas int32) *api.StatefulSet {
	return &api.StatefulSet{
		TypeMeta:   api.TypeMeta{APIVersion: "apps/v1", Kind: "StatefulSet"},
		ObjectMeta: api.ObjectMeta{Name: name, Namespace: "ns", UID: "uid-" + name, ResourceVersion: "7", Generation: 1},
		Spec: api.StatefulSetSpec{
			Replicas: &replicas, ServiceName: name,
			Selector: &api.LabelSelector{MatchLabels: ctlLabels},
			Template: api.PodTemplateSpec{
				ObjectMeta: api.ObjectMeta{Labels: map[string]string{"app": "web"}},
				Spec:       api.PodSpec{Containers: []api.Container{{Name: "c", Image: "nginx"}}},
			},
		},
	}
}

type ctlPodOpt func(*api.Pod)

// ctlPod returns pod ns/<name> labelled app=web, Running, not Ready.
func ctlPod(name string, opts ...ctlPodOpt) *api.Pod {
	p := &api.Pod{ObjectMeta: api.ObjectMeta{Name: name, Namespace: "ns", UID: "uid-" + name, ResourceVersion: "9",
		Labels: map[string]string{"app": "web"}}, Status: api.PodStatus{Phase: api.PodRunning}}
	for _, o := range opts {
		o(p)
	}
	return p
}

// ctlOwnedBy makes kind/name/uid the pod's controller.
func ctlOwnedBy(kind, name, uid string) ctlPodOpt {
	return func(p *api.Pod) {
		t := true
		p.OwnerReferences = []api.OwnerReference{{APIVersion: "apps/v1", Kind: kind, Name: name, UID: uid, Controller: &t, BlockOwnerDeletion: &t}}
	}
}

func ctlOf(set *api.StatefulSet) ctlPodOpt { return ctlOwnedBy("StatefulSet", set.Name, set.UID) }

func ctlReadySince(at time.Time) ctlPodOpt {
	return func(p *api.Pod) {
		p.Status.Conditions = append(p.Status.Conditions,
			api.PodCondition{Type: api.PodReady, Status: api.ConditionTrue, LastTransitionTime: api.Time{Time: at}})
	}
}

func ctlLabelled(l map[string]string) ctlPodOpt { return func(p *api.Pod) { p.Labels = l } }

func ctlRV(rv string) ctlPodOpt { return func(p *api.Pod) { p.ResourceVersion = rv } }

func ctlDeleting() ctlPodOpt {
	return func(p *api.Pod) { p.DeletionTimestamp = &api.Time{Time: ctlT0} }
}

// ctlRevision returns ControllerRevision ns/<name>, owned by set when set
// is not nil.
func ctlRevision(name string, set *api.StatefulSet) *api.ControllerRevision {
	r := &api.ControllerRevision{ObjectMeta: api.ObjectMeta{Name: name, Namespace: "ns", UID: "uid-" + name, Labels: ctlLabels}}
	if set != nil {
		t := true
		r.OwnerReferences = []api.OwnerReference{{APIVersion: "apps/v1", Kind: "StatefulSet", Name: set.Name, UID: set.UID, Controller: &t}}
	}
	return r
}

func ctlNames[T api.Object](objs []T) string {
	s := ""
	for i, o := range objs {
		if i > 0 {
			s += " "
		}
		s += o.GetObjectMeta().Name
	}
	return fmt.Sprint(s)
}

// mustSkips is the fixture registry's
// statefulset_controller_stale_sync_skips_total family.
func mustSkips(t *testing.T, f *ctlFixture) *prometheus.CounterVec {
	t.Helper()
	vec := prometheus.NewCounterVec(prometheus.CounterOpts{Subsystem: "statefulset_controller", Name: "stale_sync_skips_total",
		Help: "Total number of StatefulSet syncs skipped due to a stale watch cache."}, []string{"group", "resource"})
	if err := f.reg.Register(vec); err != nil {
		var are prometheus.AlreadyRegisteredError
		if errors.As(err, &are) {
			return are.ExistingCollector.(*prometheus.CounterVec)
		}
		t.Fatal(err)
	}
	t.Fatal("the skips family was not registered")
	return nil
}
