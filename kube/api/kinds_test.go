package api_test

import (
	"testing"

	"github.com/kcmlab/kcm/kube/api"
)

type Widget struct{ api.ObjectMeta }

// TestKindOf: every typed struct's kind is the kind field its objects
// carry, CoreEvent's "Event"; a struct from elsewhere is named after its
// kind.
func TestKindOf(t *testing.T) {
	for _, tc := range []struct{ got, want string }{
		{api.KindOf[api.Pod](), "Pod"},
		{api.KindOf[api.Namespace](), "Namespace"},
		{api.KindOf[api.ServiceAccount](), "ServiceAccount"},
		{api.KindOf[api.ConfigMap](), "ConfigMap"},
		{api.KindOf[api.Node](), "Node"},
		{api.KindOf[api.Service](), "Service"},
		{api.KindOf[api.Endpoints](), "Endpoints"},
		{api.KindOf[api.EndpointSlice](), "EndpointSlice"},
		{api.KindOf[api.CoreEvent](), "Event"},
		{api.KindOf[api.ReplicaSet](), "ReplicaSet"},
		{api.KindOf[api.Deployment](), "Deployment"},
		{api.KindOf[api.StatefulSet](), "StatefulSet"},
		{api.KindOf[api.ControllerRevision](), "ControllerRevision"},
		{api.KindOf[api.PersistentVolumeClaim](), "PersistentVolumeClaim"},
		{api.KindOf[api.Lease](), "Lease"},
		{api.KindOf[api.ResourceQuota](), "ResourceQuota"},
		{api.KindOf[Widget](), "Widget"},
	} {
		if tc.got != tc.want {
			t.Errorf("KindOf = %q, want %q", tc.got, tc.want)
		}
	}
}
