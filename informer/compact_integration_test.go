//go:build !nocluster

package informer_test

import (
	"testing"

	"github.com/kcmlab/kcm/informer"
	"github.com/kcmlab/kcm/internal/testing/podgen"
	"github.com/kcmlab/kcm/kube/api"
	"github.com/kcmlab/kcm/kube/api/decode"
	"github.com/kcmlab/kcm/kube/rest"
	"github.com/kcmlab/kcm/processor"
	"github.com/kcmlab/kcm/reflector"
)

// TestTypedCacheReadModifyWriteKeepsUnknownFields, against the real
// kube-apiserver: a pod with fields kcm's struct does not model (affinity,
// security contexts, dnsConfig) is read from a typed informer's cache,
// DeepCopied, changed and updated through a typed client; every
// unmodelled field survives, the changes land, and the cache's next state
// (from the watch) still carries them.
func TestTypedCacheReadModifyWriteKeepsUnknownFields(t *testing.T) {
	_, c, ns, ctx := setup(t)
	raw := rest.NewResources(c, rest.Pods, decode.Raw()).InNamespace(ns)
	typed := rest.NewResources(c, rest.Pods, decode.Typed[api.Pod]()).InNamespace(ns)
	obj, err := api.NewRawObject(podgen.UnmodelledPod("rich"))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := raw.Create(ctx, obj); err != nil {
		t.Fatalf("create: %v", err)
	}

	f := startFactory(t, ctx, c, ns, fastReflector(reflector.ListConsistent))
	inf := informer.For[api.Pod](f, rest.Pods)
	updated := make(chan *api.Pod, 16)
	if _, err := inf.AddEventHandler(processor.HandlerFuncs[*api.Pod]{UpdateFunc: func(_, p *api.Pod) { updated <- p }},
		processor.HandlerOptions{Name: "updates"}); err != nil {
		t.Fatal(err)
	}
	f.Start(ctx)
	if synced := f.WaitForCacheSync(ctx); !synced["pods"] {
		t.Fatalf("not synced: %v", synced)
	}
	cached, err := informer.PodsLister(f).Pods(ns).Get("rich")
	if err != nil {
		t.Fatal(err)
	}
	cp, err := api.DeepCopy(cached)
	if err != nil {
		t.Fatal(err)
	}
	cp.Labels = map[string]string{"touched": "yes"}
	cp.Spec.Containers[0].Image = "registry.k8s.io/pause:3.9" // image is mutable on a pod
	written, err := typed.Update(ctx, cp)
	if err != nil {
		t.Fatalf("typed update of the cached pod: %v", err)
	}
	after, err := raw.Get(ctx, "rich")
	if err != nil {
		t.Fatal(err)
	}
	checkRich(t, "the apiserver after the update", after)

	// The cache follows the write through the watch; the new compact
	// object rebuilds the unmodelled fields too.
	for {
		select {
		case <-ctx.Done():
			t.Fatal("the update never reached the cache")
		case p := <-updated:
			if p.ResourceVersion != written.ResourceVersion {
				continue // an earlier status update
			}
			r, err := api.DecodeRawObject(p.Raw())
			if err != nil {
				t.Fatalf("Raw of the cached pod after the update: %v", err)
			}
			checkRich(t, "the cache after the update", r)
			return
		}
	}
}

// checkRich fails the test unless obj has the unmodelled fields of the
// "rich" pod and the changes of the update.
func checkRich(t *testing.T, where string, obj *api.RawObject) {
	t.Helper()
	for _, path := range [][]string{
		{"spec", "affinity", "nodeAffinity"},
		{"spec", "securityContext", "runAsUser"},
		{"spec", "dnsConfig", "options"},
	} {
		if _, ok, err := obj.NestedField(path...); !ok || err != nil {
			t.Errorf("%s: field %v lost (err %v)", where, path, err)
		}
	}
	containers, _, _ := obj.NestedField("spec", "containers")
	cs, _ := containers.([]any)
	if len(cs) != 1 {
		t.Fatalf("%s: containers = %v", where, containers)
	}
	c0, _ := cs[0].(map[string]any)
	if c0["image"] != "registry.k8s.io/pause:3.9" || c0["securityContext"] == nil {
		t.Errorf("%s: container = %v, want the new image and the unmodelled securityContext", where, c0)
	}
	if obj.Labels["touched"] != "yes" {
		t.Errorf("%s: label not written: %v", where, obj.Labels)
	}
}
