package api

// This file holds a pod's inter-pod affinity (core/v1 Affinity's
// podAffinity and podAntiAffinity): the terms that attract a pod to, or
// repel it from, the nodes of other pods. Resource quota reads it for the
// CrossNamespacePodAffinity scope (a term naming namespaces or a
// namespace selector). Node affinity is not modelled.

// Affinity is a pod's spec.affinity.
type Affinity struct {
	PodAffinity     *PodAffinity     `json:"podAffinity,omitempty"`
	PodAntiAffinity *PodAntiAffinity `json:"podAntiAffinity,omitempty"`
}

// PodAffinity: schedule the pod near pods matching the terms.
type PodAffinity struct {
	RequiredDuringSchedulingIgnoredDuringExecution  []PodAffinityTerm         `json:"requiredDuringSchedulingIgnoredDuringExecution,omitempty"`
	PreferredDuringSchedulingIgnoredDuringExecution []WeightedPodAffinityTerm `json:"preferredDuringSchedulingIgnoredDuringExecution,omitempty"`
}

// PodAntiAffinity: schedule the pod away from pods matching the terms.
type PodAntiAffinity struct {
	RequiredDuringSchedulingIgnoredDuringExecution  []PodAffinityTerm         `json:"requiredDuringSchedulingIgnoredDuringExecution,omitempty"`
	PreferredDuringSchedulingIgnoredDuringExecution []WeightedPodAffinityTerm `json:"preferredDuringSchedulingIgnoredDuringExecution,omitempty"`
}

// PodAffinityTerm selects pods (LabelSelector) in the pod's own namespace,
// or in Namespaces and the namespaces NamespaceSelector selects, and the
// topology domain (TopologyKey) they define.
type PodAffinityTerm struct {
	LabelSelector     *LabelSelector `json:"labelSelector,omitempty"`
	Namespaces        []string       `json:"namespaces,omitempty"`
	TopologyKey       string         `json:"topologyKey"`
	NamespaceSelector *LabelSelector `json:"namespaceSelector,omitempty"`
	MatchLabelKeys    []string       `json:"matchLabelKeys,omitempty"`
	MismatchLabelKeys []string       `json:"mismatchLabelKeys,omitempty"`
}

// WeightedPodAffinityTerm is a preferred term and its weight (1-100).
type WeightedPodAffinityTerm struct {
	Weight          int32           `json:"weight"`
	PodAffinityTerm PodAffinityTerm `json:"podAffinityTerm"`
}

// UsesCrossNamespacePodAffinity reports whether any of the pod's affinity
// or anti-affinity terms, required or preferred, names namespaces or a
// namespace selector (Kubernetes' usesCrossNamespacePodAffinity, the
// CrossNamespacePodAffinity quota scope).
func (s *PodSpec) UsesCrossNamespacePodAffinity() bool {
	if s.Affinity == nil {
		return false
	}
	cross := func(req []PodAffinityTerm, pref []WeightedPodAffinityTerm) bool {
		for i := range req {
			if len(req[i].Namespaces) != 0 || req[i].NamespaceSelector != nil {
				return true
			}
		}
		for i := range pref {
			if t := &pref[i].PodAffinityTerm; len(t.Namespaces) != 0 || t.NamespaceSelector != nil {
				return true
			}
		}
		return false
	}
	if a := s.Affinity.PodAffinity; a != nil && cross(a.RequiredDuringSchedulingIgnoredDuringExecution, a.PreferredDuringSchedulingIgnoredDuringExecution) {
		return true
	}
	if a := s.Affinity.PodAntiAffinity; a != nil && cross(a.RequiredDuringSchedulingIgnoredDuringExecution, a.PreferredDuringSchedulingIgnoredDuringExecution) {
		return true
	}
	return false
}
