package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"

	"github.com/kcmlab/kcm/kube"
)

// errUnknownResource: no served resource matches the name given.
var errUnknownResource = errors.New("unknown resource")

// builtinNames are the names kcm knows without asking the server: kubectl's
// short names, singulars and plurals of the built-ins kcm's controllers use.
var builtinNames = func() map[string]kube.Resource {
	m := map[string]kube.Resource{}
	for _, b := range []struct {
		res   kube.Resource
		names []string
	}{
		{kube.Pods, []string{"po", "pod"}},
		{kube.ReplicaSets, []string{"rs", "replicaset"}},
		{kube.Deployments, []string{"deploy", "deployment"}},
		{kube.Namespaces, []string{"ns", "namespace"}},
		{kube.ConfigMaps, []string{"cm", "configmap"}},
		{kube.ServiceAccounts, []string{"sa", "serviceaccount"}},
		{kube.Leases, []string{"lease"}},
		{kube.Nodes, []string{"no", "node"}},
		{kube.Events, []string{"ev", "event"}},
		{kube.Secrets, []string{"secret"}},
		{kube.CRDs, []string{"crd", "crds", "customresourcedefinition"}},
	} {
		m[b.res.Resource] = b.res
		for _, n := range b.names {
			m[n] = b.res
		}
	}
	return m
}()

// resolveResource finds the resource a user means by name: a built-in
// name, else whatever discovery finds in core v1 and in the preferred
// version of every group the server lists at /apis.
func resolveResource(ctx context.Context, c *kube.Client, name string) (kube.Resource, error) {
	name = strings.ToLower(strings.TrimSpace(name))
	if r, ok := builtinNames[name]; ok {
		return r, nil
	}
	served, err := discoverAll(ctx, c)
	if err != nil {
		return kube.Resource{}, err
	}
	return matchResource(name, served)
}

// matchResource picks the first of served (core first) whose plural,
// singular (its kind in lower case), or "plural.group" is name.
func matchResource(name string, served []kube.Resource) (kube.Resource, error) {
	for _, r := range served {
		kind := strings.ToLower(r.Kind)
		if name == r.Resource || name == kind || (r.Group != "" && (name == r.Resource+"."+r.Group || name == kind+"."+r.Group)) {
			return r, nil
		}
	}
	return kube.Resource{}, fmt.Errorf("%w %q: not served by this cluster (kubectl api-resources lists the names)", errUnknownResource, name)
}

// apiGroupList is the part of /apis that discovery needs.
type apiGroupList struct {
	Groups []struct {
		Name             string `json:"name"`
		PreferredVersion struct {
			GroupVersion string `json:"groupVersion"`
		} `json:"preferredVersion"`
	} `json:"groups"`
}

// discoverAll lists the resources of core v1 and of each group's preferred
// version. A group that cannot be read (an aggregated API that is down) is
// skipped; core v1 and /apis must answer.
func discoverAll(ctx context.Context, c *kube.Client) ([]kube.Resource, error) {
	all, err := c.DiscoverResources(ctx, "v1")
	if err != nil {
		return nil, err
	}
	data, err := c.RawGet(ctx, "/apis")
	if err != nil {
		return nil, fmt.Errorf("discover groups: %w", err)
	}
	var groups apiGroupList
	if err := json.Unmarshal(data, &groups); err != nil {
		return nil, fmt.Errorf("discover groups: %w", err)
	}
	for _, g := range groups.Groups {
		rs, err := c.DiscoverResources(ctx, g.PreferredVersion.GroupVersion)
		if err != nil {
			continue
		}
		all = append(all, rs...)
	}
	return all, nil
}
