package kube_test

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/kcmlab/kcm/kube"
)

// installCRD creates a namespaced CRD widgets.<group>/v1 and waits until it
// is Established and served.
func installCRD(t *testing.T, ctx context.Context, c *kube.Client, group string) kube.Resource {
	t.Helper()
	crds := kube.NewResources(c, kube.CRDs, kube.Raw())
	crd, err := kube.NewRawObject(map[string]any{
		"apiVersion": "apiextensions.k8s.io/v1", "kind": "CustomResourceDefinition",
		"metadata": map[string]any{"name": "widgets." + group},
		"spec": map[string]any{
			"group": group, "scope": "Namespaced",
			"names": map[string]any{"plural": "widgets", "singular": "widget", "kind": "Widget", "listKind": "WidgetList"},
			"versions": []any{map[string]any{"name": "v1", "served": true, "storage": true,
				"subresources": map[string]any{"status": map[string]any{}},
				"schema": map[string]any{"openAPIV3Schema": map[string]any{"type": "object",
					"x-kubernetes-preserve-unknown-fields": true}}}},
		},
	})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := crds.Create(ctx, crd); err != nil {
		t.Fatalf("create CRD: %v", err)
	}
	t.Cleanup(func() {
		_ = crds.Delete(context.Background(), "widgets."+group, kube.DeleteOptions{})
	})
	for {
		res, err := c.ResourceForKind(ctx, group+"/v1", "Widget")
		if err == nil {
			return res
		}
		select {
		case <-ctx.Done():
			t.Fatalf("CRD never served: %v", err)
		case <-time.After(100 * time.Millisecond): // polling discovery: the apiserver offers no event for it
		}
	}
}

// TestCRDThroughRawObject: a custom resource goes through create, get,
// edit+update, status update, list and delete as a RawObject.
func TestCRDThroughRawObject(t *testing.T) {
	c, ns, ctx := env(t)
	group := strings.ToLower(ns) + ".kcm.test"
	res := installCRD(t, ctx, c, group)
	if !res.Namespaced || res.Resource != "widgets" {
		t.Fatalf("discovered %+v", res)
	}
	r := kube.NewResources(c, res, kube.Raw()).InNamespace(ns)
	w, err := kube.NewRawObject(map[string]any{"apiVersion": group + "/v1", "kind": "Widget",
		"metadata": map[string]any{"name": "w1"}, "spec": map[string]any{"size": 3, "color": "blue"}})
	if err != nil {
		t.Fatal(err)
	}
	created, err := r.Create(ctx, w)
	if err != nil {
		t.Fatalf("create widget: %v", err)
	}
	edited, err := created.Edit(func(m map[string]any) error {
		m["spec"].(map[string]any)["size"] = 5
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	upd, err := r.Update(ctx, edited)
	if err != nil {
		t.Fatalf("update widget: %v", err)
	}
	if v, _, _ := upd.NestedField("spec", "size"); v != float64(5) {
		t.Fatalf("size after update = %v", v)
	}
	if v, _, _ := upd.NestedField("spec", "color"); v != "blue" {
		t.Fatalf("color lost: %v", v)
	}
	st, _ := upd.Edit(func(m map[string]any) error { m["status"] = map[string]any{"ready": true}; return nil })
	if _, err := r.UpdateStatus(ctx, st); err != nil {
		t.Fatalf("status update: %v", err)
	}
	list, err := r.List(ctx, kube.ListOptions{})
	if err != nil || len(list.Items) != 1 {
		t.Fatalf("list widgets: %v", err)
	}
	if v, _, _ := list.Items[0].NestedField("status", "ready"); v != true {
		t.Fatalf("status not stored: %s", list.Items[0].Raw())
	}
	// Strategic merge patch is for built-in kinds only: a CRD answers 415.
	if _, err := r.Patch(ctx, "w1", kube.StrategicMergePatch, []byte(`{"spec":{"size":6}}`), kube.PatchOptions{}); err == nil ||
		!strings.Contains(err.Error(), "415") {
		t.Fatalf("strategic merge patch on a CRD: %v, want 415", err)
	}
	if err := r.Delete(ctx, "w1", kube.DeleteOptions{}); err != nil {
		t.Fatal(err)
	}
	if _, err := r.Get(ctx, "w1"); !kube.IsNotFound(err) {
		t.Fatalf("after delete: %v", err)
	}
}
