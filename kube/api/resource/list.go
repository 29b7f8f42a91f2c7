package resource

import (
	"fmt"
	"maps"
	"slices"

	"github.com/kcmlab/kcm/kube/api"
)

// List is a core/v1 ResourceList with its quantities parsed: resource name
// ("cpu", "requests.memory", "count/deployments.apps") to quantity.
type List map[string]Quantity

// ParseList parses every quantity of l. The error names the first
// resource, in name order, whose quantity does not parse, and wraps
// ErrInvalidQuantity. A nil l gives a nil List.
func ParseList(l api.ResourceList) (List, error) {
	if l == nil {
		return nil, nil
	}
	out := make(List, len(l))
	for _, name := range slices.Sorted(maps.Keys(l)) {
		q, err := Parse(l[name])
		if err != nil {
			return nil, fmt.Errorf("resource %q: %w", name, err)
		}
		out[name] = q
	}
	return out, nil
}

// Strings returns l with every quantity as its String. A nil l gives a nil
// ResourceList.
func (l List) Strings() api.ResourceList {
	if l == nil {
		return nil
	}
	out := make(api.ResourceList, len(l))
	for name, q := range l {
		out[name] = q.String()
	}
	return out
}
