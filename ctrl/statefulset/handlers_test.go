package statefulset

import (
	"fmt"
	"slices"
	"testing"
	"time"

	"github.com/kcmlab/kcm/kube/api"
)

// ctlQueue records what the handlers enqueue.
type ctlQueue struct{ got []string }

func (q *ctlQueue) Add(key string) { q.got = append(q.got, key) }
func (q *ctlQueue) AddAfter(key string, d time.Duration) {
	q.got = append(q.got, fmt.Sprintf("%s after %v", key, d))
}

// handlerWorld: in the cache, "web" and "web-too" (both select app=web),
// "db" (app=db, minReadySeconds 10), "empty" (an empty selector) and
// "bad" (an invalid one).
func handlerWorld(t *testing.T) (*handlers, *ctlQueue, map[string]*api.StatefulSet) {
	f := newCtlFixture(t)
	web, webToo, db := ctlSet("web", 1), ctlSet("web-too", 1), ctlSet("db", 1)
	db.Spec.Selector = &api.LabelSelector{MatchLabels: map[string]string{"app": "db"}}
	db.Spec.MinReadySeconds = 10
	empty := ctlSet("empty", 1)
	empty.Spec.Selector = &api.LabelSelector{}
	bad := ctlSet("bad", 1)
	bad.Spec.Selector = &api.LabelSelector{MatchExpressions: []api.LabelSelectorRequirement{{Key: "app", Operator: "In"}}}
	f.sets = []*api.StatefulSet{web, webToo, db, empty, bad}
	q := &ctlQueue{}
	h := &handlers{c: f.controller(), q: q}
	return h, q, map[string]*api.StatefulSet{"web": web, "web-too": webToo, "db": db}
}

// The handlers, case by case as upstream's addPod, updatePod, deletePod
// and the set handlers (pkg/controller/statefulset/stateful_set.go).
func TestHandlers(t *testing.T) {
	type step func(h *handlers, s map[string]*api.StatefulSet)
	web := func(s map[string]*api.StatefulSet) *api.StatefulSet { return s["web"] }
	cases := []struct {
		name string
		do   step
		want []string
	}{
		{"set add, update (status replicas changed) and delete each sync the set", func(h *handlers, s map[string]*api.StatefulSet) {
			h.addSet(web(s), false)
			cur := *web(s)
			cur.Status.Replicas = 3
			h.updateSet(web(s), &cur)
			h.updateSet(web(s), web(s)) // a resync syncs too
			h.deleteSet(web(s), true)
		}, []string{"ns/web", "ns/web", "ns/web", "ns/web"}},
		{"an owned pod's add syncs its owner only", func(h *handlers, s map[string]*api.StatefulSet) {
			h.addPod(ctlPod("web-0", ctlOf(web(s))), false)
		}, []string{"ns/web"}},
		{"a pod whose controller ref names a UID the cache does not hold syncs nothing", func(h *handlers, s map[string]*api.StatefulSet) {
			h.addPod(ctlPod("web-0", ctlOwnedBy("StatefulSet", "web", "uid-old")), false)
		}, nil},
		{"a pod owned by another kind syncs nothing", func(h *handlers, s map[string]*api.StatefulSet) {
			h.addPod(ctlPod("web-0", ctlOwnedBy("ReplicaSet", "web", "uid-web")), false)
		}, nil},
		{"an orphan's add syncs every set whose selector matches (not empty or invalid ones)", func(h *handlers, s map[string]*api.StatefulSet) {
			h.addPod(ctlPod("web-0"), false)
		}, []string{"ns/web", "ns/web-too"}},
		{"an orphan without labels syncs none", func(h *handlers, s map[string]*api.StatefulSet) {
			h.addPod(ctlPod("web-0", ctlLabelled(nil)), false)
		}, nil},
		{"a pod that arrives being deleted is a deletion: its owner syncs", func(h *handlers, s map[string]*api.StatefulSet) {
			h.addPod(ctlPod("web-0", ctlOf(web(s)), ctlDeleting()), false)
			h.addPod(ctlPod("web-1", ctlDeleting()), false) // an orphan being deleted concerns no one
		}, []string{"ns/web"}},
		{"an update with the same resourceVersion (a relist) syncs nothing", func(h *handlers, s map[string]*api.StatefulSet) {
			p := ctlPod("web-0", ctlOf(web(s)))
			h.updatePod(p, ctlPod("web-0", ctlOf(web(s)), ctlReadySince(ctlT0)))
		}, nil},
		{"an owned pod's update syncs its owner", func(h *handlers, s map[string]*api.StatefulSet) {
			h.updatePod(ctlPod("web-0", ctlOf(web(s))), ctlPod("web-0", ctlOf(web(s)), ctlRV("10")))
		}, []string{"ns/web"}},
		{"a changed controller ref syncs the old owner and the new", func(h *handlers, s map[string]*api.StatefulSet) {
			h.updatePod(ctlPod("web-0", ctlOf(web(s))), ctlPod("web-0", ctlOf(s["web-too"]), ctlRV("10")))
		}, []string{"ns/web", "ns/web-too"}},
		{"a released pod syncs the old owner and, its labels unchanged, the sets that may adopt it", func(h *handlers, s map[string]*api.StatefulSet) {
			h.updatePod(ctlPod("web-0", ctlOf(web(s))), ctlPod("web-0", ctlRV("10")))
		}, []string{"ns/web", "ns/web", "ns/web-too"}},
		{"a pod turning Ready syncs its owner now and again after minReadySeconds", func(h *handlers, s map[string]*api.StatefulSet) {
			db := s["db"]
			h.updatePod(ctlPod("db-0", ctlOf(db)), ctlPod("db-0", ctlOf(db), ctlRV("10"), ctlReadySince(ctlT0)))
		}, []string{"ns/db", "ns/db after 10s"}},
		{"without minReadySeconds, turning Ready is an ordinary update", func(h *handlers, s map[string]*api.StatefulSet) {
			h.updatePod(ctlPod("web-0", ctlOf(web(s))), ctlPod("web-0", ctlOf(web(s)), ctlRV("10"), ctlReadySince(ctlT0)))
		}, []string{"ns/web"}},
		{"a pod that stays Ready is not enqueued after minReadySeconds again", func(h *handlers, s map[string]*api.StatefulSet) {
			db := s["db"]
			h.updatePod(ctlPod("db-0", ctlOf(db), ctlReadySince(ctlT0)), ctlPod("db-0", ctlOf(db), ctlRV("10"), ctlReadySince(ctlT0)))
		}, []string{"ns/db"}},
		{"an orphan whose labels changed syncs the sets that now match", func(h *handlers, s map[string]*api.StatefulSet) {
			h.updatePod(ctlPod("web-0", ctlLabelled(map[string]string{"app": "x"})), ctlPod("web-0", ctlRV("10")))
		}, []string{"ns/web", "ns/web-too"}},
		{"an orphan whose labels and ref did not change syncs nothing", func(h *handlers, s map[string]*api.StatefulSet) {
			h.updatePod(ctlPod("web-0"), ctlPod("web-0", ctlRV("10"), ctlReadySince(ctlT0)))
		}, nil},
		{"an owned pod's deletion syncs its owner; an orphan's, nothing", func(h *handlers, s map[string]*api.StatefulSet) {
			h.deletePod(ctlPod("web-0", ctlOf(web(s))), false)
			h.deletePod(ctlPod("web-1"), true)
		}, []string{"ns/web"}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			h, q, sets := handlerWorld(t)
			tc.do(h, sets)
			if !slices.Equal(q.got, tc.want) {
				t.Errorf("enqueued %q, want %q", q.got, tc.want)
			}
		})
	}
}
