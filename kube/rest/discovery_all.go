package rest

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"sort"
	"strings"

	"github.com/kcmlab/kcm/kube/api"
	"github.com/kcmlab/kcm/kube/internal/jsonx"
)

// APIResource is a resource the server serves, with the verbs it accepts
// (client-go: metav1.APIResource). The garbage collector keeps the resources
// that support list, watch and delete; the namespace controller those that
// support list and delete (and deletecollection where it can).
type APIResource struct {
	Resource
	Verbs []string
}

// Supports reports whether every verb is served.
func (r APIResource) Supports(verbs ...string) bool {
	for _, v := range verbs {
		if !slices.Contains(r.Verbs, v) {
			return false
		}
	}
	return true
}

// ErrGroupDiscovery is wrapped by the error of a discovery that reached the
// server but could not read some group versions (an aggregated API whose
// backend is down is the usual case). The resources of the groups that did
// answer are still returned beside it: callers act on what they know and
// report the rest, as client-go's ErrGroupDiscoveryFailed lets them.
var ErrGroupDiscovery = errors.New("unable to retrieve the complete list of server APIs")

// GroupDiscoveryError names each group version that failed and why.
type GroupDiscoveryError struct {
	Groups map[string]error // "metrics.k8s.io/v1beta1" → its error
}

func (e *GroupDiscoveryError) Error() string {
	gvs := make([]string, 0, len(e.Groups))
	for gv := range e.Groups {
		gvs = append(gvs, gv)
	}
	sort.Strings(gvs)
	parts := make([]string, len(gvs))
	for i, gv := range gvs {
		parts[i] = fmt.Sprintf("%s: %v", gv, e.Groups[gv])
	}
	return fmt.Sprintf("%v: %s", ErrGroupDiscovery, strings.Join(parts, "; "))
}

func (e *GroupDiscoveryError) Unwrap() error { return ErrGroupDiscovery }

// apiGroupList is the part of /apis that discovery reads.
type apiGroupList struct {
	Groups []struct {
		Name             string `json:"name"`
		PreferredVersion struct {
			GroupVersion string `json:"groupVersion"`
		} `json:"preferredVersion"`
	} `json:"groups"`
}

// ServerPreferredResources lists the resources of core v1 and of every API
// group's preferred version, subresources left out (client-go:
// discovery.ServerPreferredResources). Core v1 and /apis must answer; a group
// version that fails is named in a *GroupDiscoveryError (errors.Is
// ErrGroupDiscovery) returned together with everything else that was found.
func (c *Client) ServerPreferredResources(ctx context.Context) ([]APIResource, error) {
	all, err := c.discoverGroupVersion(ctx, "v1")
	if err != nil {
		return nil, err
	}
	data, err := c.RawGet(ctx, "/apis")
	if err != nil {
		return nil, fmt.Errorf("discover groups: %w", err)
	}
	var groups apiGroupList
	if err := jsonx.Unmarshal(data, &groups); err != nil {
		return nil, fmt.Errorf("%w: discover groups: %v", api.ErrDecode, err)
	}
	failed := map[string]error{}
	for _, g := range groups.Groups {
		gv := g.PreferredVersion.GroupVersion
		rs, err := c.discoverGroupVersion(ctx, gv)
		if err != nil {
			if ctx.Err() != nil {
				return nil, ctx.Err()
			}
			failed[gv] = err
			continue
		}
		all = append(all, rs...)
	}
	if len(failed) > 0 {
		return all, &GroupDiscoveryError{Groups: failed}
	}
	return all, nil
}

// discoverGroupVersion reads one APIResourceList ("v1" for the core group).
func (c *Client) discoverGroupVersion(ctx context.Context, groupVersion string) ([]APIResource, error) {
	path := "/apis/" + groupVersion
	group, version, found := strings.Cut(groupVersion, "/")
	if !found {
		path, group, version = "/api/"+groupVersion, "", groupVersion
	}
	data, err := c.RawGet(ctx, path)
	if err != nil {
		return nil, fmt.Errorf("discover %s: %w", groupVersion, err)
	}
	var list apiResourceList
	if err := jsonx.Unmarshal(data, &list); err != nil {
		return nil, fmt.Errorf("%w: discover %s: %v", api.ErrDecode, groupVersion, err)
	}
	var out []APIResource
	for _, r := range list.Resources {
		if strings.Contains(r.Name, "/") {
			continue
		}
		out = append(out, APIResource{
			Resource: Resource{Group: group, Version: version, Resource: r.Name, Kind: r.Kind, Namespaced: r.Namespaced},
			Verbs:    r.Verbs,
		})
	}
	return out, nil
}
