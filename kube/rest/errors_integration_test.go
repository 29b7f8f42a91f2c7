package rest_test

import (
	"errors"
	"strings"
	"testing"

	"github.com/kcmlab/kcm/kube/api"
	"github.com/kcmlab/kcm/kube/api/decode"
	"github.com/kcmlab/kcm/kube/rest"
	"github.com/kcmlab/kcm/testenv"
)

// TestTypedErrors maps real apiserver failures onto kcm's predicates and
// keeps the server's message.
func TestTypedErrors(t *testing.T) {
	c, ns, ctx := env(t)
	r := rest.NewResources(c, rest.ConfigMaps, decode.Typed[api.ConfigMap]()).InNamespace(ns)

	_, err := r.Get(ctx, "missing")
	if !rest.IsNotFound(err) || !errors.Is(err, rest.ErrNotFound) || !strings.Contains(err.Error(), `"missing" not found`) {
		t.Errorf("get missing: %v", err)
	}
	cm, err := r.Create(ctx, &api.ConfigMap{ObjectMeta: api.ObjectMeta{Name: "one"}})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := r.Create(ctx, &api.ConfigMap{ObjectMeta: api.ObjectMeta{Name: "one"}}); !rest.IsAlreadyExists(err) || rest.IsConflict(err) {
		t.Errorf("duplicate create: %v, want AlreadyExists (and not Conflict)", err)
	}
	if _, err := r.Create(ctx, &api.ConfigMap{ObjectMeta: api.ObjectMeta{Name: "Not_A_DNS_Name"}}); !rest.IsInvalid(err) {
		t.Errorf("invalid name: %v, want Invalid", err)
	}
	// Optimistic concurrency: an update carrying a stale resourceVersion is a 409.
	stale, _ := api.DeepCopy(cm)
	cm.Data = map[string]string{"a": "1"}
	if _, err := r.Update(ctx, cm); err != nil {
		t.Fatal(err)
	}
	stale.Data = map[string]string{"a": "2"}
	if _, err := r.Update(ctx, stale); !rest.IsConflict(err) {
		t.Errorf("stale update: %v, want Conflict", err)
	}
	// Delete preconditions: a wrong UID is a 409 too.
	if err := r.Delete(ctx, "one", rest.DeleteOptions{Preconditions: &rest.Preconditions{UID: ptr("not-the-uid")}}); !rest.IsConflict(err) {
		t.Errorf("delete with wrong uid precondition: %v, want Conflict", err)
	}

	cfg := testenv.Shared(t).Config()
	cfg.Credentials = rest.StaticToken("wrong-token")
	bad, err := rest.NewClient(cfg, rest.WithRetryPolicy(rest.RetryPolicy{MaxAttempts: 1}))
	if err != nil {
		t.Fatal(err)
	}
	_, err = rest.NewResources(bad, rest.ConfigMaps, decode.Raw()).InNamespace(ns).Get(ctx, "one")
	if !rest.IsUnauthorized(err) || strings.Contains(err.Error(), "wrong-token") {
		t.Errorf("bad token: %v, want Unauthorized without the token in the message", err)
	}
	cfg.Credentials = nil // anonymous: authenticated as system:anonymous, then refused by RBAC
	anon, err := rest.NewClient(cfg)
	if err != nil {
		t.Fatal(err)
	}
	_, err = rest.NewResources(anon, rest.ConfigMaps, decode.Raw()).InNamespace(ns).Get(ctx, "one")
	if !rest.IsForbidden(err) {
		t.Errorf("anonymous: %v, want Forbidden", err)
	}
}

// TestPatches covers the three patch types the apiserver accepts for
// built-in kinds, and the 415 a strategic merge patch gets on a CRD.
func TestPatches(t *testing.T) {
	c, ns, ctx := env(t)
	r := rest.NewResources(c, rest.Pods, decode.Typed[api.Pod]()).InNamespace(ns)
	p := testPod("patched")
	p.Spec.Containers = append(p.Spec.Containers, api.Container{Name: "side", Image: "registry.k8s.io/pause:3.10"})
	if _, err := r.Create(ctx, p); err != nil {
		t.Fatal(err)
	}
	got, err := r.Patch(ctx, "patched", rest.MergePatch, []byte(`{"metadata":{"labels":{"m":"1"}}}`), rest.PatchOptions{})
	if err != nil || got.Labels["m"] != "1" || got.Labels["app"] != "web" {
		t.Fatalf("merge patch: %v %v", got, err)
	}
	got, err = r.Patch(ctx, "patched", rest.JSONPatch, []byte(`[{"op":"add","path":"/metadata/annotations","value":{"j":"2"}}]`), rest.PatchOptions{})
	if err != nil || got.Annotations["j"] != "2" {
		t.Fatalf("json patch: %v", err)
	}
	// Strategic merge: containers merge by name, so patching one keeps the other.
	got, err = r.Patch(ctx, "patched", rest.StrategicMergePatch,
		[]byte(`{"spec":{"containers":[{"name":"side","image":"registry.k8s.io/pause:3.9"}]}}`), rest.PatchOptions{})
	if err != nil || len(got.Spec.Containers) != 2 || got.Spec.Containers[1].Image != "registry.k8s.io/pause:3.9" {
		t.Fatalf("strategic merge patch: %v %+v", err, got)
	}
	got, err = r.Patch(ctx, "patched", rest.MergePatch, []byte(`{"status":{"conditions":[{"type":"Ready","status":"False"}]}}`), rest.PatchOptions{}, "status")
	if err != nil || len(got.Status.Conditions) == 0 {
		t.Fatalf("status patch: %v", err)
	}
}

// TestNamespaceFinalize deletes a namespace (it stays Terminating: no
// namespace controller runs) and completes the deletion through the
// /finalize subresource, as the namespace controller does.
func TestNamespaceFinalize(t *testing.T) {
	c, ns, ctx := env(t)
	r := rest.NewResources(c, rest.Namespaces, decode.Typed[api.Namespace]())
	name := ns + "-fin"
	if _, err := r.Create(ctx, &api.Namespace{ObjectMeta: api.ObjectMeta{Name: name}}); err != nil {
		t.Fatal(err)
	}
	if err := r.Delete(ctx, name, rest.DeleteOptions{}); err != nil {
		t.Fatal(err)
	}
	n, err := r.Get(ctx, name)
	if err != nil || n.DeletionTimestamp == nil || n.Status.Phase != "Terminating" {
		t.Fatalf("after delete: %+v %v", n, err)
	}
	n.Spec.Finalizers = nil
	if _, err := r.UpdateSubresource(ctx, n, "finalize"); err != nil {
		t.Fatalf("finalize: %v", err)
	}
	if _, err := r.Get(ctx, name); !rest.IsNotFound(err) {
		t.Fatalf("after finalize: %v, want NotFound", err)
	}
}
