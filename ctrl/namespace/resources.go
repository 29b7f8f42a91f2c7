package namespace

import (
	"cmp"
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/kcmlab/kcm/kube/rest"
)

// ErrGroupVersion is wrapped by the error for a group version from
// discovery that does not parse (more than one "/").
var ErrGroupVersion = errors.New("unexpected GroupVersion string")

// target is one resource type whose objects a namespace's deletion
// removes, with what discovery says it supports.
type target struct {
	res rest.Resource
	// list: the objects can be listed (to delete them one by one and to
	// see what is left); deleteCollection: all of a namespace's objects
	// go with one request.
	list, deleteCollection bool
}

// pods is the resource deleted first and whose grace periods give the
// estimate of how long the rest will take.
var pods = rest.Resource{Version: "v1", Resource: "pods"}

// isPods reports whether r is core/v1 pods.
func isPods(r rest.Resource) bool {
	return r.Group == pods.Group && r.Version == pods.Version && r.Resource == pods.Resource
}

// targets picks, from discovery's resources, the namespaced ones that
// support delete (Kubernetes' FilteredBy(SupportsAllVerbs{"delete"}) over
// ServerPreferredNamespacedResources), one per group, version and
// resource, in a stable order with pods first.
//
// Every group version of the deletable resources must parse, as
// Kubernetes' discovery.GroupVersionResources requires: one that does not
// is an ErrGroupVersion and no target at all is returned, so nothing is
// deleted until discovery is sound again — what kube-controller-manager
// v1.37 does.
func targets(resources []rest.APIResource) ([]target, error) {
	seen := map[rest.Resource]bool{}
	var out []target
	for _, r := range resources {
		if !r.Namespaced || !r.Supports("delete") {
			continue
		}
		if err := parseGroupVersion(r.GroupVersion()); err != nil {
			return nil, err
		}
		key := rest.Resource{Group: r.Group, Version: r.Version, Resource: r.Resource.Resource}
		if seen[key] {
			continue
		}
		seen[key] = true
		res := r.Resource
		res.Namespaced = true
		out = append(out, target{res: res, list: r.Supports("list"), deleteCollection: r.Supports("deletecollection")})
	}
	slices.SortFunc(out, func(a, b target) int {
		if pa, pb := isPods(a.res), isPods(b.res); pa != pb {
			if pa {
				return -1
			}
			return 1
		}
		return cmp.Or(cmp.Compare(a.res.Group, b.res.Group), cmp.Compare(a.res.Version, b.res.Version),
			cmp.Compare(a.res.Resource, b.res.Resource))
	})
	return out, nil
}

// parseGroupVersion accepts what apimachinery's schema.ParseGroupVersion
// accepts: "", "/", "version" or "group/version".
func parseGroupVersion(gv string) error {
	if strings.Count(gv, "/") > 1 {
		return fmt.Errorf("%w: %s", ErrGroupVersion, gv)
	}
	return nil
}

// gvrString prints a resource as apimachinery prints a
// GroupVersionResource ("apps/v1, Resource=replicasets", "/v1,
// Resource=pods"), which is how Kubernetes' messages name it.
func gvrString(r rest.Resource) string {
	return r.Group + "/" + r.Version + ", Resource=" + r.Resource
}
