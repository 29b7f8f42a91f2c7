package managerbench

import (
	"errors"
	"testing"

	"github.com/kcmlab/kcm/kube/api"
	"github.com/kcmlab/kcm/kube/api/resource"
)

// Sizes outside what the names and the scenario allow are refused with
// ErrRQWorkload.
func TestRQWorkloadValidate(t *testing.T) {
	tests := []struct {
		w  RQWorkload
		ok bool
	}{
		{RQWorkload{1000, 10, 1}, true},
		{RQWorkload{1, 1, 1}, true},
		{RQWorkload{10000, 1000, 1000}, true},
		{RQWorkload{0, 10, 1}, false},
		{RQWorkload{10001, 10, 1}, false},
		{RQWorkload{10, 0, 0}, false},
		{RQWorkload{10, 1001, 1}, false},
		{RQWorkload{10, 10, 0}, false},
		{RQWorkload{10, 10, 11}, false},
	}
	for _, tt := range tests {
		err := tt.w.Validate()
		if (err == nil) != tt.ok || err != nil && !errors.Is(err, ErrRQWorkload) {
			t.Errorf("%+v.Validate() = %v, want ok=%v", tt.w, err, tt.ok)
		}
	}
	if w := (RQWorkload{1000, 10, 1}); w.Pods() != 10000 || w.Deletes() != 1000 {
		t.Errorf("Pods, Deletes = %d, %d; want 10000, 1000", w.Pods(), w.Deletes())
	}
}

// The expected usage of n benchmark pods is what Kubernetes' pod
// evaluator reports for n Pending pods requesting cpu 100m and memory
// 128Mi each (no init containers, no overhead): the pod count and n times
// each request, in canonical form, for every name of the quota's hard.
func TestRQUsage(t *testing.T) {
	tests := []struct {
		n    int
		want api.ResourceList
	}{
		{10, api.ResourceList{"pods": "10", "requests.cpu": "1", "requests.memory": "1280Mi"}},
		{9, api.ResourceList{"pods": "9", "requests.cpu": "900m", "requests.memory": "1152Mi"}},
		{1, api.ResourceList{"pods": "1", "requests.cpu": "100m", "requests.memory": "128Mi"}},
		{0, api.ResourceList{"pods": "0", "requests.cpu": "0", "requests.memory": "0"}},
	}
	for _, tt := range tests {
		got, err := rqUsage(rqPod("ns", "p"), tt.n)
		if err != nil {
			t.Fatalf("rqUsage(%d): %v", tt.n, err)
		}
		if s := got.Strings(); len(s) != len(tt.want) || s["pods"] != tt.want["pods"] ||
			s["requests.cpu"] != tt.want["requests.cpu"] || s["requests.memory"] != tt.want["requests.memory"] {
			t.Errorf("rqUsage(%d) = %v, want %v", tt.n, s, tt.want)
		}
	}
	bad := rqPod("ns", "p")
	bad.Spec.Containers[0].Resources.Requests = api.ResourceList{"cpu": "lots"}
	if _, err := rqUsage(bad, 1); !errors.Is(err, resource.ErrInvalidQuantity) {
		t.Errorf("rqUsage of a bad request = %v, want ErrInvalidQuantity", err)
	}
}

// The workload's quota keys and expectations name the same namespaces,
// every one of them, and the pods are never bound to a node.
func TestRQNames(t *testing.T) {
	w := RQWorkload{Namespaces: 3, PodsPerNamespace: 2, DeletePerNamespace: 1}
	keys := rqQuotaKeys(w)
	want, err := rqExpect(w, 1)
	if err != nil {
		t.Fatal(err)
	}
	if len(keys) != 3 || keys[0] != "quota-0000/quota" || keys[2] != "quota-0002/quota" || len(want) != 3 {
		t.Fatalf("keys %v, expectations for %d namespaces", keys, len(want))
	}
	for _, ns := range []string{"quota-0000", "quota-0001", "quota-0002"} {
		if got := want[ns].Strings()["pods"]; got != "1" {
			t.Errorf("expected pods in %s = %q, want 1", ns, got)
		}
	}
	if _, ok := want[rqProbeNamespace]; ok || rqProbeNamespace[:len(rqPrefix)] == rqPrefix {
		t.Errorf("the probe namespace %q must lie outside the workload's prefix %q", rqProbeNamespace, rqPrefix)
	}
	if p := rqPod("quota-0000", rqPodName(7)); p.Name != "pod-007" || p.Spec.NodeName != "" {
		t.Errorf("pod %s on node %q, want pod-007 unbound", p.Name, p.Spec.NodeName)
	}
}
