package podgen

// UnmodelledPod is a Pod to create on a real apiserver whose spec carries
// fields kcm's api.Pod does not model (node affinity, pod and container
// security contexts, DNS options): tests create it, then read, modify and
// write it back through a typed client or cache, and check that the
// apiserver still holds every one of those fields.
func UnmodelledPod(name string) map[string]any {
	return map[string]any{
		"apiVersion": "v1", "kind": "Pod",
		"metadata": map[string]any{"name": name},
		"spec": map[string]any{
			"affinity": map[string]any{"nodeAffinity": map[string]any{"requiredDuringSchedulingIgnoredDuringExecution": map[string]any{
				"nodeSelectorTerms": []any{map[string]any{"matchExpressions": []any{map[string]any{"key": "zone", "operator": "In", "values": []any{"a"}}}}}}}},
			"securityContext": map[string]any{"runAsNonRoot": true, "runAsUser": 1000},
			"dnsConfig":       map[string]any{"options": []any{map[string]any{"name": "ndots", "value": "2"}}},
			"containers": []any{map[string]any{"name": "c", "image": "registry.k8s.io/pause:3.10",
				"securityContext": map[string]any{"allowPrivilegeEscalation": false}}},
		},
	}
}
