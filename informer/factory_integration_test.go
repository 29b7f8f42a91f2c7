package informer_test

import (
	"testing"

	"github.com/kcmlab/kcm/informer"
	"github.com/kcmlab/kcm/kube/api"
	"github.com/kcmlab/kcm/kube/api/decode"
	"github.com/kcmlab/kcm/kube/labels"
	"github.com/kcmlab/kcm/kube/rest"
	"github.com/kcmlab/kcm/reflector"
)

// TestFactory: one informer per resource and representation, informers
// requested after Start start at once, metadata-only informers cache
// PartialObjectMetadata, managedFields are stripped by default, and
// Shutdown stops everything.
func TestFactory(t *testing.T) {
	_, c, ns, ctx := setup(t)
	cms := rest.NewResources(c, rest.ConfigMaps, decode.Typed[api.ConfigMap]()).InNamespace(ns)
	if _, err := cms.Create(ctx, &api.ConfigMap{ObjectMeta: api.ObjectMeta{Name: "a", Labels: map[string]string{"x": "y"}},
		Data: map[string]string{"k": "v"}}); err != nil {
		t.Fatal(err)
	}
	f := informer.NewFactory(c, informer.FactoryOptions{Namespace: ns, Reflector: fastReflector(reflector.ListStream)})
	typed := informer.For[api.ConfigMap](f, rest.ConfigMaps)
	if informer.For[api.ConfigMap](f, rest.ConfigMaps) != typed {
		t.Fatal("two typed informers for one resource")
	}
	raw := informer.ForRaw(f, rest.ConfigMaps)
	podLister := informer.PodsLister(f)
	f.Start(ctx)
	meta := informer.ForMetadata(f, rest.ConfigMaps) // requested after Start: starts at once
	synced := f.WaitForCacheSync(ctx)
	if len(synced) != 4 {
		t.Fatalf("WaitForCacheSync saw %d informers: %v", len(synced), synced)
	}
	for name, ok := range synced {
		if !ok {
			t.Fatalf("%s not synced", name)
		}
	}
	got, err := typed.Lister().Namespace(ns).Get("a")
	if err != nil || got.Data["k"] != "v" {
		t.Fatalf("typed lister: %v %v", got, err)
	}
	r, err := raw.Lister().Namespace(ns).Get("a")
	if err != nil {
		t.Fatal(err)
	}
	if _, ok, _ := r.NestedField("metadata", "managedFields"); ok {
		t.Errorf("managedFields kept in the cache: %s", r.Raw())
	}
	m, err := meta.Lister().Namespace(ns).Get("a")
	if err != nil || m.Kind != "PartialObjectMetadata" || m.Labels["x"] != "y" {
		t.Fatalf("metadata informer: %+v %v", m, err)
	}
	if _, ok, _ := m.NestedField("data"); ok {
		t.Errorf("metadata-only cache holds data")
	}
	if _, err := podLister.Pods(ns).Get("none"); !rest.IsNotFound(err) {
		t.Errorf("typed pod lister: %v, want NotFound", err)
	}
	x, _ := labels.ParseSelector("x=y")
	if n := len(typed.Lister().List(x)); n != 1 {
		t.Errorf("List(x=y) = %d objects", n)
	}
	f.Shutdown()
	for _, d := range []<-chan struct{}{typed.Done(), raw.Done(), meta.Done(), informer.For[api.Pod](f, rest.Pods).Done()} {
		select {
		case <-d:
		default:
			t.Fatal("an informer still runs after Shutdown")
		}
	}
}
