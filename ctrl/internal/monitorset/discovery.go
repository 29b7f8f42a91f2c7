package monitorset

import (
	"errors"
	"sort"

	"github.com/kcmlab/kcm/kube/rest"
)

// KeepFailedGroups carries into next the resources of old whose group
// version discovery could not read this time (err is, or wraps, a
// *rest.GroupDiscoveryError naming it) and that keep accepts; nil keep
// accepts every one. An aggregated API that is briefly down must not make
// a controller forget what it monitors (Kubernetes' GarbageCollector.Sync
// and the resource quota Controller.Sync, through
// discovery.GroupDiscoveryFailedErrorGroups). Any other error, or none,
// keeps nothing.
func KeepFailedGroups(next, old map[rest.Resource]bool, err error, keep func(rest.Resource) bool) {
	var gde *rest.GroupDiscoveryError
	if !errors.As(err, &gde) {
		return
	}
	for r := range old {
		if _, failed := gde.Groups[r.GroupVersion()]; failed && (keep == nil || keep(r)) {
			next[r] = true
		}
	}
}

// Diff lists, sorted by name, the resources next adds to old and those it
// removes, for the log line of a resync.
func Diff(old, next map[rest.Resource]bool) (added, removed []string) {
	for r := range next {
		if !old[r] {
			added = append(added, r.String())
		}
	}
	for r := range old {
		if !next[r] {
			removed = append(removed, r.String())
		}
	}
	sort.Strings(added)
	sort.Strings(removed)
	return added, removed
}
