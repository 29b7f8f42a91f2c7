package deployment

import (
	"context"
	"slices"
	"testing"
	"time"

	"github.com/rs/zerolog"

	"github.com/kcmlab/kcm/kube/api"
	"github.com/kcmlab/kcm/queue"
)

func drain(t *testing.T, q *queue.Queue[string]) []string {
	t.Helper()
	var got []string
	for q.Len() > 0 {
		k, err := q.Get(context.Background())
		if err != nil {
			t.Fatal(err)
		}
		got = append(got, k)
		q.Done(k)
	}
	slices.Sort(got)
	return got
}

// TestHandlers checks the event handlers against
// deployment_controller.go: which notifications enqueue which
// Deployments.
func TestHandlers(t *testing.T) {
	web := newDeployment("web", 1, "v1")
	api2 := newDeployment("api", 1, "v1")
	api2.Spec.Selector = &api.LabelSelector{MatchLabels: map[string]string{"tier": "be"}}
	all := newDeployment("all", 1, "v1")
	all.Spec.Selector = &api.LabelSelector{}
	rec := recreateDeployment("v1")
	rec.Name, rec.UID = "rec", "uid-rec"
	rec.Spec.Selector = &api.LabelSelector{MatchLabels: map[string]string{"app": "rec"}}
	rec.Spec.Template.Labels = map[string]string{"app": "rec"}
	owned := newRS(web, "web-1", 1, 1, 0)
	orphan := newRS(web, "orph", 1, 1, 0)
	orphan.OwnerReferences = nil
	orphan.Labels = map[string]string{"app": "web", "tier": "be"}
	stranger := newRS(web, "stranger", 1, 1, 0)
	stranger.OwnerReferences[0].UID = "someone-else"
	recRS := newRS(rec, "rec-1", 1, 1, 0)
	f := newFixture(t)
	f.load([]*api.Deployment{web, api2, all, rec}, owned, orphan, stranger, recRS)
	q := queue.New(queue.Config[string]{})
	defer q.ShutDown()
	f.with(func(s *syncer) {
		h := &handlers{c: s.Controller, q: q, log: zerolog.Nop()}
		check := func(name string, fn func(), want ...string) {
			t.Helper()
			fn()
			if got := drain(t, q); !slices.Equal(got, want) {
				t.Errorf("%s: enqueued %q, want %q", name, got, want)
			}
		}
		check("deployment add", func() { h.addDeployment(web, true) }, "ns/web")
		check("deployment update", func() { h.updateDeployment(api2, web) }, "ns/web")
		check("deployment delete", func() { h.deleteDeployment(web, true) }, "ns/web")
		check("owned rs add", func() { h.addReplicaSet(owned, false) }, "ns/web")
		check("stranger rs add", func() { h.addReplicaSet(stranger, false) })
		check("orphan rs add: every selecting deployment, not the empty selector", func() { h.addReplicaSet(orphan, false) }, "ns/api", "ns/web")
		unlabelled := roundTrip(t, orphan)
		unlabelled.Labels = nil
		check("unlabelled orphan", func() { h.addReplicaSet(unlabelled, false) })
		deleting := roundTrip(t, owned)
		now := api.NewTime(t0)
		deleting.DeletionTimestamp = &now
		check("rs added while being deleted", func() { h.addReplicaSet(deleting, false) }, "ns/web")
		check("rs resync", func() { h.updateReplicaSet(owned, owned) })
		newer := roundTrip(t, owned)
		newer.ResourceVersion = "6"
		check("owned rs update", func() { h.updateReplicaSet(owned, newer) }, "ns/web")
		released := roundTrip(t, newer)
		released.OwnerReferences = nil
		check("rs released: old owner and selecting deployments", func() { h.updateReplicaSet(owned, released) }, "ns/web")
		movedAway := roundTrip(t, released)
		movedAway.Labels = map[string]string{"tier": "be"}
		check("rs released with other labels: the old owner too", func() { h.updateReplicaSet(owned, movedAway) }, "ns/api", "ns/web")
		orphan2 := roundTrip(t, orphan)
		orphan2.ResourceVersion = "7"
		check("orphan update without label change", func() { h.updateReplicaSet(orphan, orphan2) })
		orphan2.Labels = map[string]string{"tier": "be"}
		check("orphan label change", func() { h.updateReplicaSet(orphan, orphan2) }, "ns/api")
		check("owned rs delete", func() { h.deleteReplicaSet(owned, true) }, "ns/web")
		check("orphan rs delete", func() { h.deleteReplicaSet(orphan, false) })

		// Pods: only Recreate Deployments, on every deletion (1.35+).
		check("pod of rolling deployment", func() { h.deletePod(podOf(owned, "p", api.PodRunning), false) })
		check("last pod of recreate deployment", func() { h.deletePod(podOf(recRS, "p", api.PodRunning), false) }, "ns/rec")
		f.pods = []*api.Pod{podOf(recRS, "left", api.PodSucceeded)}
	})
	f.with(func(s *syncer) {
		h := &handlers{c: s.Controller, q: q, log: zerolog.Nop()}
		h.deletePod(podOf(recRS, "p", api.PodRunning), false)
		if got := drain(t, q); len(got) != 1 || got[0] != "ns/rec" {
			t.Errorf("pods left: enqueued %q, want [ns/rec] (Kubernetes 1.35+ enqueues on every deletion)", got)
		}
		orphanPod := podOf(recRS, "o", api.PodRunning)
		orphanPod.OwnerReferences = nil
		h.deletePod(orphanPod, false)
		wrongUID := podOf(recRS, "w", api.PodRunning)
		wrongUID.OwnerReferences[0].UID = "x"
		h.deletePod(wrongUID, false)
		notRS := podOf(recRS, "j", api.PodRunning)
		notRS.OwnerReferences[0].Kind = "Job"
		h.deletePod(notRS, false)
		if got := drain(t, q); len(got) != 0 {
			t.Errorf("enqueued %q for pods of no Deployment", got)
		}
	})
}

// TestDescriptor: kube-controller-manager's name, alias, default and
// worker flag.
func TestDescriptor(t *testing.T) {
	d := Descriptor()
	if d.Name != "deployment-controller" || !slices.Equal(d.Aliases, []string{"deployment"}) || d.DisabledByDefault ||
		d.Concurrency == nil || d.Concurrency.Name != "concurrent-deployment-syncs" || d.Concurrency.Default != 5 || d.Constructor == nil {
		t.Fatalf("descriptor %+v", d)
	}
	if MaxRetries != 15 {
		t.Fatal("maxRetries")
	}
	_ = time.Second
}
