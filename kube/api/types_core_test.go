package api_test

import (
	"testing"
	"time"

	"github.com/kcmlab/kcm/kube/api"
)

// apiPodJSON is a pod as kube-apiserver 1.34 returns it for a Deployment's
// replica: managedFields, the projected service-account volume the
// admission chain adds, a CSI volume and a securityContext (both unmodelled
// by kcm), and a kubelet-written status.
const apiPodJSON = `{
  "kind": "Pod",
  "apiVersion": "v1",
  "metadata": {
    "name": "web-7c5b4f8d9-x2kqp",
    "generateName": "web-7c5b4f8d9-",
    "namespace": "default",
    "uid": "5f0c3b9e-2a4d-4f7e-9a51-3c1d7e2b8f60",
    "resourceVersion": "48213",
    "generation": 1,
    "creationTimestamp": "2025-09-01T10:00:00Z",
    "labels": {"app": "web", "pod-template-hash": "7c5b4f8d9"},
    "annotations": {"kubectl.kubernetes.io/restartedAt": "2025-09-01T09:59:58Z"},
    "ownerReferences": [{
      "apiVersion": "apps/v1", "kind": "ReplicaSet", "name": "web-7c5b4f8d9",
      "uid": "0d9b1e6a-77c2-4e0b-8f4e-5a6c2d1b3e47", "controller": true, "blockOwnerDeletion": true
    }],
    "managedFields": [{
      "manager": "kube-controller-manager", "operation": "Update", "apiVersion": "v1",
      "time": "2025-09-01T10:00:00Z", "fieldsType": "FieldsV1",
      "fieldsV1": {"f:metadata": {"f:generateName": {}, "f:labels": {".": {}, "f:app": {}}}}
    }, {
      "manager": "kubelet", "operation": "Update", "apiVersion": "v1",
      "time": "2025-09-01T10:00:07Z", "fieldsType": "FieldsV1",
      "fieldsV1": {"f:status": {"f:conditions": {}}}, "subresource": "status"
    }]
  },
  "spec": {
    "volumes": [
      {"name": "data", "csi": {"driver": "csi.example.com", "volumeAttributes": {"size": "1Gi"}}},
      {"name": "config", "configMap": {"name": "web-config", "defaultMode": 420}},
      {"name": "scratch", "emptyDir": {"sizeLimit": "500Mi"}},
      {"name": "kube-api-access-9xk2f", "projected": {"sources": [
        {"serviceAccountToken": {"expirationSeconds": 3607, "path": "token"}},
        {"configMap": {"name": "kube-root-ca.crt", "items": [{"key": "ca.crt", "path": "ca.crt"}]}},
        {"downwardAPI": {"items": [{"path": "namespace", "fieldRef": {"apiVersion": "v1", "fieldPath": "metadata.namespace"}}]}}
      ], "defaultMode": 420}}
    ],
    "initContainers": [{
      "name": "migrate", "image": "registry.example.com/web:1.4.2", "command": ["/bin/migrate"],
      "resources": {}, "terminationMessagePath": "/dev/termination-log",
      "terminationMessagePolicy": "File", "imagePullPolicy": "IfNotPresent"
    }],
    "containers": [{
      "name": "web",
      "image": "registry.example.com/web:1.4.2",
      "args": ["--port=8080", "--log-level=info"],
      "ports": [{"name": "http", "containerPort": 8080, "protocol": "TCP"}],
      "env": [
        {"name": "MODE", "value": "production"},
        {"name": "POD_IP", "valueFrom": {"fieldRef": {"apiVersion": "v1", "fieldPath": "status.podIP"}}},
        {"name": "CPU_LIMIT", "valueFrom": {"resourceFieldRef": {"containerName": "web", "resource": "limits.cpu", "divisor": "0"}}},
        {"name": "DB_PASSWORD", "valueFrom": {"secretKeyRef": {"name": "db", "key": "password"}}}
      ],
      "resources": {"limits": {"cpu": "500m", "memory": "256Mi"}, "requests": {"cpu": "100m", "memory": "128Mi"}},
      "volumeMounts": [
        {"name": "config", "readOnly": true, "mountPath": "/etc/web"},
        {"name": "kube-api-access-9xk2f", "readOnly": true, "mountPath": "/var/run/secrets/kubernetes.io/serviceaccount"}
      ],
      "livenessProbe": {"httpGet": {"path": "/healthz", "port": "http", "scheme": "HTTP"},
        "timeoutSeconds": 1, "periodSeconds": 10, "successThreshold": 1, "failureThreshold": 3},
      "readinessProbe": {"tcpSocket": {"port": 8080},
        "initialDelaySeconds": 2, "timeoutSeconds": 1, "periodSeconds": 5, "successThreshold": 1, "failureThreshold": 3},
      "terminationMessagePath": "/dev/termination-log",
      "terminationMessagePolicy": "File",
      "imagePullPolicy": "IfNotPresent",
      "securityContext": {"runAsNonRoot": true, "allowPrivilegeEscalation": false}
    }],
    "restartPolicy": "Always",
    "terminationGracePeriodSeconds": 30,
    "dnsPolicy": "ClusterFirst",
    "nodeSelector": {"kubernetes.io/os": "linux"},
    "serviceAccountName": "default",
    "serviceAccount": "default",
    "nodeName": "node-a",
    "securityContext": {},
    "schedulerName": "default-scheduler",
    "tolerations": [
      {"key": "node.kubernetes.io/not-ready", "operator": "Exists", "effect": "NoExecute", "tolerationSeconds": 300},
      {"key": "node.kubernetes.io/unreachable", "operator": "Exists", "effect": "NoExecute", "tolerationSeconds": 300}
    ],
    "priority": 0,
    "enableServiceLinks": true,
    "preemptionPolicy": "PreemptLowerPriority"
  },
  "status": {
    "observedGeneration": 1,
    "phase": "Running",
    "conditions": [
      {"type": "PodReadyToStartContainers", "observedGeneration": 1, "status": "True", "lastProbeTime": null, "lastTransitionTime": "2025-09-01T10:00:03Z"},
      {"type": "Initialized", "observedGeneration": 1, "status": "True", "lastProbeTime": null, "lastTransitionTime": "2025-09-01T10:00:05Z"},
      {"type": "Ready", "observedGeneration": 1, "status": "True", "lastProbeTime": null, "lastTransitionTime": "2025-09-01T10:00:07Z"},
      {"type": "ContainersReady", "observedGeneration": 1, "status": "True", "lastProbeTime": null, "lastTransitionTime": "2025-09-01T10:00:07Z"},
      {"type": "PodScheduled", "observedGeneration": 1, "status": "True", "lastProbeTime": null, "lastTransitionTime": "2025-09-01T10:00:00Z"}
    ],
    "hostIP": "10.0.0.11",
    "hostIPs": [{"ip": "10.0.0.11"}],
    "podIP": "10.244.1.17",
    "podIPs": [{"ip": "10.244.1.17"}, {"ip": "fd00::17"}],
    "startTime": "2025-09-01T10:00:01Z",
    "initContainerStatuses": [{
      "name": "migrate",
      "state": {"terminated": {"exitCode": 0, "reason": "Completed", "startedAt": "2025-09-01T10:00:02Z",
        "finishedAt": "2025-09-01T10:00:04Z", "containerID": "containerd://aa11"}},
      "lastState": {}, "ready": true, "restartCount": 0,
      "image": "registry.example.com/web:1.4.2", "imageID": "registry.example.com/web@sha256:0b1c",
      "containerID": "containerd://aa11", "started": false
    }],
    "containerStatuses": [{
      "name": "web",
      "state": {"running": {"startedAt": "2025-09-01T10:00:05Z"}},
      "lastState": {"terminated": {"exitCode": 137, "reason": "OOMKilled", "startedAt": "2025-09-01T09:50:00Z",
        "finishedAt": "2025-09-01T09:59:00Z", "containerID": "containerd://bb00"}},
      "ready": true, "restartCount": 1,
      "image": "registry.example.com/web:1.4.2", "imageID": "registry.example.com/web@sha256:0b1c",
      "containerID": "containerd://bb22", "started": true,
      "volumeMounts": [{"name": "config", "mountPath": "/etc/web", "readOnly": true, "recursiveReadOnly": "Disabled"}]
    }],
    "qosClass": "Burstable"
  }
}`

func TestPodDecodesApiserverJSON(t *testing.T) {
	for _, c := range apiCodecs {
		pod, out := apiRoundTrip[api.Pod](t, c, apiPodJSON)

		if pod.Name != "web-7c5b4f8d9-x2kqp" || pod.Namespace != "default" || pod.Kind != "Pod" || pod.APIVersion != "v1" {
			t.Errorf("%s: header = %+v %+v", c.name, pod.TypeMeta, pod.ObjectMeta)
		}
		if ref := pod.ControllerRef(); ref == nil || ref.Name != "web-7c5b4f8d9" {
			t.Errorf("%s: controller ref = %+v", c.name, ref)
		}
		web := pod.Spec.Containers[0]
		if web.Resources.Requests["cpu"] != "100m" || web.Resources.Limits["memory"] != "256Mi" {
			t.Errorf("%s: resources = %+v", c.name, web.Resources)
		}
		if p := web.LivenessProbe.HTTPGet.Port; !p.IsString() || p.StrValue() != "http" {
			t.Errorf("%s: liveness port = %v", c.name, p)
		}
		if p := web.ReadinessProbe.TCPSocket.Port; p.IsString() || p.IntValue() != 8080 {
			t.Errorf("%s: readiness port = %v", c.name, p)
		}
		if e := web.Env[3].ValueFrom.SecretKeyRef; e == nil || e.Name != "db" || e.Key != "password" {
			t.Errorf("%s: secretKeyRef = %+v", c.name, e)
		}
		data := pod.Spec.Volumes[0]
		if data.Name != "data" || data.ConfigMap != nil || data.EmptyDir != nil || data.Projected != nil || data.Secret != nil {
			t.Errorf("%s: an unmodelled (csi) volume should decode with every source nil: %+v", c.name, data)
		}
		if pj := pod.Spec.Volumes[3].Projected; pj == nil || len(pj.Sources) != 3 || pj.Sources[0].ServiceAccountToken.Path != "token" {
			t.Errorf("%s: projected volume = %+v", c.name, pj)
		}
		if *pod.Spec.TerminationGracePeriodSeconds != 30 || *pod.Spec.Priority != 0 {
			t.Errorf("%s: spec pointers = %v %v", c.name, *pod.Spec.TerminationGracePeriodSeconds, *pod.Spec.Priority)
		}
		st := pod.Status
		if st.Phase != api.PodRunning || len(st.PodIPs) != 2 || st.StartTime == nil || !st.StartTime.Equal(time.Date(2025, 9, 1, 10, 0, 1, 0, time.UTC)) {
			t.Errorf("%s: status = %+v", c.name, st)
		}
		cs := st.ContainerStatuses[0]
		if !cs.Ready || cs.RestartCount != 1 || cs.State.Running == nil || cs.LastTerminationState.Terminated.ExitCode != 137 || !*cs.Started {
			t.Errorf("%s: container status = %+v", c.name, cs)
		}
		if !api.IsPodReady(pod) {
			t.Errorf("%s: IsPodReady = false", c.name)
		}

		// Everything kcm writes back is what the server said; what it
		// drops is exactly the unmodelled fields, managedFields first.
		wrong, dropped := apiDiffPaths(t, apiPodJSON, out)
		apiMustEqualPaths(t, c.name+": wrong", wrong, nil)
		apiMustEqualPaths(t, c.name+": dropped", dropped, []string{
			".metadata.managedFields",
			".spec.volumes[0].csi",
			".spec.containers[0].securityContext",
			".spec.serviceAccount",
			".spec.securityContext",
			".status.containerStatuses[0].volumeMounts",
		})
	}
}

// TestPodEncodingOmitsUnset: a minimal pod built in code encodes to what a
// controller would send on create, with no unset optional field.
func TestPodEncodingOmitsUnset(t *testing.T) {
	pod := api.Pod{
		TypeMeta:   api.TypeMeta{APIVersion: "v1", Kind: "Pod"},
		ObjectMeta: api.ObjectMeta{Name: "p", Namespace: "ns"},
		Spec:       api.PodSpec{Containers: []api.Container{{Name: "c", Image: "busybox"}}},
	}
	want := `{"apiVersion":"v1","kind":"Pod","metadata":{"name":"p","namespace":"ns","creationTimestamp":null},` +
		`"spec":{"containers":[{"name":"c","image":"busybox","resources":{}}]},"status":{}}`
	for _, c := range apiCodecs {
		out, err := c.marshal(&pod)
		if err != nil || string(out) != want {
			t.Errorf("%s:\ngot  %s, %v\nwant %s", c.name, out, err, want)
		}
	}
}

func TestPodHelpers(t *testing.T) {
	now := time.Date(2025, 9, 1, 12, 0, 0, 0, time.UTC)
	readySince := func(d time.Duration) api.Pod {
		return api.Pod{Status: api.PodStatus{Phase: api.PodRunning, Conditions: []api.PodCondition{
			{Type: api.PodScheduled, Status: api.ConditionTrue},
			{Type: api.PodReady, Status: api.ConditionTrue, LastTransitionTime: api.NewTime(now.Add(-d))},
		}}}
	}
	notReady := readySince(time.Hour)
	notReady.Status.Conditions[1].Status = api.ConditionFalse
	unknown := readySince(time.Hour)
	unknown.Status.Conditions[1].Status = api.ConditionUnknown
	noTransition := readySince(0)
	noTransition.Status.Conditions[1].LastTransitionTime = api.Time{}
	tests := []struct {
		name            string
		pod             api.Pod
		minReadySeconds int32
		ready, avail    bool
	}{
		{"no conditions", api.Pod{}, 0, false, false},
		{"ready, minReadySeconds 0", readySince(0), 0, true, true},
		// Available once lastTransitionTime + minReadySeconds <= now
		// (podutil.IsPodAvailable compares with <=, v1.34).
		{"ready exactly minReadySeconds ago", readySince(10 * time.Second), 10, true, true},
		{"ready for less than minReadySeconds", readySince(9 * time.Second), 10, true, false},
		{"ready for longer", readySince(time.Minute), 10, true, true},
		{"Ready False", notReady, 0, false, false},
		{"Ready Unknown", unknown, 0, false, false},
		{"ready, zero lastTransitionTime", noTransition, 5, true, false},
		{"ready, zero lastTransitionTime, minReadySeconds 0", noTransition, 0, true, true},
	}
	for _, tt := range tests {
		if got := api.IsPodReady(&tt.pod); got != tt.ready {
			t.Errorf("%s: IsPodReady = %v, want %v", tt.name, got, tt.ready)
		}
		if got := api.IsPodAvailable(&tt.pod, tt.minReadySeconds, now); got != tt.avail {
			t.Errorf("%s: IsPodAvailable = %v, want %v", tt.name, got, tt.avail)
		}
	}

	pod := readySince(0)
	if c := api.GetPodCondition(&pod.Status, api.PodScheduled); c == nil || c.Type != api.PodScheduled {
		t.Errorf("GetPodCondition(PodScheduled) = %+v", c)
	}
	if c := api.GetPodCondition(&pod.Status, api.ContainersReady); c != nil {
		t.Errorf("GetPodCondition(absent) = %+v, want nil", c)
	}
	api.GetPodCondition(&pod.Status, api.PodReady).Status = api.ConditionFalse
	if api.IsPodReady(&pod) {
		t.Error("GetPodCondition should return a pointer into the slice")
	}
}

func TestIsPodActive(t *testing.T) {
	// A pod counts towards a ReplicaSet unless it is Succeeded, Failed, or
	// has a deletionTimestamp (controller.IsPodActive).
	deleting := api.NewTime(time.Unix(1e9, 0))
	tests := []struct {
		phase    api.PodPhase
		deleting bool
		want     bool
	}{
		{"", false, true},
		{api.PodPending, false, true},
		{api.PodRunning, false, true},
		{api.PodUnknown, false, true},
		{api.PodSucceeded, false, false},
		{api.PodFailed, false, false},
		{api.PodRunning, true, false},
		{api.PodPending, true, false},
	}
	for _, tt := range tests {
		p := api.Pod{Status: api.PodStatus{Phase: tt.phase}}
		if tt.deleting {
			p.DeletionTimestamp = &deleting
		}
		if got := api.IsPodActive(&p); got != tt.want {
			t.Errorf("phase %q deleting %v: IsPodActive = %v, want %v", tt.phase, tt.deleting, got, tt.want)
		}
	}
}

func TestNamespaceJSON(t *testing.T) {
	const in = `{"kind":"Namespace","apiVersion":"v1","metadata":{"name":"team-a","uid":"7d1e","resourceVersion":"901",
	"creationTimestamp":"2025-09-01T08:00:00Z","deletionTimestamp":"2025-09-01T11:00:00Z",
	"labels":{"kubernetes.io/metadata.name":"team-a"}},
	"spec":{"finalizers":["kubernetes"]},
	"status":{"phase":"Terminating","conditions":[{"type":"NamespaceContentRemaining","status":"True",
	"lastTransitionTime":"2025-09-01T11:00:05Z","reason":"SomeResourcesRemain","message":"Some resources are remaining: pods. has 1 resource instances"}]}}`
	for _, c := range apiCodecs {
		ns, out := apiRoundTrip[api.Namespace](t, c, in)
		if ns.Status.Phase != api.NamespaceTerminating || ns.Spec.Finalizers[0] != api.FinalizerKubernetes || ns.DeletionTimestamp == nil {
			t.Errorf("%s: %+v", c.name, ns)
		}
		wrong, dropped := apiDiffPaths(t, in, out)
		apiMustEqualPaths(t, c.name+": wrong", wrong, nil)
		apiMustEqualPaths(t, c.name+": dropped", dropped, nil)
	}
}

func TestServiceAccountAndConfigMapJSON(t *testing.T) {
	const sa = `{"kind":"ServiceAccount","apiVersion":"v1","metadata":{"name":"default","namespace":"team-a","uid":"1",
	"resourceVersion":"5","creationTimestamp":"2025-09-01T08:00:01Z"},"secrets":[{"name":"default-token"}],"automountServiceAccountToken":false}`
	// binaryData is base64 on the wire and bytes in memory.
	const cm = `{"kind":"ConfigMap","apiVersion":"v1","metadata":{"name":"kube-root-ca.crt","namespace":"team-a",
	"creationTimestamp":"2025-09-01T08:00:01Z"},"data":{"ca.crt":"-----BEGIN CERTIFICATE-----\nMIIB\n-----END CERTIFICATE-----\n"},
	"binaryData":{"blob":"AAEC/w=="},"immutable":true}`
	for _, c := range apiCodecs {
		s, out := apiRoundTrip[api.ServiceAccount](t, c, sa)
		if s.AutomountServiceAccountToken == nil || *s.AutomountServiceAccountToken || s.Secrets[0].Name != "default-token" {
			t.Errorf("%s: %+v", c.name, s)
		}
		wrong, dropped := apiDiffPaths(t, sa, out)
		apiMustEqualPaths(t, c.name+": sa wrong", wrong, nil)
		apiMustEqualPaths(t, c.name+": sa dropped", dropped, nil)

		m, out := apiRoundTrip[api.ConfigMap](t, c, cm)
		if string(m.BinaryData["blob"]) != "\x00\x01\x02\xff" || m.Immutable == nil || !*m.Immutable {
			t.Errorf("%s: %+v", c.name, m)
		}
		wrong, dropped = apiDiffPaths(t, cm, out)
		apiMustEqualPaths(t, c.name+": cm wrong", wrong, nil)
		apiMustEqualPaths(t, c.name+": cm dropped", dropped, nil)
	}
}

func TestNodeAndEventJSON(t *testing.T) {
	const node = `{"kind":"Node","apiVersion":"v1","metadata":{"name":"node-a","creationTimestamp":"2025-09-01T08:00:00Z",
	"labels":{"kubernetes.io/hostname":"node-a"}},
	"spec":{"podCIDR":"10.244.1.0/24","podCIDRs":["10.244.1.0/24"],"taints":[{"key":"node.kubernetes.io/not-ready","effect":"NoSchedule"}]},
	"status":{"capacity":{"cpu":"4","memory":"16318540Ki","pods":"110"},"allocatable":{"cpu":"4","memory":"16216140Ki","pods":"110"},
	"conditions":[{"type":"Ready","status":"False","lastHeartbeatTime":"2025-09-01T10:00:00Z","lastTransitionTime":"2025-09-01T09:00:00Z",
	"reason":"KubeletNotReady","message":"container runtime network not ready"}],
	"addresses":[{"type":"InternalIP","address":"10.0.0.11"},{"type":"Hostname","address":"node-a"}],
	"daemonEndpoints":{"kubeletEndpoint":{"Port":10250}},
	"nodeInfo":{"machineID":"m","systemUUID":"s","bootID":"b","kernelVersion":"6.8.0","osImage":"Ubuntu","containerRuntimeVersion":"containerd://2.1.0",
	"kubeletVersion":"v1.34.4","kubeProxyVersion":"","operatingSystem":"linux","architecture":"amd64"}}}`
	const event = `{"kind":"Event","apiVersion":"v1","metadata":{"name":"web.1861f0a1b2c3d4e5","namespace":"default",
	"creationTimestamp":"2025-09-01T10:00:00Z"},
	"involvedObject":{"kind":"ReplicaSet","namespace":"default","name":"web-7c5b4f8d9","uid":"0d9b","apiVersion":"apps/v1","resourceVersion":"48200"},
	"reason":"SuccessfulCreate","message":"Created pod: web-7c5b4f8d9-x2kqp","source":{"component":"replicaset-controller"},
	"firstTimestamp":"2025-09-01T10:00:00Z","lastTimestamp":"2025-09-01T10:00:00Z","count":1,"type":"Normal",
	"eventTime":null,"reportingComponent":"replicaset-controller","reportingInstance":""}`
	for _, c := range apiCodecs {
		n, out := apiRoundTrip[api.Node](t, c, node)
		if n.Status.Allocatable["pods"] != "110" || n.Spec.Taints[0].Effect != "NoSchedule" || n.Status.Conditions[0].Status != api.ConditionFalse {
			t.Errorf("%s: %+v", c.name, n)
		}
		wrong, dropped := apiDiffPaths(t, node, out)
		apiMustEqualPaths(t, c.name+": node wrong", wrong, nil)
		apiMustEqualPaths(t, c.name+": node dropped", dropped, []string{".status.daemonEndpoints", ".status.nodeInfo"})

		e, out := apiRoundTrip[api.CoreEvent](t, c, event)
		if e.InvolvedObject.Kind != "ReplicaSet" || e.Count != 1 || e.Type != api.EventTypeNormal || !e.EventTime.IsZero() {
			t.Errorf("%s: %+v", c.name, e)
		}
		wrong, dropped = apiDiffPaths(t, event, out)
		apiMustEqualPaths(t, c.name+": event wrong", wrong, nil)
		apiMustEqualPaths(t, c.name+": event dropped", dropped, nil)
	}
}
