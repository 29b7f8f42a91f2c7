package replicaset

import (
	"fmt"
	"slices"
	"testing"
	"time"

	"github.com/kcmlab/kcm/kube/api"
)

// fakeQueue records what the handlers enqueue.
type fakeQueue struct{ got []string }

func (q *fakeQueue) Add(key string) { q.got = append(q.got, key) }
func (q *fakeQueue) AddAfter(key string, d time.Duration) {
	q.got = append(q.got, fmt.Sprintf("%s after %v", key, d))
}

func (q *fakeQueue) take() []string {
	out := q.got
	q.got = nil
	return out
}

// handlerFixture: two ReplicaSets in the cache, "web" (selects app=web)
// and "all-web" (selects app=web too), plus "api" (app=api, minReady 10).
func handlerFixture(t *testing.T) (handlers, *fakeQueue, *Controller) {
	f := newFixture(t)
	web, allWeb, apiRS := newRS("web", 1, ""), newRS("all-web", 1, ""), newRS("api", 1, "")
	apiRS.Spec.Selector = &api.LabelSelector{MatchLabels: map[string]string{"app": "api"}}
	apiRS.Spec.MinReadySeconds = 10
	empty := newRS("empty", 1, "")
	empty.Spec.Selector = &api.LabelSelector{}
	bad := newRS("bad", 1, "")
	bad.Spec.Selector = &api.LabelSelector{MatchExpressions: []api.LabelSelectorRequirement{{Key: "app", Operator: "In"}}}
	f.rss = []*api.ReplicaSet{web, allWeb, apiRS, empty, bad}
	c := f.controller()
	q := &fakeQueue{}
	return handlers{c: c, q: q}, q, c
}

func expecting(t *testing.T, c *Controller, key string) (add, del int64) {
	t.Helper()
	add, del, _ = c.expectations.GetExpectations(key)
	return add, del
}

// addRS, updateRS, deleteRS (Kubernetes): every change syncs the key; a
// UID change under the same name is a delete of the old one first; a
// delete forgets the expectations.
func TestReplicaSetHandlers(t *testing.T) {
	h, q, c := handlerFixture(t)
	web := mustRS(t, c, "web")
	h.addRS(web, true)
	c.expectations.ExpectCreations("ns/web", 2)
	h.updateRS(web, web)
	if _, _, ok := c.expectations.GetExpectations("ns/web"); !ok {
		t.Fatal("an update forgot the expectations")
	}
	replaced := newRS("web", 1, "")
	replaced.UID = "new"
	h.updateRS(web, replaced)
	if _, _, ok := c.expectations.GetExpectations("ns/web"); ok {
		t.Fatal("a replaced ReplicaSet kept the old one's expectations")
	}
	c.expectations.ExpectCreations("ns/web", 2)
	h.deleteRS(web, true)
	if _, _, ok := c.expectations.GetExpectations("ns/web"); ok {
		t.Fatal("a deleted ReplicaSet kept its expectations")
	}
	if got := q.take(); !slices.Equal(got, []string{"ns/web", "ns/web", "ns/web", "ns/web", "ns/web"}) {
		t.Fatalf("enqueued %q", got)
	}
}

// addPod (Kubernetes): an owned pod is an observed creation of its
// ReplicaSet; an orphan wakes every ReplicaSet whose selector matches it
// (not an empty or invalid one) and observes nothing; a pod that arrives
// being deleted is an observed deletion.
func TestAddPod(t *testing.T) {
	h, q, c := handlerFixture(t)
	web := mustRS(t, c, "web")
	c.expectations.ExpectCreations("ns/web", 2)
	h.addPod(newPod("p", ownedBy(web)), false)
	if add, _ := expecting(t, c, "ns/web"); add != 1 {
		t.Fatalf("expecting %d creations, want 1", add)
	}
	if got := q.take(); !slices.Equal(got, []string{"ns/web"}) {
		t.Fatalf("enqueued %q", got)
	}
	h.addPod(newPod("orphan"), false)
	if add, _ := expecting(t, c, "ns/web"); add != 1 {
		t.Fatal("an orphan counted as a creation")
	}
	if got := q.take(); !slices.Equal(got, []string{"ns/all-web", "ns/web"}) {
		t.Fatalf("orphan enqueued %q", got)
	}
	h.addPod(newPod("bare", withLabels(nil)), false)
	gone := newRS("gone", 1, "")
	h.addPod(newPod("owner-gone", ownedBy(gone)), false)
	replaced := newRS("web", 1, "")
	replaced.UID = "other"
	h.addPod(newPod("owner-replaced", ownedBy(replaced)), false)
	notRS := newPod("owned-by-deployment", ownedBy(web))
	notRS.OwnerReferences[0].Kind = "Deployment"
	h.addPod(notRS, false)
	if got := q.take(); len(got) != 0 {
		t.Fatalf("enqueued %q for pods no ReplicaSet owns or selects", got)
	}
	c.expectations.ExpectDeletions("ns/web", []string{"ns/going"})
	h.addPod(newPod("going", ownedBy(web), deleting()), false)
	if _, del := expecting(t, c, "ns/web"); del != 0 {
		t.Fatal("a pod added while being deleted was not a deletion")
	}
}

// updatePod (Kubernetes).
func TestUpdatePod(t *testing.T) {
	h, q, c := handlerFixture(t)
	web, apiRS, allWeb := mustRS(t, c, "web"), mustRS(t, c, "api"), mustRS(t, c, "all-web")
	rv := func(v string) podOpt { return func(p *api.Pod) { p.ResourceVersion = v } }
	apiLabels := withLabels(map[string]string{"app": "api"})
	for _, tc := range []struct {
		name     string
		old, cur *api.Pod
		want     []string
	}{
		{"resync (same resourceVersion): nothing", newPod("p", ownedBy(web), rv("1")), newPod("p", ownedBy(web), rv("1")), nil},
		{"owned pod changed: its owner", newPod("p", ownedBy(web), rv("1")), newPod("p", ownedBy(web), rv("2")), []string{"ns/web"}},
		{"became Ready, minReadySeconds 10: owner now and after 11s",
			newPod("p", ownedBy(apiRS), apiLabels, rv("1")), newPod("p", ownedBy(apiRS), apiLabels, rv("2"), ready(t0)),
			[]string{"ns/api", "ns/api after 11s"}},
		{"became Ready, minReadySeconds 0: owner once", newPod("p", ownedBy(web), rv("1")), newPod("p", ownedBy(web), rv("2"), ready(t0)), []string{"ns/web"}},
		{"stayed Ready: owner once", newPod("p", ownedBy(apiRS), ready(t0), rv("1")), newPod("p", ownedBy(apiRS), ready(t0), rv("2")), []string{"ns/api"}},
		{"controller ref moved: old owner, then new", newPod("p", ownedBy(web), rv("1")), newPod("p", ownedBy(allWeb), rv("2")), []string{"ns/web", "ns/all-web"}},
		{"released, labels changed: old owner, then those that may adopt", newPod("p", ownedBy(web), rv("1")), newPod("p", apiLabels, rv("2")), []string{"ns/web", "ns/api"}},
		{"orphan relabelled: those that may adopt", newPod("p", rv("1")), newPod("p", apiLabels, rv("2")), []string{"ns/api"}},
		{"orphan unchanged but for status: nothing", newPod("p", rv("1")), newPod("p", rv("2"), ready(t0)), nil},
		{"owner unknown: nothing", newPod("p", ownedBy(newRS("gone", 1, "")), rv("1")), newPod("p", ownedBy(newRS("gone", 1, "")), rv("2")), nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			h.updatePod(tc.old, tc.cur)
			if got := q.take(); !slices.Equal(got, tc.want) {
				t.Fatalf("enqueued %q, want %q", got, tc.want)
			}
		})
	}
	// Being deleted: a deletion now, for the new owner and, when the
	// labels changed, the old one too.
	c.expectations.ExpectDeletions("ns/web", []string{"ns/p"})
	h.updatePod(newPod("p", ownedBy(web), rv("1")), newPod("p", ownedBy(web), rv("2"), deleting()))
	if _, del := expecting(t, c, "ns/web"); del != 0 {
		t.Fatal("a pod being deleted was not observed as deleted")
	}
	if got := q.take(); !slices.Equal(got, []string{"ns/web"}) {
		t.Fatalf("enqueued %q", got)
	}
	h.updatePod(newPod("p", ownedBy(web), rv("1")), newPod("p", ownedBy(web), rv("2"), deleting(), apiLabels))
	if got := q.take(); !slices.Equal(got, []string{"ns/web", "ns/web"}) {
		t.Fatalf("relabelled and deleted: enqueued %q", got)
	}
}

// deletePod (Kubernetes): the owner observes the deletion of exactly the
// pod it waits for, tombstones included; orphans concern no one.
func TestDeletePod(t *testing.T) {
	h, q, c := handlerFixture(t)
	web := mustRS(t, c, "web")
	c.expectations.ExpectDeletions("ns/web", []string{"ns/a", "ns/b"})
	h.deletePod(newPod("a", ownedBy(web)), true)
	h.deletePod(newPod("a", ownedBy(web)), false) // seen twice: counts once
	h.deletePod(newPod("orphan"), false)
	h.deletePod(newPod("x", ownedBy(newRS("gone", 1, ""))), false)
	if _, del := expecting(t, c, "ns/web"); del != 1 {
		t.Fatalf("expecting %d deletions, want 1 (b)", del)
	}
	if got := q.take(); !slices.Equal(got, []string{"ns/web", "ns/web"}) {
		t.Fatalf("enqueued %q", got)
	}
}

func mustRS(t *testing.T, c *Controller, name string) *api.ReplicaSet {
	t.Helper()
	rs, err := c.rsLister.ReplicaSets("ns").Get(name)
	if err != nil {
		t.Fatal(err)
	}
	return rs
}
