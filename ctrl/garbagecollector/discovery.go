package garbagecollector

import (
	"errors"
	"fmt"
	"strings"
	"sync"

	"github.com/kcmlab/kcm/kube/rest"
)

// GroupResource names a resource without its version.
type GroupResource struct{ Group, Resource string }

// DefaultIgnoredResources are the resources the collector never watches
// (Kubernetes' DefaultIgnoredResources, the default of
// kube-controller-manager's GCIgnoredResources): Events, core and
// events.k8s.io, which are many, short-lived and owned by nobody.
func DefaultIgnoredResources() map[GroupResource]bool {
	return map[GroupResource]bool{{"", "events"}: true, {"events.k8s.io", "events"}: true}
}

// deletableResources keeps, of the resources discovery found, those the
// collector can watch and act on — list, watch and delete — less the
// ignored ones (Kubernetes' GetDeletableResources and the monitor filter
// of syncMonitors).
func deletableResources(all []rest.APIResource, ignored map[GroupResource]bool) map[rest.Resource]bool {
	out := map[rest.Resource]bool{}
	for _, r := range all {
		if r.Supports("delete", "list", "watch") && !ignored[GroupResource{r.Group, r.Resource.Resource}] {
			out[r.Resource] = true
		}
	}
	return out
}

// ErrUnknownKind: no resource the server serves has the kind an
// ownerReference or node names (Kubernetes' restMappingError). A custom
// resource installed since the last discovery is the usual cause; the
// item is retried, and the next discovery resolves it.
var ErrUnknownKind = errors.New("unable to get REST mapping")

// groupKind is a kind within an API group.
type groupKind struct{ group, kind string }

// mapper resolves an apiVersion and kind to the resource that serves
// them (Kubernetes' RESTMapper), from the last discovery. It maps by
// group and kind to the group's preferred version, which names the same
// objects under every version the group serves. Safe for concurrent use.
type mapper struct {
	mu     sync.RWMutex
	byKind map[groupKind]rest.Resource
}

// set replaces the mapping with the one of all (discovery's order; the
// first resource of a kind wins).
func (m *mapper) set(all []rest.APIResource) {
	byKind := make(map[groupKind]rest.Resource, len(all))
	for _, r := range all {
		k := groupKind{r.Group, r.Kind}
		if _, dup := byKind[k]; !dup && r.Kind != "" {
			byKind[k] = r.Resource
		}
	}
	m.mu.Lock()
	m.byKind = byKind
	m.mu.Unlock()
}

// resourceFor finds the resource of kind in apiVersion's group.
func (m *mapper) resourceFor(apiVersion, kind string) (rest.Resource, error) {
	group, _, found := strings.Cut(apiVersion, "/")
	if !found {
		group = "" // "v1": the core group
	}
	m.mu.RLock()
	r, ok := m.byKind[groupKind{group, kind}]
	m.mu.RUnlock()
	if !ok {
		return rest.Resource{}, fmt.Errorf("%w for kind %q, version %q", ErrUnknownKind, kind, apiVersion)
	}
	return r, nil
}
