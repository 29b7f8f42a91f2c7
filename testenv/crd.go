package testenv

import (
	"context"
	"strings"
	"time"

	"github.com/kcmlab/kcm/kube/api"
	"github.com/kcmlab/kcm/kube/api/decode"
	"github.com/kcmlab/kcm/kube/rest"
)

// InstallCRD creates a namespaced CustomResourceDefinition for kind in
// group, version v1, with a status subresource and a schema that keeps any
// field, waits until discovery serves it, and deletes it when the test
// ends. It returns the resource of its objects.
func InstallCRD(t TB, ctx context.Context, c *rest.Client, group, kind string) rest.Resource {
	t.Helper()
	singular := strings.ToLower(kind)
	plural := singular + "s"
	name := plural + "." + group
	crds := rest.NewResources(c, rest.CRDs, decode.Raw())
	crd, err := api.NewRawObject(map[string]any{
		"apiVersion": "apiextensions.k8s.io/v1", "kind": "CustomResourceDefinition",
		"metadata": map[string]any{"name": name},
		"spec": map[string]any{
			"group": group, "scope": "Namespaced",
			"names": map[string]any{"plural": plural, "singular": singular, "kind": kind, "listKind": kind + "List"},
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
		t.Fatalf("testenv: create CRD %s: %v", name, err)
	}
	t.Cleanup(func() { _ = crds.Delete(context.Background(), name, rest.DeleteOptions{}) })
	for {
		res, err := c.ResourceForKind(ctx, group+"/v1", kind)
		if err == nil {
			return res
		}
		select {
		case <-ctx.Done():
			t.Fatalf("testenv: CRD %s never served: %v", name, err)
		case <-time.After(100 * time.Millisecond): // discovery offers nothing to wait on
		}
	}
}
