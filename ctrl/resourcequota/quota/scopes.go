package quota

import (
	"fmt"

	"github.com/kcmlab/kcm/kube/api"
	"github.com/kcmlab/kcm/kube/labels"
)

// This file holds the scope selector requirements that compare a value:
// PriorityClass (pods) and VolumeAttributesClass (claims) with In, NotIn,
// Exists or DoesNotExist, matched as a label selector over the one label
// <scope name>=<value> (Kubernetes' ScopedResourceSelectorRequirementsAsSelector).

// scopeRequirement compiles req into a label requirement on the key
// req.ScopeName.
func scopeRequirement(req api.ScopedResourceSelectorRequirement) (labels.Requirement, error) {
	var op labels.SelectorOperator
	switch req.Operator {
	case api.ScopeSelectorOpIn:
		op = labels.SelectorOpIn
	case api.ScopeSelectorOpNotIn:
		op = labels.SelectorOpNotIn
	case api.ScopeSelectorOpExists:
		op = labels.SelectorOpExists
	case api.ScopeSelectorOpDoesNotExist:
		op = labels.SelectorOpDoesNotExist
	default:
		return labels.Requirement{}, fmt.Errorf("%q is not a valid scope selector operator", req.Operator)
	}
	r, err := labels.NewRequirement(string(req.ScopeName), op, req.Values)
	if err != nil {
		return labels.Requirement{}, fmt.Errorf("scope %s: %w", req.ScopeName, err)
	}
	return r, nil
}

// matchesValues reports whether req matches an object whose scope values
// are values (none: the label is absent; several: any one matching).
func matchesValues(req api.ScopedResourceSelectorRequirement, values []string) (bool, error) {
	r, err := scopeRequirement(req)
	if err != nil {
		return false, err
	}
	if len(values) == 0 {
		return r.Matches(nil), nil
	}
	for _, v := range values {
		if r.Matches(map[string]string{string(req.ScopeName): v}) {
			return true, nil
		}
	}
	return false, nil
}
