package api

// This file holds a pod's inter-pod affinity (core/v1 Affinity's
// podAffinity and podAntiAffinity): the terms that attract a pod to, or
// repel it from, the nodes of other pods. Resource quota reads it for the
// CrossNamespacePodAffinity scope (a term naming namespaces or a
// namespace selector). Node affinity is not modelled.

// Affinity is a pod's spec.affinity.
type Affinity struct {
	PodAffinity     *PodAffinity     `json:"podAffinity,omitempty" pb:"2"`
	PodAntiAffinity *PodAntiAffinity `json:"podAntiAffinity,omitempty" pb:"3"`
}

// PodAffinity: schedule the pod near pods matching the terms.
type PodAffinity struct {
	RequiredDuringSchedulingIgnoredDuringExecution  []PodAffinityTerm         `json:"requiredDuringSchedulingIgnoredDuringExecution,omitempty" pb:"1"`
	PreferredDuringSchedulingIgnoredDuringExecution []WeightedPodAffinityTerm `json:"preferredDuringSchedulingIgnoredDuringExecution,omitempty" pb:"2"`
}

// PodAntiAffinity: schedule the pod away from pods matching the terms.
type PodAntiAffinity struct {
	RequiredDuringSchedulingIgnoredDuringExecution  []PodAffinityTerm         `json:"requiredDuringSchedulingIgnoredDuringExecution,omitempty" pb:"1"`
	PreferredDuringSchedulingIgnoredDuringExecution []WeightedPodAffinityTerm `json:"preferredDuringSchedulingIgnoredDuringExecution,omitempty" pb:"2"`
}

// PodAffinityTerm selects pods (LabelSelector) in the pod's own namespace,
// or in Namespaces and the namespaces NamespaceSelector selects, and the
// topology domain (TopologyKey) they define.
type PodAffinityTerm struct {
	LabelSelector     *LabelSelector `json:"labelSelector,omitempty" pb:"1"`
	Namespaces        []string       `json:"namespaces,omitempty" pb:"2"`
	TopologyKey       string         `json:"topologyKey" pb:"3"`
	NamespaceSelector *LabelSelector `json:"namespaceSelector,omitempty" pb:"4"`
	MatchLabelKeys    []string       `json:"matchLabelKeys,omitempty" pb:"5"`
	MismatchLabelKeys []string       `json:"mismatchLabelKeys,omitempty" pb:"6"`
}

// WeightedPodAffinityTerm is a preferred term and its weight (1-100).
type WeightedPodAffinityTerm struct {
	Weight          int32           `json:"weight" pb:"1"`
	PodAffinityTerm PodAffinityTerm `json:"podAffinityTerm" pb:"2"`
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
