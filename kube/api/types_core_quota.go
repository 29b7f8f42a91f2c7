package api

// This file holds core/v1 ResourceQuota: a namespace's hard limits on
// object counts and compute/storage, and the usage the resourcequota
// controller observes (status.used). Quantities stay in their wire form
// (ResourceList); package kube/api/resource parses them. Fields not
// modelled survive a read-modify-write through the object's raw JSON.

var _ Object = (*ResourceQuota)(nil)

// ResourceQuota is a core/v1 ResourceQuota.
type ResourceQuota struct {
	TypeMeta
	ObjectMeta `json:"metadata" pb:"1"`
	Spec       ResourceQuotaSpec   `json:"spec,omitempty" pb:"2"`
	Status     ResourceQuotaStatus `json:"status,omitempty" pb:"3"`
}

// ResourceQuotaSpec is what a quota limits (Hard) and which objects it
// tracks: every object of the namespace, or only those matching every
// scope in Scopes and every requirement of ScopeSelector.
type ResourceQuotaSpec struct {
	Hard          ResourceList         `json:"hard,omitempty" pb:"1"`
	Scopes        []ResourceQuotaScope `json:"scopes,omitempty" pb:"2"`
	ScopeSelector *ScopeSelector       `json:"scopeSelector,omitempty" pb:"3"`
}

// ResourceQuotaStatus is the enforced hard limits and the observed usage.
type ResourceQuotaStatus struct {
	Hard ResourceList `json:"hard,omitempty" pb:"1"`
	Used ResourceList `json:"used,omitempty" pb:"2"`
}

// ResourceQuotaScope names a set of objects a quota may be limited to.
type ResourceQuotaScope string

// The quota scopes of core/v1 (all of them concern pods).
const (
	ResourceQuotaScopeTerminating               ResourceQuotaScope = "Terminating"
	ResourceQuotaScopeNotTerminating            ResourceQuotaScope = "NotTerminating"
	ResourceQuotaScopeBestEffort                ResourceQuotaScope = "BestEffort"
	ResourceQuotaScopeNotBestEffort             ResourceQuotaScope = "NotBestEffort"
	ResourceQuotaScopePriorityClass             ResourceQuotaScope = "PriorityClass"
	ResourceQuotaScopeCrossNamespacePodAffinity ResourceQuotaScope = "CrossNamespacePodAffinity"
	ResourceQuotaScopeVolumeAttributesClass     ResourceQuotaScope = "VolumeAttributesClass"
)

// ScopeSelector is a quota's spec.scopeSelector: the scopes as
// requirements, all of which must match (ANDed).
type ScopeSelector struct {
	MatchExpressions []ScopedResourceSelectorRequirement `json:"matchExpressions,omitempty" pb:"1"`
}

// ScopeSelectorOperator relates a scope to its values.
type ScopeSelectorOperator string

// The scope selector operators.
const (
	ScopeSelectorOpIn           ScopeSelectorOperator = "In"
	ScopeSelectorOpNotIn        ScopeSelectorOperator = "NotIn"
	ScopeSelectorOpExists       ScopeSelectorOperator = "Exists"
	ScopeSelectorOpDoesNotExist ScopeSelectorOperator = "DoesNotExist"
)

// ScopedResourceSelectorRequirement is one requirement of a ScopeSelector:
// a scope name, an operator and, for In and NotIn, the values.
type ScopedResourceSelectorRequirement struct {
	ScopeName ResourceQuotaScope    `json:"scopeName" pb:"1"`
	Operator  ScopeSelectorOperator `json:"operator" pb:"2"`
	Values    []string              `json:"values,omitempty" pb:"3"`
}
