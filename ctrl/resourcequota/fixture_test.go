package resourcequota

import (
	"context"
	"fmt"
	"maps"
	"testing"
	"time"

	"github.com/rs/zerolog"

	"github.com/kcmlab/kcm/clock"
	"github.com/kcmlab/kcm/ctrl/resourcequota/quota"
	"github.com/kcmlab/kcm/internal/testing/resttest"
	"github.com/kcmlab/kcm/kube/api"
	"github.com/kcmlab/kcm/queue"
)

// t0 is the fake clock's start.
var t0 = time.Date(2026, 12, 6, 12, 0, 0, 0, time.UTC)

// fixture is a controller on the recording fake apiserver (which holds
// the quotas and takes the status writes) with a fake clock; its typed
// listers are loaded from the given objects, and the counts of the
// metadata-monitored resources come from counts (by resource, then
// namespace) instead of monitors.
type fixture struct {
	t      *testing.T
	clock  *clock.Fake
	api    *resttest.Server
	c      *Controller
	counts map[string]map[string]int
	// countErr, when set, is what every metadata count fails with.
	countErr error
}

func newFixture(t *testing.T, quotas []*api.ResourceQuota, pods []*api.Pod, svcs []*api.Service) *fixture {
	t.Helper()
	f := &fixture{t: t, clock: clock.NewFake(t0), counts: map[string]map[string]int{}}
	f.api = resttest.New(t, resttest.Options{Clock: f.clock})
	resttest.Add(f.api, ResourceQuotas, quotas...)
	f.c = build(f.api.Client(), listers{
		quotas:   resttest.ListerFrom[*api.ResourceQuota](f.api, ResourceQuotas),
		pods:     resttest.Lister("pods", pods...),
		services: resttest.Lister("services", svcs...),
		claims:   resttest.Lister[*api.PersistentVolumeClaim]("persistentvolumeclaims"),
	}, Options{Clock: f.clock, Logger: zerolog.Nop(), SyncPeriod: DefaultSyncPeriod})
	f.c.count = func(gr quota.GroupResource, ns string) (int, error) {
		if f.countErr != nil {
			return 0, f.countErr
		}
		if _, ok := f.counts[gr.Resource]; !ok {
			return 0, fmt.Errorf("%w: %s", ErrNotMonitored, gr.Resource)
		}
		return f.counts[gr.Resource][ns], nil
	}
	t.Cleanup(f.c.shutDownQueues)
	return f
}

// sync reloads the quota lister from the server (an informer that caught
// up), syncs key and returns the requests it made and its error.
func (f *fixture) sync(key string) ([]resttest.Action, error) {
	f.t.Helper()
	f.c.quotas = resttest.ListerFrom[*api.ResourceQuota](f.api, ResourceQuotas)
	f.api.Take()
	_, err := f.c.Sync(context.Background(), key)
	return f.api.Take(), err
}

// stored is the quota as the server holds it now.
func (f *fixture) stored(ns, name string) *api.ResourceQuota {
	f.t.Helper()
	rq, ok := resttest.Get[*api.ResourceQuota](f.api, ResourceQuotas, ns, name)
	if !ok {
		f.t.Fatalf("quota %s/%s not on the server", ns, name)
	}
	return rq
}

// drain takes every key queued now from q, in queue order, and marks
// each done.
func drain(t *testing.T, q *queue.Queue[string]) []string {
	t.Helper()
	var out []string
	for q.Len() > 0 {
		k, err := q.Get(context.Background())
		if err != nil {
			t.Fatal(err)
		}
		q.Done(k)
		out = append(out, k)
	}
	return out
}

// rq builds quota name in namespace "ns" with spec.hard hard, changed by
// opts.
func rq(name string, hard api.ResourceList, opts ...func(*api.ResourceQuota)) *api.ResourceQuota {
	q := &api.ResourceQuota{ObjectMeta: api.ObjectMeta{Namespace: "ns", Name: name, UID: "uid-" + name},
		Spec: api.ResourceQuotaSpec{Hard: hard}}
	for _, o := range opts {
		o(q)
	}
	return q
}

// status sets status.hard and status.used.
func status(hard, used api.ResourceList) func(*api.ResourceQuota) {
	return func(q *api.ResourceQuota) { q.Status = api.ResourceQuotaStatus{Hard: hard, Used: used} }
}

// synced sets the status a finished sync leaves: hard = spec.hard, used.
func synced(used api.ResourceList) func(*api.ResourceQuota) {
	return func(q *api.ResourceQuota) {
		q.Status = api.ResourceQuotaStatus{Hard: maps.Clone(q.Spec.Hard), Used: used}
	}
}

func inNS(ns string) func(*api.ResourceQuota) { return func(q *api.ResourceQuota) { q.Namespace = ns } }

// pod builds a pod of namespace "ns" in phase ph.
func pod(name string, ph api.PodPhase) *api.Pod {
	return &api.Pod{ObjectMeta: api.ObjectMeta{Namespace: "ns", Name: name, UID: "uid-" + name},
		Spec:   api.PodSpec{Containers: []api.Container{{Name: "c", Image: "i"}}},
		Status: api.PodStatus{Phase: ph}}
}

func service(name string, typ api.ServiceType) *api.Service {
	return &api.Service{ObjectMeta: api.ObjectMeta{Namespace: "ns", Name: name, UID: "uid-" + name},
		Spec: api.ServiceSpec{Type: typ}}
}

// list is a shorthand for a wire ResourceList: list("pods", "2", "configmaps", "1").
func list(kv ...string) api.ResourceList {
	l := api.ResourceList{}
	for i := 0; i+1 < len(kv); i += 2 {
		l[kv[i]] = kv[i+1]
	}
	return l
}
