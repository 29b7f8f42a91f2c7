package difftest

import "sort"

// normalizeStatefulSetPod removes from a pod that a StatefulSet owns
// (already through normalizeValue) what differs between two runs of the
// same behaviour on a cluster of kwok nodes:
//
//   - the pod IPs (status.podIP and status.podIPs), which kwok hands out
//     from the node's range in the order it happens to see the pods:
//     each becomes "<ip:pod NAME>";
//   - the order of the volumes made from the set's volumeClaimTemplates.
//     Kubernetes builds them by ranging over a Go map (updateStorage in
//     pkg/controller/statefulset/stateful_set_utils.go ranges over the map
//     getPersistentVolumeClaims returns), so with two or more claim
//     templates their order in spec.volumes is not defined in
//     kube-controller-manager itself: Go starts a map's iteration at a
//     random slot, and with two templates the reverse of the templates'
//     order is the rarer outcome (all 8 pods of four kube-controller-manager
//     runs of ClaimRetentionScenario had template order), rare enough to
//     pass many runs and fail one. The volumes with a
//     persistentVolumeClaim source are sorted by name in the positions
//     they occupy; every other volume keeps its place.
//
// Everything else stays: names, labels (controller-revision-hash, the
// pod-name and pod-index labels), hostname and subdomain, the claims each
// volume names, ownerReferences.
func normalizeStatefulSetPod(o Object) {
	if kind, _ := o["kind"].(string); kind != "Pod" || !ownedByKind(o, "StatefulSet") {
		return
	}
	meta, _ := o["metadata"].(Object)
	name, _ := meta["name"].(string)
	if status, ok := o["status"].(Object); ok {
		if _, ok := status["podIP"]; ok {
			status["podIP"] = "<ip:pod " + name + ">"
		}
		if ips, ok := status["podIPs"].([]any); ok {
			for _, ip := range ips {
				if m, ok := ip.(Object); ok {
					m["ip"] = "<ip:pod " + name + ">"
				}
			}
		}
	}
	spec, _ := o["spec"].(Object)
	vols, _ := spec["volumes"].([]any)
	var at []int
	var claimVols []any
	for i, v := range vols {
		if m, ok := v.(Object); ok && m["persistentVolumeClaim"] != nil {
			at = append(at, i)
			claimVols = append(claimVols, v)
		}
	}
	sort.SliceStable(claimVols, func(i, j int) bool { return volumeName(claimVols[i]) < volumeName(claimVols[j]) })
	for k, i := range at {
		vols[i] = claimVols[k]
	}
}

func volumeName(v any) string {
	m, _ := v.(Object)
	s, _ := m["name"].(string)
	return s
}

// ownedByKind reports whether one of the object's ownerReferences is a
// controller of the given kind.
func ownedByKind(o Object, kind string) bool {
	meta, _ := o["metadata"].(Object)
	refs, _ := meta["ownerReferences"].([]any)
	for _, r := range refs {
		m, _ := r.(Object)
		if k, _ := m["kind"].(string); k == kind && m["controller"] == true {
			return true
		}
	}
	return false
}
