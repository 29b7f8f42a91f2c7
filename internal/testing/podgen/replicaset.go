package podgen

import (
	"strconv"
	"time"
)

// ReplicaSet returns the JSON of ReplicaSet i (apiVersion and kind
// included): the current ReplicaSet of a Deployment, owning pods
// i*ReplicasPerSet .. (i+1)*ReplicasPerSet-1, all available. Its
// resourceVersion is below BaseResourceVersion.
func ReplicaSet(i int) []byte {
	w := workloadOf(i)
	created := time.Duration(w.set) * 37 * time.Second
	at := func(d time.Duration) string { return timestamp(created + d) }
	rv := BaseResourceVersion - 1 - i%(BaseResourceVersion-1)
	sel := map[string]string{"app": w.app, "pod-template-hash": w.hash}
	rs := object[rsSpec, rsStatus]{APIVersion: "apps/v1", Kind: "ReplicaSet",
		Metadata: meta{
			Name: w.rsName, Namespace: w.namespace, UID: w.rsUID, ResourceVersion: strconv.Itoa(rv),
			Generation: 1, CreationTimestamp: at(0), Labels: sel,
			Annotations: map[string]string{
				"deployment.kubernetes.io/desired-replicas": itoa(ReplicasPerSet),
				"deployment.kubernetes.io/max-replicas":     itoa(ReplicasPerSet + 1),
				"deployment.kubernetes.io/revision":         "1",
			},
			OwnerReferences: []ownerRef{{APIVersion: "apps/v1", Kind: "Deployment", Name: w.app,
				UID: uid(mix(uint64(i), saltRSUID+100)), Controller: true, BlockOwnerDeletion: true}},
		},
		Spec: rsSpec{Replicas: ReplicasPerSet, Selector: labelSelector{MatchLabels: sel},
			Template: template{Metadata: templateMeta{Labels: sel, Annotations: map[string]string{"prometheus.io/scrape": "true"}},
				Spec: podSpecFor(w, "", "")}},
		Status: rsStatus{Replicas: ReplicasPerSet, FullyLabeledReplicas: ReplicasPerSet, ReadyReplicas: ReplicasPerSet,
			AvailableReplicas: ReplicasPerSet, ObservedGeneration: 1},
	}
	// A template carries no token volume, node or per-pod fields: those
	// come from admission and scheduling.
	t := &rs.Spec.Template.Spec
	t.Volumes, t.NodeName, t.Tolerations, t.ServiceAccount = nil, "", nil, ""
	for c := range t.Containers {
		t.Containers[c].VolumeMounts = nil
	}
	rs.Metadata.ManagedFields = []managedEntry{
		{Manager: "kube-controller-manager", Operation: "Update", APIVersion: "apps/v1", Time: at(0),
			FieldsType: "FieldsV1", FieldsV1: rsFields(w, t.Containers)},
		{Manager: "kube-controller-manager", Operation: "Update", APIVersion: "apps/v1", Time: at(6 * time.Second),
			FieldsType: "FieldsV1", Subresource: "status",
			FieldsV1: tree{"f:status": leaves(false, "availableReplicas", "fullyLabeledReplicas", "observedGeneration",
				"readyReplicas", "replicas")}.appendTo(nil)},
	}
	return mustJSON(rs)
}

// rsFields is what kube-controller-manager owns after the Deployment
// controller created the ReplicaSet.
func rsFields(w workload, cs []container) []byte {
	t := tree{
		"f:metadata": tree{
			"f:annotations": leaves(true, "deployment.kubernetes.io/desired-replicas",
				"deployment.kubernetes.io/max-replicas", "deployment.kubernetes.io/revision"),
			"f:labels":          leaves(true, "app", "pod-template-hash"),
			"f:ownerReferences": tree{".": {}, k(`{"uid":"` + uid(mix(uint64(w.set), saltRSUID+100)) + `"}`): {}},
		},
		"f:spec": tree{"f:replicas": {}, "f:selector": {},
			"f:template": tree{"f:metadata": tree{"f:annotations": leaves(true, "prometheus.io/scrape"),
				"f:labels": leaves(true, "app", "pod-template-hash")}, "f:spec": templateSpecFields(cs)}},
	}
	return t.appendTo(make([]byte, 0, 512))
}

type rsSpec struct {
	Replicas int           `json:"replicas"`
	Selector labelSelector `json:"selector"`
	Template template      `json:"template"`
}

type labelSelector struct {
	MatchLabels map[string]string `json:"matchLabels"`
}

type templateMeta struct {
	CreationTimestamp *string           `json:"creationTimestamp"`
	Labels            map[string]string `json:"labels"`
	Annotations       map[string]string `json:"annotations,omitempty"`
}

type template struct {
	Metadata templateMeta `json:"metadata"`
	Spec     podSpec      `json:"spec"`
}

type rsStatus struct {
	Replicas             int `json:"replicas"`
	FullyLabeledReplicas int `json:"fullyLabeledReplicas"`
	ReadyReplicas        int `json:"readyReplicas"`
	AvailableReplicas    int `json:"availableReplicas"`
	ObservedGeneration   int `json:"observedGeneration"`
}
