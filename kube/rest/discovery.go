package rest

import (
	"context"
	"fmt"
	"strings"

	"github.com/kcmlab/kcm/kube/api"
	"github.com/kcmlab/kcm/kube/internal/jsonx"
)

// apiResource is one entry of an APIResourceList.
type apiResource struct {
	Name       string   `json:"name"`
	Namespaced bool     `json:"namespaced"`
	Kind       string   `json:"kind"`
	Verbs      []string `json:"verbs"`
}

type apiResourceList struct {
	GroupVersion string        `json:"groupVersion"`
	Resources    []apiResource `json:"resources"`
}

// DiscoverResources lists the resources the server serves in one group
// version ("v1" for the core group, "apps/v1", "example.com/v1alpha1").
// Subresources (pods/status) are left out.
func (c *Client) DiscoverResources(ctx context.Context, groupVersion string) ([]Resource, error) {
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
	var out []Resource
	for _, r := range list.Resources {
		if strings.Contains(r.Name, "/") {
			continue
		}
		out = append(out, Resource{Group: group, Version: version, Resource: r.Name, Kind: r.Kind, Namespaced: r.Namespaced})
	}
	return out, nil
}

// ResourceForKind finds the resource serving kind in groupVersion, e.g.
// ("stable.example.com/v1", "CronTab") for a CRD.
func (c *Client) ResourceForKind(ctx context.Context, groupVersion, kind string) (Resource, error) {
	rs, err := c.DiscoverResources(ctx, groupVersion)
	if err != nil {
		return Resource{}, err
	}
	for _, r := range rs {
		if r.Kind == kind {
			return r, nil
		}
	}
	return Resource{}, fmt.Errorf("discover %s: kind %q: %w", groupVersion, kind, ErrNotFound)
}

// ServerVersion returns the server's gitVersion, e.g. "v1.34.4".
func (c *Client) ServerVersion(ctx context.Context) (string, error) {
	data, err := c.RawGet(ctx, "/version")
	if err != nil {
		return "", err
	}
	var v struct {
		GitVersion string `json:"gitVersion"`
	}
	if err := jsonx.Unmarshal(data, &v); err != nil {
		return "", fmt.Errorf("%w: /version: %v", api.ErrDecode, err)
	}
	return v.GitVersion, nil
}
