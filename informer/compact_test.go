package informer_test

import (
	"context"
	"testing"
	"time"

	"github.com/kcmlab/kcm/informer"
	"github.com/kcmlab/kcm/internal/testing/fakeapi"
	"github.com/kcmlab/kcm/kube/api"
	"github.com/kcmlab/kcm/kube/rest"
	"github.com/kcmlab/kcm/processor"
	"github.com/kcmlab/kcm/reflector"
)

// richPod is a pod with fields kcm's Pod struct does not model, at the top
// of the spec, inside a container and inside a container status.
func richPod(ns, name string, runAsUser int) map[string]any {
	return map[string]any{
		"apiVersion": "v1", "kind": "Pod",
		"metadata": map[string]any{"namespace": ns, "name": name, "labels": map[string]any{"app": "rich"}},
		"spec": map[string]any{
			"affinity":        map[string]any{"podAntiAffinity": map[string]any{"preferredDuringSchedulingIgnoredDuringExecution": []any{}}},
			"securityContext": map[string]any{"runAsNonRoot": true, "runAsUser": runAsUser},
			"containers": []any{map[string]any{"name": "c", "image": "registry.k8s.io/pause:3.10",
				"securityContext": map[string]any{"allowPrivilegeEscalation": false}}},
		},
		"status": map[string]any{"phase": "Running", "containerStatuses": []any{map[string]any{
			"name": "c", "ready": true, "restartCount": 0, "image": "registry.k8s.io/pause:3.10", "imageID": "sha256:x",
			"volumeMounts": []any{map[string]any{"name": "kube-api-access-x", "mountPath": "/var/run/secrets"}}}}},
	}
}

// unmodelled reads the fields of richPod that the struct does not hold
// from an object's Raw, or fails the test.
func unmodelled(t *testing.T, p *api.Pod) (runAsUser any, container, status map[string]any) {
	t.Helper()
	raw, err := api.DecodeRawObject(p.Raw())
	if err != nil {
		t.Fatalf("Raw of the cached pod: %v", err)
	}
	runAsUser, ok, _ := raw.NestedField("spec", "securityContext", "runAsUser")
	if _, aff, _ := raw.NestedField("spec", "affinity", "podAntiAffinity"); !ok || !aff {
		t.Fatalf("the cached pod lost spec.securityContext or spec.affinity: %s", p.Raw())
	}
	cs, _, _ := raw.NestedField("spec", "containers")
	st, _, _ := raw.NestedField("status", "containerStatuses")
	c, _ := cs.([]any)
	s, _ := st.([]any)
	if len(c) != 1 || len(s) != 1 {
		t.Fatalf("containers or statuses lost: %s", p.Raw())
	}
	return runAsUser, c[0].(map[string]any), s[0].(map[string]any)
}

// TestTypedCacheKeepsUnknownFields: the objects a typed informer caches
// (compact: they keep no JSON) still give, through Raw, every field kcm
// does not model — from the LIST and from watch events — and so do their
// DeepCopies after changes, which is what a write merges onto.
func TestTypedCacheKeepsUnknownFields(t *testing.T) {
	pods := fakeapi.Resource{Version: "v1", Resource: "pods", Kind: "Pod"}
	srv := fakeapi.New(fakeapi.Options{Resources: []fakeapi.Resource{pods}})
	t.Cleanup(srv.Close)
	if _, err := srv.Create(pods, richPod("ns", "rich", 1000)); err != nil {
		t.Fatal(err)
	}
	c, err := rest.NewClient(&rest.Config{Host: srv.URL(), QPS: -1})
	if err != nil {
		t.Fatal(err)
	}
	f := informer.NewFactory(c, informer.FactoryOptions{Reflector: reflector.Options{DisableWatchList: true}})
	inf := informer.For[api.Pod](f, rest.Pods)
	updated := make(chan *api.Pod, 1)
	if _, err := inf.AddEventHandler(processor.HandlerFuncs[*api.Pod]{UpdateFunc: func(_, p *api.Pod) { updated <- p }},
		processor.HandlerOptions{Name: "updates"}); err != nil {
		t.Fatal(err)
	}
	lister := informer.PodsLister(f)
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	f.Start(ctx)
	t.Cleanup(f.Shutdown)
	if synced := f.WaitForCacheSync(ctx); !synced["pods"] {
		t.Fatalf("not synced: %v", synced)
	}

	listed, err := lister.Pods("ns").Get("rich")
	if err != nil {
		t.Fatal(err)
	}
	user, container, status := unmodelled(t, listed)
	if user != float64(1000) {
		t.Errorf("runAsUser = %v, want 1000", user)
	}
	if container["securityContext"] == nil || status["volumeMounts"] == nil {
		t.Errorf("unmodelled members of a container or its status lost: %s", listed.Raw())
	}

	cp, err := api.DeepCopy(listed)
	if err != nil {
		t.Fatal(err)
	}
	cp.Labels = map[string]string{"touched": "yes"}
	cp.Spec.Containers[0].Image = "registry.k8s.io/pause:3.9"
	if _, c2, _ := unmodelled(t, cp); c2["image"] != "registry.k8s.io/pause:3.10" {
		t.Errorf("a changed copy's Raw must be the object as read (what the write merges onto), image %v", c2["image"])
	}

	// A watch event: the unmodelled field changes on the server.
	if _, err := srv.Update(pods, richPod("ns", "rich", 2000)); err != nil {
		t.Fatal(err)
	}
	select {
	case <-ctx.Done():
		t.Fatal("the update never reached the cache")
	case p := <-updated:
		if user, _, _ := unmodelled(t, p); user != float64(2000) {
			t.Fatalf("after the watch event runAsUser = %v, want 2000", user)
		}
	}
}
