package informer_test

import (
	"fmt"
	"strings"
	"testing"

	"github.com/kcmlab/kcm/informer"
	"github.com/kcmlab/kcm/kube/api"
	"github.com/kcmlab/kcm/kube/api/decode"
	"github.com/kcmlab/kcm/kube/rest"
	"github.com/kcmlab/kcm/processor"
	"github.com/kcmlab/kcm/reflector"
	"github.com/kcmlab/kcm/testenv"
)

// TestConvergesOnCustomResources: an informer over a CRD's custom resources
// (as RawObjects) syncs and converges under creates, updates and deletes.
func TestConvergesOnCustomResources(t *testing.T) {
	_, c, ns, ctx := setup(t)
	res := testenv.InstallCRD(t, ctx, c, strings.ToLower(ns)+".kcm.test", "Gizmo")
	gizmos := rest.NewResources(c, res, decode.Raw()).InNamespace(ns)
	gizmo := func(i, size int) *api.RawObject {
		o, err := api.NewRawObject(map[string]any{"apiVersion": res.GroupVersion(), "kind": "Gizmo",
			"metadata": map[string]any{"name": fmt.Sprintf("g-%02d", i)}, "spec": map[string]any{"size": size}})
		if err != nil {
			t.Fatal(err)
		}
		return o
	}
	for i := 0; i < 20; i++ {
		if _, err := gizmos.Create(ctx, gizmo(i, i)); err != nil {
			t.Fatal(err)
		}
	}
	f := startFactory(t, ctx, c, ns, fastReflector(reflector.ListStream))
	inf := informer.ForRaw(f, res)
	h := newLastEvents[*api.RawObject]()
	if _, err := inf.AddEventHandler(h, processor.HandlerOptions{}); err != nil {
		t.Fatal(err)
	}
	f.Start(ctx)
	if synced := f.WaitForCacheSync(ctx); !synced[inf.Name()] {
		t.Fatalf("not synced: %v", synced)
	}
	for i := 0; i < 20; i++ {
		switch i % 3 {
		case 0:
			if err := gizmos.Delete(ctx, fmt.Sprintf("g-%02d", i), rest.DeleteOptions{}); err != nil {
				t.Fatal(err)
			}
		case 1:
			if _, err := gizmos.Patch(ctx, fmt.Sprintf("g-%02d", i), rest.MergePatch, []byte(`{"spec":{"size":100}}`), rest.PatchOptions{}); err != nil {
				t.Fatal(err)
			}
		}
		if _, err := gizmos.Create(ctx, gizmo(100+i, i)); err != nil {
			t.Fatal(err)
		}
	}
	awaitConverged(t, ctx, gizmos, inf, h)
	g, err := inf.Lister().Namespace(ns).Get("g-01")
	if err != nil {
		t.Fatal(err)
	}
	if size, _, _ := g.NestedField("spec", "size"); size != float64(100) {
		t.Fatalf("cached g-01 size = %v, want 100", size)
	}
}
