package rest

import "testing"

// TestResourcePath: REST paths as kube-apiserver serves them (API concepts,
// "Resource URIs"): the core group under /api, named groups under /apis;
// namespaced resources under namespaces/{ns} unless listing across all
// namespaces; cluster-scoped ones never; subresources after the name.
func TestResourcePath(t *testing.T) {
	widgets := Resource{Group: "example.com", Version: "v1alpha1", Resource: "widgets", Kind: "Widget", Namespaced: true}
	tests := []struct {
		res      Resource
		ns, name string
		sub      []string
		want     string
	}{
		{Pods, "default", "web-0", nil, "/api/v1/namespaces/default/pods/web-0"},
		{Pods, "default", "", nil, "/api/v1/namespaces/default/pods"},
		{Pods, "", "", nil, "/api/v1/pods"},
		{Pods, "default", "web-0", []string{"status"}, "/api/v1/namespaces/default/pods/web-0/status"},
		{Pods, "default", "web-0", []string{"eviction"}, "/api/v1/namespaces/default/pods/web-0/eviction"},
		{ReplicaSets, "prod", "rs", nil, "/apis/apps/v1/namespaces/prod/replicasets/rs"},
		{ReplicaSets, "", "", nil, "/apis/apps/v1/replicasets"},
		{Deployments, "prod", "d", []string{"scale"}, "/apis/apps/v1/namespaces/prod/deployments/d/scale"},
		{Leases, "kube-system", "kube-controller-manager", nil, "/apis/coordination.k8s.io/v1/namespaces/kube-system/leases/kube-controller-manager"},
		{Nodes, "", "n1", nil, "/api/v1/nodes/n1"},
		{Nodes, "ignored", "n1", []string{"status"}, "/api/v1/nodes/n1/status"},
		{Namespaces, "", "ns1", []string{"finalize"}, "/api/v1/namespaces/ns1/finalize"},
		{Namespaces, "", "", nil, "/api/v1/namespaces"},
		{CRDs, "", "widgets.example.com", nil, "/apis/apiextensions.k8s.io/v1/customresourcedefinitions/widgets.example.com"},
		{widgets, "team-a", "w1", []string{"status"}, "/apis/example.com/v1alpha1/namespaces/team-a/widgets/w1/status"},
		// Names are escaped as one path segment.
		{Resource{Group: "rbac.authorization.k8s.io", Version: "v1", Resource: "clusterroles"}, "", "system:controller:a,b c/d", nil,
			"/apis/rbac.authorization.k8s.io/v1/clusterroles/system:controller:a%2Cb%20c%2Fd"},
		{Pods, "we?ird", "a%b", nil, "/api/v1/namespaces/we%3Fird/pods/a%25b"},
	}
	for _, tc := range tests {
		if got := tc.res.Path(tc.ns, tc.name, tc.sub...); got != tc.want {
			t.Errorf("%s.Path(%q, %q, %q) = %q, want %q", tc.res, tc.ns, tc.name, tc.sub, got, tc.want)
		}
	}
}

// TestResourceNames: apiVersion and kubectl's resource.version.group.
func TestResourceNames(t *testing.T) {
	tests := []struct {
		res    Resource
		gv, fq string
	}{
		{Pods, "v1", "pods.v1"},
		{Deployments, "apps/v1", "deployments.v1.apps"},
		{Leases, "coordination.k8s.io/v1", "leases.v1.coordination.k8s.io"},
	}
	for _, tc := range tests {
		if tc.res.GroupVersion() != tc.gv || tc.res.String() != tc.fq {
			t.Errorf("%+v: %q %q, want %q %q", tc.res, tc.res.GroupVersion(), tc.res.String(), tc.gv, tc.fq)
		}
	}
}
