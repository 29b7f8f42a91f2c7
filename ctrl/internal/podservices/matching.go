package podservices

import (
	"github.com/kcmlab/kcm/informer"
	"github.com/kcmlab/kcm/kube/labels"
)

// Matching returns the keys ("namespace/name") of the Services in ns whose
// selector matches podLabels (GetPodServiceMemberships); a Service without
// a selector matches nothing, an empty one everything.
func Matching(services informer.ServiceLister, ns string, podLabels map[string]string) map[string]bool {
	keys := map[string]bool{}
	for _, s := range services.Services(ns).List(labels.Everything()) {
		if s.Spec.Selector == nil {
			continue
		}
		if labels.SelectorFromSet(s.Spec.Selector).Matches(podLabels) {
			keys[s.Key()] = true
		}
	}
	return keys
}
