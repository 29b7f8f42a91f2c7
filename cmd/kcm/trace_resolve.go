package main

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/kcmlab/kcm/kube/rest"
)

// errUnknownResource: no served resource matches the name given.
var errUnknownResource = errors.New("unknown resource")

// builtinNames are the names kcm knows without asking the server: kubectl's
// short names, singulars and plurals of the built-ins kcm's controllers use.
var builtinNames = func() map[string]rest.Resource {
	m := map[string]rest.Resource{}
	for _, b := range []struct {
		res   rest.Resource
		names []string
	}{
		{rest.Pods, []string{"po", "pod"}},
		{rest.ReplicaSets, []string{"rs", "replicaset"}},
		{rest.Deployments, []string{"deploy", "deployment"}},
		{rest.Namespaces, []string{"ns", "namespace"}},
		{rest.ConfigMaps, []string{"cm", "configmap"}},
		{rest.ServiceAccounts, []string{"sa", "serviceaccount"}},
		{rest.Leases, []string{"lease"}},
		{rest.Nodes, []string{"no", "node"}},
		{rest.Events, []string{"ev", "event"}},
		{rest.Secrets, []string{"secret"}},
		{rest.CRDs, []string{"crd", "crds", "customresourcedefinition"}},
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
func resolveResource(ctx context.Context, c *rest.Client, name string) (rest.Resource, error) {
	name = strings.ToLower(strings.TrimSpace(name))
	if r, ok := builtinNames[name]; ok {
		return r, nil
	}
	served, err := discoverAll(ctx, c)
	if err != nil {
		return rest.Resource{}, err
	}
	return matchResource(name, served)
}

// matchResource picks the first of served (core first) whose plural,
// singular (its kind in lower case), or "plural.group" is name.
func matchResource(name string, served []rest.Resource) (rest.Resource, error) {
	for _, r := range served {
		kind := strings.ToLower(r.Kind)
		if name == r.Resource || name == kind || (r.Group != "" && (name == r.Resource+"."+r.Group || name == kind+"."+r.Group)) {
			return r, nil
		}
	}
	return rest.Resource{}, fmt.Errorf("%w %q: not served by this cluster (kubectl api-resources lists the names)", errUnknownResource, name)
}

// discoverAll lists the resources of core v1 and of each group's preferred
// version. A group that cannot be read (an aggregated API that is down) is
// skipped; core v1 and /apis must answer.
func discoverAll(ctx context.Context, c *rest.Client) ([]rest.Resource, error) {
	found, err := c.ServerPreferredResources(ctx)
	if err != nil && !errors.Is(err, rest.ErrGroupDiscovery) {
		return nil, err
	}
	all := make([]rest.Resource, len(found))
	for i, r := range found {
		all[i] = r.Resource
	}
	return all, nil
}
