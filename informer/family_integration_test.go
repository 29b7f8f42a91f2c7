//go:build !nocluster

package informer_test

import (
	"bytes"
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/kcmlab/kcm/informer"
	"github.com/kcmlab/kcm/kube/api"
	"github.com/kcmlab/kcm/kube/api/decode"
	"github.com/kcmlab/kcm/kube/rest"
	"github.com/kcmlab/kcm/reflector"
)

// TestRawCacheGivesBackTheServersBytes, against the real kube-apiserver:
// a RawObject cache keeps the pods of a controller as deltas against a
// sibling (kube/api/decode's families), and every cached pod's Raw and Original
// are still exactly the bytes the apiserver serves for it (a LIST's item,
// a WATCH's object), managedFields cut — after the initial list, and
// again after every pod was relabelled and the watch delivered the new
// versions.
func TestRawCacheGivesBackTheServersBytes(t *testing.T) {
	_, c, ns, ctx := setup(t)
	raw := rest.NewResources(c, rest.Pods, decode.Raw()).InNamespace(ns)
	const perOwner = 6
	owners := []string{"5f0c7d9e-0000-4000-8000-00000000000a", "5f0c7d9e-0000-4000-8000-00000000000b", ""}
	var names []string
	for o, uid := range owners {
		for k := range perOwner {
			name := fmt.Sprintf("p-%d-%d", o, k)
			meta := map[string]any{"name": name, "labels": map[string]any{"app": fmt.Sprintf("app-%d", o), "k": fmt.Sprint(k % 2)},
				"annotations": map[string]any{"note": "same for all"}}
			if uid != "" {
				meta["ownerReferences"] = []any{map[string]any{"apiVersion": "apps/v1", "kind": "ReplicaSet",
					"name": fmt.Sprintf("rs-%d", o), "uid": uid, "controller": true, "blockOwnerDeletion": true}}
			}
			env := []any{map[string]any{"name": "INDEX", "value": fmt.Sprint(k)}}
			obj, err := api.NewRawObject(map[string]any{"apiVersion": "v1", "kind": "Pod", "metadata": meta,
				"spec": map[string]any{"containers": []any{map[string]any{"name": "c", "image": "registry.k8s.io/pause:3.10", "env": env}},
					"nodeName": fmt.Sprintf("node-%d", k)}})
			if err != nil {
				t.Fatal(err)
			}
			if _, err := raw.Create(ctx, obj); err != nil {
				t.Fatalf("create %s: %v", name, err)
			}
			names = append(names, name)
		}
	}

	// What the apiserver serves: a LIST's items, then a WATCH's objects,
	// decoded without stripping; managedFields cut here for comparison.
	served, err := raw.List(ctx, rest.ListOptions{})
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]*api.RawObject{}
	for _, o := range served.Items {
		want[o.Name] = o
	}
	w, err := raw.Watch(ctx, rest.WatchOptions{ListOptions: rest.ListOptions{ResourceVersion: served.ResourceVersion}})
	if err != nil {
		t.Fatal(err)
	}
	defer func() { _ = w.Close() }()

	f := startFactory(t, ctx, c, ns, fastReflector(reflector.ListFromCache))
	inf := informer.ForRaw(f, rest.Pods)
	f.Start(ctx)
	if synced := f.WaitForCacheSync(ctx); !synced["pods(raw)"] {
		t.Fatalf("not synced: %v", synced)
	}
	lister := inf.Lister().Namespace(ns)
	compareAll(t, ctx, "listed", lister, want)

	for _, name := range names {
		if _, err := raw.Patch(ctx, name, rest.MergePatch, []byte(`{"metadata":{"labels":{"wave":"2"}}}`), rest.PatchOptions{}); err != nil {
			t.Fatalf("relabel %s: %v", name, err)
		}
	}
	for range names {
		ev, err := w.Next()
		if err != nil {
			t.Fatalf("watch: %v", err)
		}
		if ev.Type != rest.Modified || ev.Object.Labels["wave"] != "2" {
			t.Fatalf("watch: %s %s, want the relabel", ev.Type, ev.Object.Name)
		}
		want[ev.Object.Name] = ev.Object
	}
	compareAll(t, ctx, "after the relabel", lister, want)
}

// compareAll waits until the cache holds each served object's version,
// then checks that each cached pod's Raw and Original are the served JSON
// without managedFields.
func compareAll(t *testing.T, ctx context.Context, when string, lister informer.NamespaceLister[*api.RawObject],
	served map[string]*api.RawObject) {
	t.Helper()
	for name, s := range served {
		want, err := decode.StripManagedFields(s.Raw())
		if err != nil {
			t.Fatal(err)
		}
		if bytes.Equal(want, s.Raw()) {
			t.Fatalf("%s: %s: served without managedFields; the test needs them", when, name)
		}
		cached := waitCached(t, ctx, lister, name, s.ResourceVersion)
		orig, err := cached.Original()
		if err != nil {
			t.Fatalf("%s: %s: Original: %v", when, name, err)
		}
		if got := cached.Raw(); !bytes.Equal(got, want) || !bytes.Equal(orig, want) {
			t.Errorf("%s: %s: the cache gives back\n%s\nthe apiserver serves (managedFields cut)\n%s", when, name, got, want)
		}
	}
}

// waitCached polls the lister until it holds name at resourceVersion rv.
func waitCached(t *testing.T, ctx context.Context, lister informer.NamespaceLister[*api.RawObject], name, rv string) *api.RawObject {
	t.Helper()
	tick := time.NewTicker(20 * time.Millisecond)
	defer tick.Stop()
	for {
		if o, err := lister.Get(name); err == nil && o.ResourceVersion == rv {
			return o
		}
		select {
		case <-ctx.Done():
			t.Fatalf("the cache never held %s at resourceVersion %s", name, rv)
		case <-tick.C:
		}
	}
}
