package podgen

import (
	"strconv"
	"strings"
	"time"
)

// Pod returns the JSON of pod i (apiVersion and kind included, as a GET or
// a watch event carries it) at its initial resourceVersion,
// BaseResourceVersion+i. The bytes are the same in every call and process.
func Pod(i int) []byte { return PodVersion(i, 0, strconv.Itoa(BaseResourceVersion+i)) }

// PodVersion returns pod i after its v-th status change (v = 0 is the
// pod as created and started), at resourceVersion rv. Each change is a
// container restart: restartCount v, the previous run in lastState, a new
// start time and a fresh kubelet managedFields timestamp.
func PodVersion(i, v int, rv string) []byte { return mustJSON(buildPod(i, v, rv, true)) }

// RelabelKey is the label RelabeledPodVersion changes.
const RelabelKey = "rollout.example.com/wave"

// RelabeledPodVersion is PodVersion, and from the second change on the pod
// also carries the label RelabelKey, whose value is "wave-" followed by
// v/2: every second change relabels the pod, as an operator's
// `kubectl label --overwrite` over a Deployment's pods does. Pods of one
// ReplicaSet at the same version carry equal labels.
func RelabeledPodVersion(i, v int, rv string) []byte {
	p := buildPod(i, v, rv, true)
	if v >= 2 {
		p.Metadata.Labels[RelabelKey] = "wave-" + itoa(v/2)
	}
	return mustJSON(p)
}

// listItem returns pod i as a list response carries it: without apiVersion
// and kind.
func listItem(i int) []byte {
	return mustJSON(buildPod(i, 0, strconv.Itoa(BaseResourceVersion+i), false))
}

type pod = object[podSpec, podStatus]

// buildPod assembles pod i of ReplicaSet i/ReplicasPerSet.
func buildPod(i, v int, rv string, withType bool) pod {
	w := workloadOf(i / ReplicasPerSet)
	ui := uint64(i)
	name := w.rsName + "-" + safeString(mix(ui, saltSuffix), 5)
	node := int(mix(ui, saltNode) % Nodes)
	podIP := ipv4(byte(64+node/64), mix(ui, saltIP))
	created := time.Duration(w.set)*37*time.Second + time.Duration(i%ReplicasPerSet)*2*time.Second +
		time.Duration(mix(ui, saltAge)%86400)*time.Second
	at := func(d time.Duration) string { return timestamp(created + d) }
	tokenVol := "kube-api-access-" + safeString(mix(ui, saltSuffix+100), 5)

	p := pod{Metadata: meta{
		Name: name, GenerateName: w.rsName + "-", Namespace: w.namespace, UID: uid(mix(ui, saltUID)),
		ResourceVersion: rv, CreationTimestamp: at(0),
		Labels:      map[string]string{"app": w.app, "pod-template-hash": w.hash},
		Annotations: map[string]string{"prometheus.io/scrape": "true"},
		OwnerReferences: []ownerRef{{APIVersion: "apps/v1", Kind: "ReplicaSet", Name: w.rsName, UID: w.rsUID,
			Controller: true, BlockOwnerDeletion: true}},
	}}
	if withType {
		p.APIVersion, p.Kind = "v1", "Pod"
	}
	p.Spec = podSpecFor(w, tokenVol, nodeName(node))
	p.Status = podStatusFor(w, i, v, podIP, nodeIP(node), at)
	p.Metadata.ManagedFields = []managedEntry{
		{Manager: "kube-controller-manager", Operation: "Update", APIVersion: "v1", Time: at(0),
			FieldsType: "FieldsV1", FieldsV1: controllerFields(w, p.Spec.Containers)},
		{Manager: "kubelet", Operation: "Update", APIVersion: "v1", Time: at(time.Duration(4+90*v) * time.Second),
			FieldsType: "FieldsV1", FieldsV1: kubeletFields(podIP), Subresource: "status"},
	}
	return p
}

// podSpecFor is the template's spec after admission (service-account
// token volume, default tolerations) and scheduling (nodeName).
func podSpecFor(w workload, tokenVol, node string) podSpec {
	saMount := volumeMount{Name: tokenVol, ReadOnly: true, MountPath: "/var/run/secrets/kubernetes.io/serviceaccount"}
	main := container{
		Name: w.app, Image: w.image,
		Ports: []port{{ContainerPort: w.port, Protocol: "TCP"}},
		Env:   appEnv(w),
		Resources: resources{Limits: map[string]string{"memory": w.memLimit},
			Requests: map[string]string{"cpu": w.cpuReq, "memory": w.memReq}},
		VolumeMounts:           []volumeMount{saMount},
		TerminationMessagePath: "/dev/termination-log", TerminationMessagePolicy: "File", ImagePullPolicy: "IfNotPresent",
	}
	s := podSpec{
		Volumes: []volume{
			{Name: tokenVol, Projected: &projected{DefaultMode: 420, Sources: []projection{
				{ServiceAccountToken: &saToken{ExpirationSeconds: 3607, Path: "token"}},
				{ConfigMap: &configMapVolume{Name: "kube-root-ca.crt", Items: []keyPath{{Key: "ca.crt", Path: "ca.crt"}}}},
				{DownwardAPI: &downwardAPI{Items: []downwardItem{{Path: "namespace",
					FieldRef: fieldRef{APIVersion: "v1", FieldPath: "metadata.namespace"}}}}},
			}}},
		},
		Containers:    []container{main},
		RestartPolicy: "Always", TerminationGracePeriodSeconds: 30, DNSPolicy: "ClusterFirst",
		ServiceAccountName: "default", ServiceAccount: "default", NodeName: node, SchedulerName: "default-scheduler",
		Tolerations: []toleration{
			{Key: "node.kubernetes.io/not-ready", Operator: "Exists", Effect: "NoExecute", TolerationSeconds: 300},
			{Key: "node.kubernetes.io/unreachable", Operator: "Exists", Effect: "NoExecute", TolerationSeconds: 300},
		},
		EnableServiceLinks: true, PreemptionPolicy: "PreemptLowerPriority",
	}
	if w.sidecar {
		s.Containers = append(s.Containers, container{
			Name: "log-shipper", Image: sidecarImage,
			Resources: resources{Limits: map[string]string{"memory": "64Mi"},
				Requests: map[string]string{"cpu": "10m", "memory": "32Mi"}},
			VolumeMounts:           []volumeMount{saMount},
			TerminationMessagePath: "/dev/termination-log", TerminationMessagePolicy: "File", ImagePullPolicy: "IfNotPresent",
		})
	}
	return s
}

var envNames = [...]string{"LOG_LEVEL", "HTTP_TIMEOUT"}
var envValues = [...]string{"info", "15s"}

// appEnv is the main container's environment.
func appEnv(w workload) []envVar {
	env := make([]envVar, 0, w.envCount)
	for k := 0; k < w.envCount; k++ {
		env = append(env, envVar{Name: envNames[k], Value: envValues[k]})
	}
	return env
}

// podStatusFor is what the kubelet reports for a running pod after v
// container restarts.
func podStatusFor(w workload, i, v int, podIP, hostIP string, at func(time.Duration) string) podStatus {
	sec := func(s int) string { return at(time.Duration(s) * time.Second) }
	cond := func(t string, s int) podCondition {
		return podCondition{Type: t, Status: "True", LastTransitionTime: sec(s)}
	}
	ready := 4 + 90*v
	st := podStatus{
		Phase: "Running",
		Conditions: []podCondition{cond("PodReadyToStartContainers", 3), cond("Initialized", 1),
			cond("Ready", ready), cond("ContainersReady", ready), cond("PodScheduled", 0)},
		HostIP: hostIP, HostIPs: []ip{{hostIP}}, PodIP: podIP, PodIPs: []ip{{podIP}},
		StartTime: sec(1), QOSClass: "Burstable",
	}
	ui := uint64(i)
	main := containerStatus{
		Name: w.app, State: containerState{Running: &runningState{StartedAt: sec(ready - 1)}},
		Ready: true, RestartCount: v, Image: w.image, ImageID: imageID(w.image, uint64(w.set)),
		ContainerID: "containerd://" + hexString(mix(ui, saltContainerID)+uint64(v), 64), Started: true,
	}
	if v > 0 {
		main.LastState.Terminated = &terminatedState{ExitCode: 137, Reason: "OOMKilled",
			StartedAt: sec(ready - 91), FinishedAt: sec(ready - 2),
			ContainerID: "containerd://" + hexString(mix(ui, saltContainerID)+uint64(v-1), 64)}
	}
	st.ContainerStatuses = []containerStatus{main}
	if w.sidecar {
		st.ContainerStatuses = append(st.ContainerStatuses, containerStatus{
			Name: "log-shipper", State: containerState{Running: &runningState{StartedAt: sec(3)}},
			Ready: true, Image: sidecarImage,
			ImageID:     imageID(sidecarImage, 7),
			ContainerID: "containerd://" + hexString(mix(ui, saltSidecarID), 64), Started: true,
		})
	}
	return st
}

// imageID is the digest reference the kubelet reports for image.
func imageID(image string, seed uint64) string {
	repo := image
	if k := strings.LastIndexByte(image, ':'); k > strings.LastIndexByte(image, '/') {
		repo = image[:k]
	}
	return repo + "@sha256:" + hexString(mix(seed, saltImageID), 64)
}

// sidecarImage is the log shipper some workloads run next to the app.
const sidecarImage = "docker.io/fluent/fluent-bit:3.2"
