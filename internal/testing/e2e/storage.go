package e2e

import (
	"context"
	"fmt"

	"github.com/kcmlab/kcm/kube/api"
	"github.com/kcmlab/kcm/kube/api/decode"
	"github.com/kcmlab/kcm/kube/rest"
)

// DefaultStorageClass is the StorageClass each run's cluster has, marked
// the default one. The StatefulSet specs that make claims first skip
// unless a default class exists (e2epv.SkipIfNoDefaultStorageClass);
// with it, kube-apiserver's DefaultStorageClass admission gives their
// claims this class and testenv's claim binder (Options.ClaimBinder)
// binds each to a volume of its own, as a provisioner would.
const DefaultStorageClass = "standard"

// storageClassProvisioner is the class's provisioner: a name no
// provisioner answers to (the claim binder binds every claim, whatever
// its class).
const storageClassProvisioner = "testenv.kcm.local/claim-binder"

// annDefaultStorageClass marks the default StorageClass
// (storage.k8s.io/v1, IsDefaultStorageClassAnnotation).
const annDefaultStorageClass = "storageclass.kubernetes.io/is-default-class"

// storageClasses is the cluster-scoped storage.k8s.io/v1 resource; kcm's
// rest package lists only what its controllers use.
var storageClasses = rest.Resource{Group: "storage.k8s.io", Version: "v1", Resource: "storageclasses", Kind: "StorageClass"}

// storageClassObject is the default StorageClass: immediate binding,
// volumes deleted with their claims.
func storageClassObject() map[string]any {
	return map[string]any{
		"apiVersion": "storage.k8s.io/v1", "kind": "StorageClass",
		"metadata": map[string]any{"name": DefaultStorageClass,
			"annotations": map[string]string{annDefaultStorageClass: "true"}},
		"provisioner":       storageClassProvisioner,
		"reclaimPolicy":     "Delete",
		"volumeBindingMode": "Immediate",
	}
}

// createDefaultStorageClass creates DefaultStorageClass on the cluster cfg
// reaches.
func createDefaultStorageClass(ctx context.Context, cfg *rest.Config) error {
	client, err := rest.NewClient(cfg)
	if err != nil {
		return fmt.Errorf("e2e: %w", err)
	}
	defer client.CloseIdleConnections()
	obj, err := api.NewRawObject(storageClassObject())
	if err != nil {
		return fmt.Errorf("e2e: the default StorageClass: %w", err)
	}
	if _, err := rest.NewResources(client, storageClasses, decode.Raw()).Create(ctx, obj); err != nil {
		return fmt.Errorf("e2e: create the default StorageClass: %w", err)
	}
	return nil
}
