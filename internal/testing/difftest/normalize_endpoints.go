package difftest

import (
	"encoding/json"
	"fmt"
	"sort"
)

// triggerTimeAnnotation is the annotation the endpoints and endpointslice
// controllers stamp with the time of the last pod or Service change they
// saw (v1.EndpointsLastChangeTriggerTime): a wall-clock value.
const triggerTimeAnnotation = "endpoints.kubernetes.io/last-change-trigger-time"

// normalizeEndpointsObject removes from an Endpoints or EndpointSlice
// object (already through normalizeValue) what differs between two runs of
// the same behaviour on a cluster of kwok nodes:
//
//   - the pod IPs, which kwok hands out from each node's range in the
//     order it happens to process the pods: an address that points at a
//     pod becomes "<ip:pod NAME>" (an address without a targetRef, a
//     user's, stays);
//   - the targetRef's uid;
//   - the value of the last-change-trigger-time annotation.
//
// Then, because the controllers order what they write by the IPs —
// Endpoints addresses by IP and UID, subsets by a hash of the whole
// subset, addresses and UIDs included (Kubernetes' SortSubsets), slice
// endpoints by the order of the pod list — the addresses of each subset,
// the subsets, and the endpoints of each slice are sorted by their
// normalised text. (That kcm's order is Kubernetes' for the same IPs and
// UIDs is ctrl/endpoint's RepackSubsets tests' business.) The grouping into subsets and
// slices, each address's ready/not-ready list and conditions, nodeName,
// zone, hostname and ports all stay.
func normalizeEndpointsObject(o Object) {
	kind, _ := o["kind"].(string)
	if kind != "Endpoints" && kind != "EndpointSlice" {
		return
	}
	if meta, ok := o["metadata"].(Object); ok {
		if ann, ok := meta["annotations"].(Object); ok {
			if _, ok := ann[triggerTimeAnnotation]; ok {
				ann[triggerTimeAnnotation] = timePlaceholder
			}
		}
	}
	if kind == "Endpoints" {
		subsets, _ := o["subsets"].([]any)
		for _, ss := range subsets {
			m, _ := ss.(Object)
			for _, list := range []string{"addresses", "notReadyAddresses"} {
				addrs, _ := m[list].([]any)
				for _, a := range addrs {
					if am, ok := a.(Object); ok {
						if name := targetRefName(am); name != "" {
							am["ip"] = "<ip:pod " + name + ">"
						}
					}
				}
				sortByText(addrs)
			}
		}
		sortByText(subsets)
		return
	}
	eps, _ := o["endpoints"].([]any)
	for _, e := range eps {
		em, _ := e.(Object)
		if name := targetRefName(em); name != "" {
			if addrs, ok := em["addresses"].([]any); ok {
				for i := range addrs {
					addrs[i] = "<ip:pod " + name + ">"
				}
			}
		}
	}
	sortByText(eps)
}

// targetRefName returns the name of the pod an address points at, and
// drops the reference's uid; "" when it points at none.
func targetRefName(m Object) string {
	ref, ok := m["targetRef"].(Object)
	if !ok {
		return ""
	}
	delete(ref, "uid")
	if kind, _ := ref["kind"].(string); kind != "Pod" {
		return ""
	}
	name, _ := ref["name"].(string)
	return name
}

// sortByText sorts decoded values by their rendered form.
func sortByText(list []any) {
	sort.SliceStable(list, func(i, j int) bool { return renderValue(list[i]) < renderValue(list[j]) })
}

// renderValue renders a decoded value as JSON, map keys sorted.
func renderValue(v any) string {
	b, err := json.Marshal(v)
	if err != nil {
		return fmt.Sprint(v)
	}
	return string(b)
}
