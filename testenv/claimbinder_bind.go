package testenv

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"

	"github.com/kcmlab/kcm/kube/api"
	"github.com/kcmlab/kcm/kube/rest"
)

// The claim binder's writes: binding a claim to a volume of its own,
// releasing the volume of a claim that is gone, and the pvc-protection
// rule. Each step is idempotent, so a step that failed half way is simply
// done again.

// defaultClaimSize is the capacity of a volume for a claim without a
// storage request (which validation does not let a claim have).
const defaultClaimSize = "1Gi"

// bind binds pvc to the volume ClaimVolumeName names, making the volume
// if needed. A claim bound elsewhere is left alone.
func (b *claimBinder) bind(ctx context.Context, pvc *api.PersistentVolumeClaim) error {
	pvName := ClaimVolumeName(pvc.Namespace, pvc.Name)
	if pvc.Spec.VolumeName != "" && pvc.Spec.VolumeName != pvName {
		return nil
	}
	if pvc.Spec.VolumeName == pvName && pvc.Annotations[AnnBindCompleted] == "yes" && pvc.Status.Phase == api.ClaimBound {
		return nil
	}
	size := pvc.Spec.Resources.Requests["storage"]
	if size == "" {
		size = defaultClaimSize
	}
	modes := pvc.Spec.AccessModes
	if len(modes) == 0 {
		modes = []api.PersistentVolumeAccessMode{api.ReadWriteOnce}
	}
	if err := b.ensureVolume(ctx, pvc, pvName, size, modes); err != nil {
		return err
	}
	claims := b.claims.InNamespace(pvc.Namespace)
	if pvc.Spec.VolumeName == "" || pvc.Annotations[AnnBindCompleted] != "yes" {
		// spec.volumeName may be set once on a claim that has none
		// (ValidatePersistentVolumeClaimUpdate); the resourceVersion makes
		// the patch apply to the claim read.
		patch := map[string]any{
			"metadata": map[string]any{"resourceVersion": pvc.ResourceVersion,
				"annotations": map[string]string{AnnBindCompleted: "yes", AnnBoundByController: "yes"}},
			"spec": map[string]any{"volumeName": pvName},
		}
		if _, err := claims.Patch(ctx, pvc.Name, rest.MergePatch, mustJSON(patch), rest.PatchOptions{}); err != nil {
			return fmt.Errorf("bind claim to %s: %w", pvName, err)
		}
	}
	status := map[string]any{"status": map[string]any{"phase": api.ClaimBound, "accessModes": modes,
		"capacity": map[string]string{"storage": size}}}
	if _, err := claims.Patch(ctx, pvc.Name, rest.MergePatch, mustJSON(status), rest.PatchOptions{}, "status"); err != nil {
		return fmt.Errorf("claim status Bound: %w", err)
	}
	b.log.Debug().Str("claim", claimKey(pvc)).Str("volume", pvName).Msg("claim bound")
	return nil
}

// ensureVolume creates the volume for pvc, or finds it made already for
// this claim. A volume of that name made for an earlier claim of the same
// name (one that is gone: names are unique) is deleted and made again.
func (b *claimBinder) ensureVolume(ctx context.Context, pvc *api.PersistentVolumeClaim, pvName, size string, modes []api.PersistentVolumeAccessMode) error {
	for attempt := 0; ; attempt++ {
		obj, err := api.NewRawObject(volumeObject(pvc, pvName, size, modes))
		if err != nil {
			return err
		}
		_, err = b.pvs.Create(ctx, obj)
		if err == nil {
			break
		}
		if !rest.IsAlreadyExists(err) {
			return fmt.Errorf("create volume %s: %w", pvName, err)
		}
		uid, err := b.volumeClaimUID(ctx, pvName)
		if err != nil {
			return err
		}
		if uid == pvc.UID {
			break
		}
		if attempt > 0 {
			return fmt.Errorf("volume %s belongs to claim uid %s, not %s", pvName, uid, pvc.UID)
		}
		if err := b.deleteVolume(ctx, pvName, uid); err != nil {
			return err
		}
	}
	status := map[string]any{"status": map[string]any{"phase": "Bound"}}
	if _, err := b.pvs.Patch(ctx, pvName, rest.MergePatch, mustJSON(status), rest.PatchOptions{}, "status"); err != nil {
		return fmt.Errorf("volume %s status Bound: %w", pvName, err)
	}
	return nil
}

// volumeObject is the PersistentVolume bound to pvc.
func volumeObject(pvc *api.PersistentVolumeClaim, pvName, size string, modes []api.PersistentVolumeAccessMode) map[string]any {
	spec := map[string]any{
		"capacity":                      map[string]string{"storage": size},
		"accessModes":                   modes,
		"persistentVolumeReclaimPolicy": "Delete",
		"hostPath":                      map[string]string{"path": "/tmp/kcm-testenv-volumes/" + pvName},
		"claimRef": map[string]string{"kind": "PersistentVolumeClaim", "apiVersion": "v1",
			"namespace": pvc.Namespace, "name": pvc.Name, "uid": pvc.UID},
	}
	if pvc.Spec.StorageClassName != nil {
		spec["storageClassName"] = *pvc.Spec.StorageClassName
	}
	if pvc.Spec.VolumeMode != nil {
		spec["volumeMode"] = *pvc.Spec.VolumeMode
	}
	return map[string]any{
		"apiVersion": "v1", "kind": "PersistentVolume",
		"metadata": map[string]any{"name": pvName, "labels": map[string]string{ClaimBinderLabel: "true"},
			"annotations": map[string]string{AnnBoundByController: "yes"}},
		"spec": spec,
	}
}

// volumeClaimUID reads the uid of the claim volume pvName is bound to ("" if
// the volume is gone).
func (b *claimBinder) volumeClaimUID(ctx context.Context, pvName string) (string, error) {
	pv, err := b.pvs.Get(ctx, pvName)
	if rest.IsNotFound(err) {
		return "", nil
	}
	if err != nil {
		return "", fmt.Errorf("read volume %s: %w", pvName, err)
	}
	uid, _, err := pv.NestedField("spec", "claimRef", "uid")
	if err != nil {
		return "", err
	}
	s, _ := uid.(string)
	return s, nil
}

// release deletes the volume of a claim that is gone, if the binder made
// it for that claim.
func (b *claimBinder) release(ctx context.Context, pvc *api.PersistentVolumeClaim) error {
	pvName := ClaimVolumeName(pvc.Namespace, pvc.Name)
	if pvc.Spec.VolumeName != "" && pvc.Spec.VolumeName != pvName {
		return nil
	}
	uid, err := b.volumeClaimUID(ctx, pvName)
	if err != nil || uid != pvc.UID {
		return err
	}
	return b.deleteVolume(ctx, pvName, uid)
}

// deleteVolume removes the pv-protection finalizer of volume pvName (the
// pv-protection controller would, the claim being gone) and deletes it,
// provided it is still bound to claim uid.
func (b *claimBinder) deleteVolume(ctx context.Context, pvName, claimUID string) error {
	unprotect := map[string]any{"metadata": map[string]any{"finalizers": nil}}
	if _, err := b.pvs.Patch(ctx, pvName, rest.MergePatch, mustJSON(unprotect), rest.PatchOptions{}); err != nil && !rest.IsNotFound(err) {
		return fmt.Errorf("remove the finalizers of volume %s: %w", pvName, err)
	}
	err := b.pvs.Delete(ctx, pvName, rest.DeleteOptions{})
	if err != nil && !rest.IsNotFound(err) {
		return fmt.Errorf("delete volume %s (claim uid %s): %w", pvName, claimUID, err)
	}
	b.log.Debug().Str("volume", pvName).Msg("volume released")
	return nil
}

// unprotect is the pvc-protection rule for a terminating claim: its
// finalizer goes once no pod of its namespace that has not finished
// (phase Succeeded or Failed) names it in spec.volumes. It reports true
// when a pod still uses the claim (look again later).
func (b *claimBinder) unprotect(ctx context.Context, pvc *api.PersistentVolumeClaim) (bool, error) {
	if !slices.Contains(pvc.Finalizers, pvcProtectionFinalizer) {
		return false, nil
	}
	pods, err := b.pods.InNamespace(pvc.Namespace).List(ctx, rest.ListOptions{})
	if err != nil {
		return false, fmt.Errorf("list pods: %w", err)
	}
	for _, p := range pods.Items {
		if p.Status.Phase == api.PodSucceeded || p.Status.Phase == api.PodFailed {
			continue
		}
		for _, v := range p.Spec.Volumes {
			if v.PersistentVolumeClaim != nil && v.PersistentVolumeClaim.ClaimName == pvc.Name {
				return true, nil
			}
		}
	}
	kept := slices.DeleteFunc(slices.Clone(pvc.Finalizers), func(f string) bool { return f == pvcProtectionFinalizer })
	patch := map[string]any{"metadata": map[string]any{"resourceVersion": pvc.ResourceVersion, "finalizers": kept}}
	_, err = b.claims.InNamespace(pvc.Namespace).Patch(ctx, pvc.Name, rest.MergePatch, mustJSON(patch), rest.PatchOptions{})
	if err != nil && !rest.IsNotFound(err) {
		return false, fmt.Errorf("remove %s: %w", pvcProtectionFinalizer, err)
	}
	return false, nil
}

// mustJSON encodes a patch built from maps, strings and slices, which
// cannot fail.
func mustJSON(v any) []byte {
	b, err := json.Marshal(v)
	if err != nil {
		panic(fmt.Sprintf("testenv: encode a patch: %v", err))
	}
	return b
}
