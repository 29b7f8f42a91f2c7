package e2e

import (
	"regexp"
	"testing"
)

// The focus selects the specs of kcm's controllers and nothing of the
// controllers kcm lacks; each exclusion lies inside the focus; both are
// valid regular expressions (ginkgo refuses the run otherwise).
func TestFocusAndSkip(t *testing.T) {
	focus := regexp.MustCompile(Focus(Groups))
	skip := regexp.MustCompile(Skip(Exclusions))
	tests := []struct {
		name    string
		focused bool
		skipped bool
	}{
		{"[sig-apps] Deployment deployment should support rollover [Conformance]", true, false},
		{"[sig-apps] ReplicaSet should adopt matching pods on creation and release no longer matching pods [Conformance]", true, false},
		{"[sig-api-machinery] Garbage collector should not be blocked by dependency circle [Conformance]", true, false},
		{"[sig-api-machinery] Namespaces [Serial] should ensure that all pods are removed when a namespace is deleted [Conformance]", true, false},
		{"[sig-api-machinery] OrderedNamespaceDeletion namespace deletion should delete pod first [Conformance]", true, false},
		{"[sig-auth] ServiceAccounts no secret-based service account token should be auto-generated", true, false},
		{"[sig-auth] ServiceAccounts should mount an API token into pods [Conformance]", true, true},
		{"[sig-auth] ServiceAccounts ServiceAccountIssuerDiscovery should support OIDC discovery of service account issuer [Conformance]", true, true},
		{"[sig-network] EndpointsController should create Endpoints for Pods matching a Service [Conformance]", true, false},
		{"[sig-network] Endpoints should test the lifecycle of an Endpoint [Conformance]", true, false},
		{"[sig-network] EndpointSlice should create Endpoints and EndpointSlices for Pods matching a Service [Conformance]", true, false},
		{"[sig-network] EndpointSliceMirroring should mirror a custom Endpoints resource through create update and delete [Conformance]", true, false},
		{"[sig-network] EndpointSlice should support a Service with multiple ports specified in multiple EndpointSlices [Conformance]", true, true},
		{"[sig-network] EndpointSlice should support a Service with multiple endpoint IPs specified in multiple EndpointSlices [Conformance]", true, true},
		{"[sig-network] EndpointSliceMirroring should mirror a custom Endpoint with multiple subsets and same IP address", true, true},
		{"[sig-network] Services should serve a basic endpoint from pods [Conformance]", false, false},
		{"[sig-network] EndpointSliceMirroringX is not a thing", false, false},
		{"[sig-apps] ReplicationController should serve a basic image on each replica with a public image [Conformance]", false, false},
		{"[sig-apps] DeploymentConfig is not a thing", false, false},
		{"[sig-apps] StatefulSet Basic StatefulSet functionality [StatefulSetBasic] should have a working scale subresource [Conformance]", true, false},
		{"[sig-apps] StatefulSet Basic StatefulSet functionality [StatefulSetBasic] should perform canary updates and phased rolling updates of template modifications [Conformance]", true, false},
		{"[sig-apps] StatefulSet Basic StatefulSet functionality [StatefulSetBasic] should perform rolling updates with maxUnavailable [FeatureGate:MaxUnavailableStatefulSet] [Beta]", true, false},
		{"[sig-apps] StatefulSet Non-retain StatefulSetPersistentVolumeClaimPolicy should delete PVCs after adopting pod (WhenDeleted)", true, false},
		{"[sig-apps] StatefulSet Scaling StatefulSetStartOrdinal Setting .start.ordinal", true, false},
		{"[sig-apps] StatefulSet Basic StatefulSet functionality [StatefulSetBasic] should perform rolling updates and roll backs of template modifications [Conformance]", true, true},
		{"[sig-apps] StatefulSet Basic StatefulSet functionality [StatefulSetBasic] should perform rolling updates and roll backs of template modifications with PVCs", true, true},
		{"[sig-apps] StatefulSet Basic StatefulSet functionality [StatefulSetBasic] Burst scaling should run to completion even with unhealthy pods [Conformance] [Slow]", true, true},
		{"[sig-apps] StatefulSet Basic StatefulSet functionality [StatefulSetBasic] Scaling should happen in predictable order and halt if any stateful pod is unhealthy [Conformance] [Slow]", true, true},
		{"[sig-apps] StatefulSet Basic StatefulSet functionality [StatefulSetBasic] should adopt matching orphans and release non-matching pods", true, true},
		{"[sig-apps] StatefulSet Basic StatefulSet functionality [StatefulSetBasic] should not deadlock when a pod's predecessor fails", true, true},
		{"[sig-apps] StatefulSet Basic StatefulSet functionality [StatefulSetBasic] Should recreate evicted statefulset [Conformance]", true, true},
		{"[sig-apps] StatefulSet Deploy clustered applications should creating a working CockroachDB cluster [Slow]", true, true},
		{"[sig-apps] StatefulSet StatefulSet Recreate Update Strategy should recreate all pods when the update strategy is Recreate [FeatureGate:StatefulSetRecreateStrategy] [Alpha] [Feature:OffByDefault]", true, true},
		{"[sig-apps] StatefulSet Basic StatefulSet functionality [StatefulSetBasic] should perform canary updates and phased rolling updates of template modifications for partiton1 and delete pod-0 with failing container", true, true},
		{"[sig-apps] StatefulSet Basic StatefulSet functionality [StatefulSetBasic] should perform canary updates and phased rolling updates of template modifications for partiton1 and delete pod-0 without failing container", true, true},
		{"[sig-apps] StatefulSet Automatically recreate PVC for pending pod when PVC is missing PVC should be recreated when pod is pending due to missing PVC [Disruptive] [Serial]", true, true},
		{"[sig-apps] StatefulSetX is not a thing", false, false},
		{"[sig-node] NoExecuteTaintManager Single Pod [Serial] evicts pods from tainted nodes", true, false},
		{"[sig-node] NoExecuteTaintManager Single Pod [Serial] removing taint cancels eviction [Disruptive] [Conformance]", true, false},
		{"[sig-node] NoExecuteTaintManager Multiple Pods [Serial] evicts pods with minTolerationSeconds [Disruptive] [Conformance]", true, false},
		{"[sig-node] Pod garbage collector [Feature:PodGarbageCollector] [Slow] should handle the creation of 1000 pods", true, false},
		{"[sig-node] Node Lifecycle should run through the lifecycle of a node [Conformance]", true, false},
		{"[sig-node] NoExecuteTaintManagerX is not a thing", false, false},
		{"[sig-node] Pods should be submitted and removed [NodeConformance] [Conformance]", false, false},
		{"[sig-api-machinery] ResourceQuota should create a ResourceQuota and capture the life of a replica set. [Conformance]", true, false},
		{"[sig-api-machinery] ResourceQuota should verify ResourceQuota with terminating scopes. [Conformance]", true, false},
		{"[sig-api-machinery] ResourceQuota [Feature:PodPriority] should verify ResourceQuota's priority class scope (quota set to pod count: 1) against a pod with same priority class.", true, false},
		{"[sig-api-machinery] ResourceQuota [FeatureGate:VolumeAttributesClass] should verify ResourceQuota's volume attributes class scope (quota set to pvc count: 1) against 2 pvcs with same volume attributes class.", true, false},
		{"[sig-api-machinery] ResourceQuotaX is not a thing", false, false},
		{"[sig-auth] ServiceAccounts should guarantee kube-root-ca.crt exist in any namespace [Conformance]", true, false},
		{"[sig-auth] ServiceAccounts should run through the lifecycle of a ServiceAccount [Conformance]", true, false},
	}
	for _, tt := range tests {
		if got := focus.MatchString(tt.name); got != tt.focused {
			t.Errorf("focus matches %q: %v, want %v", tt.name, got, tt.focused)
		}
		if got := skip.MatchString(tt.name); got != tt.skipped {
			t.Errorf("skip matches %q: %v, want %v", tt.name, got, tt.skipped)
		}
	}
	for _, g := range Groups {
		if g.Controller == "" || g.Why == "" {
			t.Errorf("group %q lacks its controller or reason", g.Pattern)
		}
	}
	for _, e := range Exclusions {
		if e.Why == "" {
			t.Errorf("exclusion %q has no reason", e.Pattern)
		}
	}
}

// TestKCMFileArgs: kcm gets the ServiceAccount signing key only once one
// of its controllers declares --service-account-private-key-file (kcm
// refuses a kube-controller-manager flag it lacks), and never
// --root-ca-file.
func TestKCMFileArgs(t *testing.T) {
	if got := KCMFileArgs([]string{"root-ca-file", "terminated-pod-gc-threshold"}, "/c/sa.key"); len(got) != 0 {
		t.Errorf("without the token controller's flag: %q, want none", got)
	}
	got := KCMFileArgs([]string{"root-ca-file", "service-account-private-key-file", "root-ca-file"}, "/c/sa.key")
	if len(got) != 1 || got[0] != "--service-account-private-key-file=/c/sa.key" {
		t.Errorf("with it: %q, want [--service-account-private-key-file=/c/sa.key]", got)
	}
}
