package statefulset

import (
	"encoding/json"
	"fmt"

	"github.com/rs/zerolog"

	"github.com/kcmlab/kcm/ctrl/controllerref"
	"github.com/kcmlab/kcm/kube/api"
	"github.com/kcmlab/kcm/kube/api/decode"
)

// The claims of a StatefulSet's pods: each volumeClaimTemplate gives each
// pod a PersistentVolumeClaim <claim>-<set>-<ordinal>, created before the
// pod and kept when the pod goes. The set's
// persistentVolumeClaimRetentionPolicy (feature gate
// StatefulSetAutoDeletePVC, GA since Kubernetes 1.32) decides whether the
// garbage collector may delete a claim, through the claim's
// ownerReferences, which the controller keeps in line with the policy:
//
//	whenScaled  whenDeleted  owner of the claim
//	Retain      Retain       none of ours
//	Retain      Delete       the set
//	Delete      Retain       the pod, once the pod is scaled away (ordinal out of range)
//	Delete      Delete       the set; the pod instead, once the pod is scaled away
//
// A claim with a reference to our set or pod of another UID (a stale
// reference, left by an earlier set or pod of the same name) or with
// another controller is not touched, except that our own references are
// removed from a claim another controller owns.

// gvk is the apiVersion and kind an owner reference names.
type gvk struct{ apiVersion, kind string }

var (
	setGVK = gvk{"apps/v1", "StatefulSet"}
	podGVK = gvk{"v1", "Pod"}
)

// getPersistentVolumeClaimName is the name of the claim made from the
// template claim for the pod with this ordinal: <claim>-<set>-<ordinal>.
func getPersistentVolumeClaimName(set *api.StatefulSet, claim *api.PersistentVolumeClaim, ordinal int) string {
	return fmt.Sprintf("%s-%s-%d", claim.Name, set.Name, ordinal)
}

// getPersistentVolumeClaimRetentionPolicy is the set's policy, Retain for
// both when it has none.
func getPersistentVolumeClaimRetentionPolicy(set *api.StatefulSet) api.StatefulSetPersistentVolumeClaimRetentionPolicy {
	if p := set.Spec.PersistentVolumeClaimRetentionPolicy; p != nil {
		return *p
	}
	return api.StatefulSetPersistentVolumeClaimRetentionPolicy{
		WhenDeleted: api.RetainPersistentVolumeClaimRetentionPolicyType,
		WhenScaled:  api.RetainPersistentVolumeClaimRetentionPolicyType,
	}
}

// getPersistentVolumeClaims returns the claims pod needs, one per
// volumeClaimTemplate in the templates' order (Kubernetes'
// getPersistentVolumeClaims, a map by template name). Each is the
// template as the set was read — metadata, spec and fields kcm does not
// model — named <claim>-<set>-<ordinal> in the set's namespace, its
// labels the template's with the set's selector matchLabels written over
// them (or the matchLabels alone when the template has no labels). Each
// claim's Original() is the JSON to create.
func getPersistentVolumeClaims(set *api.StatefulSet, pod *api.Pod) ([]*api.PersistentVolumeClaim, error) {
	templates := set.Spec.VolumeClaimTemplates
	if len(templates) == 0 {
		return nil, nil
	}
	spec, err := setSpec(set)
	if err != nil {
		return nil, err
	}
	var raws []json.RawMessage
	if err := json.Unmarshal(spec["volumeClaimTemplates"], &raws); err != nil || len(raws) != len(templates) {
		return nil, fmt.Errorf("%w: %s spec.volumeClaimTemplates: %d in JSON, %d typed (%v)", ErrTemplate, set.Key(), len(raws), len(templates), err)
	}
	ordinal := getOrdinal(pod)
	var matchLabels map[string]string
	if set.Spec.Selector != nil {
		matchLabels = set.Spec.Selector.MatchLabels
	}
	out := make([]*api.PersistentVolumeClaim, len(templates))
	for i := range templates {
		claim, err := members(raws[i])
		if err != nil {
			return nil, fmt.Errorf("%w: %s spec.volumeClaimTemplates[%d]: %w", ErrTemplate, set.Key(), i, err)
		}
		meta, err := members(claim["metadata"])
		if err != nil {
			return nil, fmt.Errorf("%w: %s spec.volumeClaimTemplates[%d].metadata: %w", ErrTemplate, set.Key(), i, err)
		}
		name := getPersistentVolumeClaimName(set, &templates[i], ordinal)
		meta["name"] = mustJSON(name)
		meta["namespace"] = mustJSON(set.Namespace)
		labels := templates[i].Labels
		if labels != nil {
			merged := make(map[string]string, len(labels)+len(matchLabels))
			for k, v := range labels {
				merged[k] = v
			}
			for k, v := range matchLabels {
				merged[k] = v
			}
			labels = merged
		} else {
			labels = matchLabels
		}
		if len(labels) > 0 {
			meta["labels"] = mustJSON(labels)
		} else {
			delete(meta, "labels")
		}
		claim["metadata"] = mustJSON(meta)
		claim["apiVersion"] = mustJSON("v1")
		claim["kind"] = mustJSON("PersistentVolumeClaim")
		body, err := json.Marshal(claim)
		if err != nil {
			return nil, fmt.Errorf("%w: claim %s: %w", ErrTemplate, name, err)
		}
		if out[i], err = decode.Typed[api.PersistentVolumeClaim]().Decode(body); err != nil {
			return nil, fmt.Errorf("%w: claim %s: %w", ErrTemplate, name, err)
		}
	}
	return out, nil
}

// matchesRef reports whether ref names the object name of kind k,
// whatever its UID.
func matchesRef(ref *api.OwnerReference, name string, k gvk) bool {
	return ref.APIVersion == k.apiVersion && ref.Kind == k.kind && ref.Name == name
}

// hasOwnerRef reports whether target has a reference to the owner's UID,
// controller or not.
func hasOwnerRef(target, owner *api.ObjectMeta) bool {
	for _, r := range target.OwnerReferences {
		if r.UID == owner.UID {
			return true
		}
	}
	return false
}

// hasStaleOwnerRef reports whether the claim's first reference to an
// object named as owner, of kind k, has another UID: it was written for
// an earlier object of that name.
func hasStaleOwnerRef(claim *api.PersistentVolumeClaim, owner *api.ObjectMeta, k gvk) bool {
	for i := range claim.OwnerReferences {
		if matchesRef(&claim.OwnerReferences[i], owner.Name, k) {
			return claim.OwnerReferences[i].UID != owner.UID
		}
	}
	return false
}

// hasUnexpectedController reports whether, under a policy that deletes
// anything, the claim is controlled by someone other than set or pod, or
// refers to a set or pod of their name with another UID (orphaned by
// mistake: left to the garbage collector). Under Retain/Retain another
// controller is no concern.
func hasUnexpectedController(claim *api.PersistentVolumeClaim, set *api.StatefulSet, pod *api.Pod) bool {
	p := getPersistentVolumeClaimRetentionPolicy(set)
	if p.WhenScaled == api.RetainPersistentVolumeClaimRetentionPolicyType && p.WhenDeleted == api.RetainPersistentVolumeClaimRetentionPolicyType {
		return false
	}
	for i := range claim.OwnerReferences {
		r := &claim.OwnerReferences[i]
		switch {
		case matchesRef(r, set.Name, setGVK):
			if r.UID != set.UID {
				return true
			}
		case matchesRef(r, pod.Name, podGVK):
			if r.UID != pod.UID {
				return true
			}
		case r.IsController():
			return true
		}
	}
	return false
}

// hasNonControllerOwner reports whether set or pod owns the claim by a
// reference that is not a controller reference.
func hasNonControllerOwner(claim *api.PersistentVolumeClaim, set *api.StatefulSet, pod *api.Pod) bool {
	for _, r := range claim.OwnerReferences {
		if (r.UID == set.UID || r.UID == pod.UID) && !r.IsController() {
			return true
		}
	}
	return false
}

// isClaimOwnerUpToDate reports whether the claim's ownerReferences are as
// set's retention policy wants them for pod (Kubernetes'
// isClaimOwnerUpToDate). A claim with a stale reference is left alone
// (true); one with an unexpected controller is up to date unless it also
// refers to our set or pod, which must then be removed; a non-controller
// reference of ours must become a controller one.
func isClaimOwnerUpToDate(log zerolog.Logger, claim *api.PersistentVolumeClaim, set *api.StatefulSet, pod *api.Pod) bool {
	if hasStaleOwnerRef(claim, &set.ObjectMeta, setGVK) || hasStaleOwnerRef(claim, &pod.ObjectMeta, podGVK) {
		return true
	}
	if hasUnexpectedController(claim, set, pod) {
		return !hasOwnerRef(&claim.ObjectMeta, &set.ObjectMeta) && !hasOwnerRef(&claim.ObjectMeta, &pod.ObjectMeta)
	}
	if hasNonControllerOwner(claim, set, pod) {
		return false
	}
	setRef := hasOwnerRef(&claim.ObjectMeta, &set.ObjectMeta)
	podRef := hasOwnerRef(&claim.ObjectMeta, &pod.ObjectMeta)
	scaledDown := !podInOrdinalRange(pod, set)
	wantSet, wantPod, known := wantedOwners(set, scaledDown)
	if !known {
		log.Error().Str("statefulset", set.Key()).Interface("policy", set.Spec.PersistentVolumeClaimRetentionPolicy).
			Msg("unknown PersistentVolumeClaim retention policy, treating as Retain")
	}
	return setRef == wantSet && podRef == wantPod
}

// wantedOwners says which of set and pod the retention policy wants as
// the claim's owner; an unknown policy is Retain/Retain (known false).
func wantedOwners(set *api.StatefulSet, podScaledDown bool) (setOwns, podOwns, known bool) {
	const retain, del = api.RetainPersistentVolumeClaimRetentionPolicyType, api.DeletePersistentVolumeClaimRetentionPolicyType
	p := getPersistentVolumeClaimRetentionPolicy(set)
	switch {
	case p.WhenScaled == retain && p.WhenDeleted == retain:
		return false, false, true
	case p.WhenScaled == retain && p.WhenDeleted == del:
		return true, false, true
	case p.WhenScaled == del && p.WhenDeleted == retain:
		return false, podScaledDown, true
	case p.WhenScaled == del && p.WhenDeleted == del:
		return !podScaledDown, podScaledDown, true
	}
	return false, false, false
}

// updateClaimOwnerRefForSetAndPod rewrites the claim's ownerReferences
// for set's retention policy (Kubernetes' updateClaimOwnerRefForSetAndPod):
// every reference naming our set or pod (any UID) is removed; then,
// unless another controller owns the claim, the wanted owners are added
// as controller references. Other references stay, in their order.
func updateClaimOwnerRefForSetAndPod(log zerolog.Logger, claim *api.PersistentVolumeClaim, set *api.StatefulSet, pod *api.Pod) {
	unexpected := hasUnexpectedController(claim, set, pod)
	refs := []api.OwnerReference{}
	for _, r := range claim.OwnerReferences {
		if !matchesRef(&r, set.Name, setGVK) && !matchesRef(&r, pod.Name, podGVK) {
			refs = append(refs, r)
		}
	}
	if !unexpected {
		wantSet, wantPod, known := wantedOwners(set, !podInOrdinalRange(pod, set))
		if !known {
			log.Error().Str("statefulset", set.Key()).Interface("policy", set.Spec.PersistentVolumeClaimRetentionPolicy).
				Msg("unknown PersistentVolumeClaim retention policy, treating as Retain")
		}
		// Upstream adds the pod before the set; the policy never wants both.
		if wantPod {
			refs = addControllerRef(refs, &pod.ObjectMeta, podGVK)
		}
		if wantSet {
			refs = addControllerRef(refs, &set.ObjectMeta, setGVK)
		}
	}
	claim.OwnerReferences = refs
}

// addControllerRef appends a controller reference to owner unless refs
// already refer to its UID.
func addControllerRef(refs []api.OwnerReference, owner *api.ObjectMeta, k gvk) []api.OwnerReference {
	for _, r := range refs {
		if r.UID == owner.UID {
			return refs
		}
	}
	return append(refs, controllerref.NewControllerRef(owner, k.apiVersion, k.kind))
}
