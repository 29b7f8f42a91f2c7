//go:build !nocluster

package e2e

import (
	"context"
	"testing"
	"time"

	"github.com/kcmlab/kcm/kube/api"
	"github.com/kcmlab/kcm/kube/api/decode"
	"github.com/kcmlab/kcm/kube/rest"
	"github.com/kcmlab/kcm/testenv"
)

// kube-apiserver takes the default StorageClass as written, and marks it
// the default one: the annotation e2epv.SkipIfNoDefaultStorageClass looks
// for (storageutil.IsDefaultAnnotation) is "true" on exactly one class.
func TestCreateDefaultStorageClass(t *testing.T) {
	cl := testenv.Shared(t)
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	if err := createDefaultStorageClass(ctx, cl.Config()); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		client, err := rest.NewClient(cl.Config())
		if err != nil {
			t.Error(err)
			return
		}
		defer client.CloseIdleConnections()
		if err := rest.NewResources(client, storageClasses, decode.Raw()).Delete(context.Background(), DefaultStorageClass,
			rest.DeleteOptions{}); err != nil {
			t.Error(err)
		}
	})
	client, err := rest.NewClient(cl.Config())
	if err != nil {
		t.Fatal(err)
	}
	defer client.CloseIdleConnections()
	list, err := rest.NewResources(client, storageClasses, decode.Raw()).List(ctx, rest.ListOptions{})
	if err != nil {
		t.Fatal(err)
	}
	var defaults []string
	var sc *api.RawObject
	for _, o := range list.Items {
		if o.Annotations[annDefaultStorageClass] == "true" {
			defaults, sc = append(defaults, o.Name), o
		}
	}
	if len(defaults) != 1 || defaults[0] != DefaultStorageClass {
		t.Fatalf("default StorageClasses %q, want only %q", defaults, DefaultStorageClass)
	}
	for _, f := range []struct {
		path []string
		want string
	}{{[]string{"provisioner"}, storageClassProvisioner}, {[]string{"volumeBindingMode"}, "Immediate"},
		{[]string{"reclaimPolicy"}, "Delete"}} {
		got, _, err := sc.NestedField(f.path...)
		if err != nil || got != f.want {
			t.Errorf("%v = %v (%v), want %q", f.path, got, err, f.want)
		}
	}
}
