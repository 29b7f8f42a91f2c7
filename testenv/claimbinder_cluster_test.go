//go:build !nocluster

package testenv

import (
	"context"
	"fmt"
	"strconv"
	"testing"
	"time"

	"github.com/rs/zerolog"

	"github.com/kcmlab/kcm/kube/api"
	"github.com/kcmlab/kcm/kube/api/decode"
	"github.com/kcmlab/kcm/kube/rest"
)

// TestClaimBinderBindsAndReleases, on a cluster of its own with one kwok
// node and the claim binder (Options.ClaimBinder): a pod whose volume is a
// claim is scheduled and becomes Running and Ready, which kube-scheduler
// allows only once the claim is fully bound (volumeName and
// pv.kubernetes.io/bind-completed) to a volume that exists; the claim and
// the volume say what the binder promises. Then the claim is deleted while
// the pod still uses it: pvc-protection keeps it until the pod is gone —
// the claim's deletion is committed after the pod's — and its volume is
// deleted after it.
func TestClaimBinderBindsAndReleases(t *testing.T) {
	ctx, cancel := context.WithTimeout(t.Context(), 3*time.Minute)
	defer cancel()
	began := time.Now()
	c, err := Start(ctx, Options{Logger: zerolog.Nop(), Nodes: []NodeSpec{{Name: "node-1"}}, ClaimBinder: true})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(c.Stop) // after the namespace's deletion, which Namespace registers later
	t.Logf("cluster with a node and the claim binder in %s", time.Since(began).Round(time.Millisecond))
	client, err := rest.NewClient(c.Config())
	if err != nil {
		t.Fatal(err)
	}
	defer client.CloseIdleConnections()
	ns := c.Namespace(t)
	claims := rest.NewResources(client, rest.PersistentVolumeClaims, decode.Typed[api.PersistentVolumeClaim]()).InNamespace(ns)
	pods := rest.NewResources(client, rest.Pods, decode.Typed[api.Pod]()).InNamespace(ns)
	pvs := rest.NewResources(client, persistentVolumes, decode.Raw())

	claimW := startWatch(ctx, t, claims)
	podW := startWatch(ctx, t, pods)
	pvW := startWatch(ctx, t, pvs)

	pvc := &api.PersistentVolumeClaim{ObjectMeta: api.ObjectMeta{Name: "data"}, Spec: api.PersistentVolumeClaimSpec{
		AccessModes: []api.PersistentVolumeAccessMode{api.ReadWriteOnce},
		Resources:   api.VolumeResourceRequirements{Requests: api.ResourceList{"storage": "2Gi"}}}}
	created, err := claims.Create(ctx, pvc)
	if err != nil {
		t.Fatal(err)
	}
	pod := &api.Pod{ObjectMeta: api.ObjectMeta{Name: "app"}, Spec: api.PodSpec{
		Containers: []api.Container{{Name: "app", Image: "registry.example/app:1"}},
		Volumes: []api.Volume{{Name: "data",
			PersistentVolumeClaim: &api.PersistentVolumeClaimVolumeSource{ClaimName: "data"}}}}}
	if _, err := pods.Create(ctx, pod); err != nil {
		t.Fatal(err)
	}
	podW.waitFor(t, "pod app Running and Ready on node-1", func(ev rest.WatchEvent[*api.Pod]) bool {
		p := ev.Object
		return ev.Type != rest.Deleted && p.Spec.NodeName == "node-1" && p.Status.Phase == api.PodRunning && api.IsPodReady(p)
	})
	t.Logf("pod scheduled and Ready %s after the cluster started", time.Since(began).Round(time.Millisecond))

	bound, err := claims.Get(ctx, "data")
	if err != nil {
		t.Fatal(err)
	}
	pvName := ClaimVolumeName(ns, "data")
	if bound.Spec.VolumeName != pvName || bound.Annotations[AnnBindCompleted] != "yes" ||
		bound.Annotations[AnnBoundByController] != "yes" || bound.Status.Phase != api.ClaimBound ||
		bound.Status.Capacity["storage"] != "2Gi" || len(bound.Status.AccessModes) != 1 {
		t.Errorf("claim after binding: volumeName %q annotations %v status %+v; want volume %s, bind-completed and bound-by-controller yes, Bound, 2Gi, [ReadWriteOnce]",
			bound.Spec.VolumeName, bound.Annotations, bound.Status, pvName)
	}
	pv, err := pvs.Get(ctx, pvName)
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range []struct {
		path []string
		want string
	}{
		{[]string{"spec", "claimRef", "uid"}, created.UID},
		{[]string{"spec", "claimRef", "name"}, "data"},
		{[]string{"spec", "claimRef", "namespace"}, ns},
		{[]string{"spec", "capacity", "storage"}, "2Gi"},
		{[]string{"status", "phase"}, "Bound"},
		{[]string{"metadata", "labels", ClaimBinderLabel}, "true"},
	} {
		v, _, err := pv.NestedField(f.path...)
		if err != nil {
			t.Fatal(err)
		}
		if got := fmt.Sprint(v); got != f.want {
			t.Errorf("volume %s: %v = %q, want %q", pvName, f.path, got, f.want)
		}
	}

	// pvc-protection: the claim, deleted first, goes only after the pod.
	if err := claims.Delete(ctx, "data", rest.DeleteOptions{}); err != nil {
		t.Fatal(err)
	}
	claimW.waitFor(t, "the claim to be terminating", func(ev rest.WatchEvent[*api.PersistentVolumeClaim]) bool {
		return ev.Type == rest.Modified && ev.Object.DeletionTimestamp != nil
	})
	if err := pods.Delete(ctx, "app", rest.DeleteOptions{}); err != nil {
		t.Fatal(err)
	}
	podGone := podW.waitFor(t, "the pod to be gone", func(ev rest.WatchEvent[*api.Pod]) bool { return ev.Type == rest.Deleted })
	claimGone := claimW.waitFor(t, "the claim to be gone", func(ev rest.WatchEvent[*api.PersistentVolumeClaim]) bool {
		return ev.Type == rest.Deleted
	})
	pvGone := pvW.waitFor(t, "the volume to be gone", func(ev rest.WatchEvent[*api.RawObject]) bool {
		return ev.Type == rest.Deleted && ev.Object.Name == pvName
	})
	// resourceVersions are etcd revisions here: they order writes to
	// different resources.
	order := []uint64{rv(t, podGone.Object), rv(t, claimGone.Object), rv(t, pvGone.Object)}
	if !(order[0] < order[1] && order[1] < order[2]) {
		t.Errorf("deletions committed at revisions pod %d, claim %d, volume %d; want the pod's first, then the claim's, then the volume's",
			order[0], order[1], order[2])
	}
}

func rv[T api.Object](t *testing.T, o T) uint64 {
	t.Helper()
	n, err := strconv.ParseUint(o.GetObjectMeta().ResourceVersion, 10, 64)
	if err != nil {
		t.Fatal(err)
	}
	return n
}

// testWatch is a watch the test reads events from, in order.
type testWatch[T api.Object] struct {
	ctx context.Context
	w   *rest.Watcher[T]
}

// startWatch watches res from now on; the watch ends with the test.
func startWatch[T api.Object](ctx context.Context, t *testing.T, res *rest.Resources[T]) *testWatch[T] {
	t.Helper()
	list, err := res.List(ctx, rest.ListOptions{})
	if err != nil {
		t.Fatal(err)
	}
	w, err := res.Watch(ctx, rest.WatchOptions{ListOptions: rest.ListOptions{ResourceVersion: list.ResourceVersion}})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { w.Close() })
	return &testWatch[T]{ctx: ctx, w: w}
}

// waitFor reads events until one satisfies cond and returns it.
func (tw *testWatch[T]) waitFor(t *testing.T, what string, cond func(rest.WatchEvent[T]) bool) rest.WatchEvent[T] {
	t.Helper()
	for {
		ev, err := tw.w.Next()
		if err != nil {
			t.Fatalf("waiting for %s: %v", what, err)
		}
		if cond(ev) {
			return ev
		}
	}
}
