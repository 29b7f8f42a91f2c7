package rest_test

import (
	"strings"
	"testing"

	"github.com/kcmlab/kcm/kube/api"
	"github.com/kcmlab/kcm/kube/api/decode"
	"github.com/kcmlab/kcm/kube/rest"
	"github.com/kcmlab/kcm/testenv"
)

// TestCRDThroughRawObject: a custom resource goes through create, get,
// edit+update, status update, list and delete as a RawObject.
func TestCRDThroughRawObject(t *testing.T) {
	c, ns, ctx := env(t)
	group := strings.ToLower(ns) + ".kcm.test"
	res := testenv.InstallCRD(t, ctx, c, group, "Widget")
	if !res.Namespaced || res.Resource != "widgets" {
		t.Fatalf("discovered %+v", res)
	}
	r := rest.NewResources(c, res, decode.Raw()).InNamespace(ns)
	w, err := api.NewRawObject(map[string]any{"apiVersion": group + "/v1", "kind": "Widget",
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
	list, err := r.List(ctx, rest.ListOptions{})
	if err != nil || len(list.Items) != 1 {
		t.Fatalf("list widgets: %v", err)
	}
	if v, _, _ := list.Items[0].NestedField("status", "ready"); v != true {
		t.Fatalf("status not stored: %s", list.Items[0].Raw())
	}
	// Strategic merge patch is for built-in kinds only: a CRD answers 415.
	if _, err := r.Patch(ctx, "w1", rest.StrategicMergePatch, []byte(`{"spec":{"size":6}}`), rest.PatchOptions{}); err == nil ||
		!strings.Contains(err.Error(), "415") {
		t.Fatalf("strategic merge patch on a CRD: %v, want 415", err)
	}
	if err := r.Delete(ctx, "w1", rest.DeleteOptions{}); err != nil {
		t.Fatal(err)
	}
	if _, err := r.Get(ctx, "w1"); !rest.IsNotFound(err) {
		t.Fatalf("after delete: %v", err)
	}
}
