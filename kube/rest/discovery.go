package rest

import (
	"context"
	"fmt"

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
	rs, err := c.discoverGroupVersion(ctx, groupVersion)
	if err != nil {
		return nil, err
	}
	out := make([]Resource, len(rs))
	for i, r := range rs {
		out[i] = r.Resource
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
