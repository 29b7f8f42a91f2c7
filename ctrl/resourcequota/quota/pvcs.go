package quota

import (
	"fmt"
	"slices"
	"strings"

	"github.com/kcmlab/kcm/kube/api"
	"github.com/kcmlab/kcm/kube/api/resource"
)

// pvcsResource is core/v1 persistentvolumeclaims.
var pvcsResource = GroupResource{Resource: "persistentvolumeclaims"}

// The claim evaluator's names: the count, the storage requested, and both
// per storage class as <class>.storageclass.storage.k8s.io/<name>.
const (
	pvcCountName        = "count/persistentvolumeclaims"
	pvcName             = "persistentvolumeclaims"
	requestsStorageName = "requests.storage"
	storageClassSuffix  = ".storageclass.storage.k8s.io/"
	// betaStorageClassAnnotation names a claim's class before, and over,
	// spec.storageClassName.
	betaStorageClassAnnotation = "volume.beta.kubernetes.io/storage-class"
)

type pvcEvaluator struct{ pvcs PVCLister }

// NewPVCEvaluator returns the evaluator of PersistentVolumeClaims: the
// count (persistentvolumeclaims, count/persistentvolumeclaims), the
// storage requested (requests.storage: the request, or the allocated
// storage when larger, rounded up to a whole byte), both per storage class,
// and the VolumeAttributesClass scope (Kubernetes' evaluator/core
// persistent_volume_claims.go, VolumeAttributesClass on as in 1.37).
func NewPVCEvaluator(pvcs PVCLister) Evaluator { return &pvcEvaluator{pvcs: pvcs} }

func (p *pvcEvaluator) GroupResource() GroupResource { return pvcsResource }

// MatchingResources keeps input order, as upstream.
func (p *pvcEvaluator) MatchingResources(names []string) []string {
	var out []string
	for _, n := range names {
		switch {
		case n == pvcCountName, n == pvcName, n == requestsStorageName,
			strings.HasSuffix(n, storageClassSuffix+pvcName), strings.HasSuffix(n, storageClassSuffix+requestsStorageName):
			out = append(out, n)
		}
	}
	return out
}

func (p *pvcEvaluator) Usage(obj any) (resource.List, error) {
	pvc, ok := obj.(*api.PersistentVolumeClaim)
	if !ok {
		return nil, fmt.Errorf("claim evaluator: expected *api.PersistentVolumeClaim, got %T", obj)
	}
	return pvcUsage(pvc)
}

func (p *pvcEvaluator) UsageStats(opts UsageStatsOptions) (resource.List, error) {
	pvcs, err := p.pvcs(opts.Namespace)
	if err != nil {
		return nil, listError(pvcsResource, err)
	}
	return usageStats(opts, pvcs, pvcMatchesScope, pvcUsage)
}

// storageClass is the claim's class: the beta annotation when present,
// else spec.storageClassName (GetPersistentVolumeClaimClass).
func storageClass(pvc *api.PersistentVolumeClaim) string {
	if c, ok := pvc.Annotations[betaStorageClassAnnotation]; ok {
		return c
	}
	if pvc.Spec.StorageClassName != nil {
		return *pvc.Spec.StorageClassName
	}
	return ""
}

func pvcUsage(pvc *api.PersistentVolumeClaim) (resource.List, error) {
	one := resource.NewQuantity(1, resource.DecimalSI)
	u := resource.List{pvcName: one, pvcCountName: one}
	class := storageClass(pvc)
	if class != "" {
		u[class+storageClassSuffix+pvcName] = one
	}
	storage, ok, err := storageUsage(pvc)
	if err != nil {
		return nil, fmt.Errorf("claim %s/%s: %w", pvc.Namespace, pvc.Name, err)
	}
	if ok {
		u[requestsStorageName] = storage
		if class != "" {
			u[class+storageClassSuffix+requestsStorageName] = storage
		}
	}
	return u, nil
}

// storageUsage is the storage a claim counts for: its request, or, when
// the status allocated more (an expansion), the allocation; rounded up to
// an integer. None when the claim requests no storage.
func storageUsage(pvc *api.PersistentVolumeClaim) (resource.Quantity, bool, error) {
	s, ok := pvc.Spec.Resources.Requests["storage"]
	if !ok {
		return resource.Quantity{}, false, nil
	}
	req, err := resource.Parse(s)
	if err != nil {
		return resource.Quantity{}, false, fmt.Errorf("storage request: %w", err)
	}
	result, _ := req.RoundUp(0)
	if a, ok := pvc.Status.AllocatedResources["storage"]; ok {
		alloc, err := resource.Parse(a)
		if err != nil {
			return resource.Quantity{}, false, fmt.Errorf("allocated storage: %w", err)
		}
		if alloc.Cmp(result) > 0 {
			result, _ = alloc.RoundUp(0)
		}
	}
	return result, true, nil
}

// attributesClasses are the VolumeAttributesClass names a claim refers
// to: asked for, current, and the target of a modification under way.
func attributesClasses(pvc *api.PersistentVolumeClaim) []string {
	var out []string
	add := func(n string) {
		if n != "" && !slices.Contains(out, n) {
			out = append(out, n)
		}
	}
	if n := pvc.Spec.VolumeAttributesClassName; n != nil {
		add(*n)
	}
	if n := pvc.Status.CurrentVolumeAttributesClassName; n != nil {
		add(*n)
	}
	if m := pvc.Status.ModifyVolumeStatus; m != nil {
		add(m.TargetVolumeAttributesClassName)
	}
	return out
}

// pvcMatchesScope: only the VolumeAttributesClass scope selects claims;
// Exists matches a claim that refers to any class, the other operators
// match the class names as a label selector.
func pvcMatchesScope(req api.ScopedResourceSelectorRequirement, pvc *api.PersistentVolumeClaim) (bool, error) {
	if req.ScopeName != api.ResourceQuotaScopeVolumeAttributesClass {
		return false, nil
	}
	classes := attributesClasses(pvc)
	if req.Operator == api.ScopeSelectorOpExists {
		return len(classes) != 0, nil
	}
	return matchesValues(req, classes)
}
