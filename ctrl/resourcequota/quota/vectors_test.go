package quota_test

import "github.com/kcmlab/kcm/kube/api"

// The vectors below are facts about kube-controller-manager v1.37.2's
// quota evaluators (k8s.io/kubernetes pkg/quota/v1/evaluator/core with
// k8s.io/apiserver's quota/v1 and generic, at the release's default
// feature gates), printed by a throw-away program (a module under /tmp that
// imported them): each pod, Service and claim below was decoded as
// core/v1 JSON and given to the real evaluator, at time t0, and a
// namespace holding all the pods was given to quota.CalculateUsage. No
// Kubernetes code is in kcm: only its answers.

// scopeSelectors are the requirements the pod vectors' match letters
// answer, in order.
var scopeSelectors = []api.ScopedResourceSelectorRequirement{
	{ScopeName: "Terminating", Operator: "Exists"},
	{ScopeName: "NotTerminating", Operator: "Exists"},
	{ScopeName: "BestEffort", Operator: "Exists"},
	{ScopeName: "NotBestEffort", Operator: "Exists"},
	{ScopeName: "PriorityClass", Operator: "Exists"},
	{ScopeName: "PriorityClass", Operator: "In", Values: []string{"high"}},
	{ScopeName: "PriorityClass", Operator: "In", Values: []string{"high", "low"}},
	{ScopeName: "PriorityClass", Operator: "NotIn", Values: []string{"high"}},
	{ScopeName: "PriorityClass", Operator: "DoesNotExist"},
	{ScopeName: "CrossNamespacePodAffinity", Operator: "Exists"},
	{ScopeName: "Terminating", Operator: "DoesNotExist"},
	{ScopeName: "VolumeAttributesClass", Operator: "Exists"},
	{ScopeName: "PriorityClass", Operator: "In"},
	{ScopeName: "PriorityClass", Operator: "Bogus", Values: []string{"x"}},
}

// pvcSelectors are the requirements the claim vectors' letters answer.
var pvcSelectors = []api.ScopedResourceSelectorRequirement{
	{ScopeName: "VolumeAttributesClass", Operator: "Exists"},
	{ScopeName: "VolumeAttributesClass", Operator: "DoesNotExist"},
	{ScopeName: "VolumeAttributesClass", Operator: "In", Values: []string{"fast"}},
	{ScopeName: "VolumeAttributesClass", Operator: "In", Values: []string{"slow"}},
	{ScopeName: "VolumeAttributesClass", Operator: "NotIn", Values: []string{"fast"}},
	{ScopeName: "PriorityClass", Operator: "Exists"},
	{ScopeName: "Terminating", Operator: "Exists"},
}

// objVector is an object's JSON, its usage ("name=quantity,..." sorted)
// and, for pods and claims, whether each selector matches it: y, n, or e
// (the requirement is invalid: evaluating it is an error).
type objVector struct {
	json, usage, matches string
}

var podVectors = []objVector{
	{"{\"metadata\":{\"name\":\"plain\",\"namespace\":\"ns\"},\"spec\":{\"containers\":[{\"name\":\"c\",\"image\":\"i\"}]},\"status\":{\"phase\":\"Running\"}}", "count/pods=1,pods=1", "nyynnnnyynnnee"},
	{"{\"metadata\":{\"name\":\"burst\",\"namespace\":\"ns\"},\"spec\":{\"containers\":[{\"name\":\"c1\",\"image\":\"i\",\"resources\":{\"requests\":{\"cpu\":\"100m\",\"memory\":\"1Gi\"},\"limits\":{\"cpu\":\"1\",\"memory\":\"1Gi\"}}},{\"name\":\"c2\",\"image\":\"i\",\"resources\":{\"requests\":{\"cpu\":\"200m\",\"memory\":\"512Mi\"},\"limits\":{\"memory\":\"1Gi\"}}}]},\"status\":{\"phase\":\"Running\"}}", "count/pods=1,cpu=300m,limits.cpu=1,limits.memory=2Gi,memory=1536Mi,pods=1,requests.cpu=300m,requests.memory=1536Mi", "nynynnnyynnnee"},
	{"{\"metadata\":{\"name\":\"guaranteed\",\"namespace\":\"ns\"},\"spec\":{\"priorityClassName\":\"high\",\"containers\":[{\"name\":\"c\",\"image\":\"i\",\"resources\":{\"requests\":{\"cpu\":\"1\",\"memory\":\"1Gi\"},\"limits\":{\"cpu\":\"1\",\"memory\":\"1Gi\"}}}]},\"status\":{\"phase\":\"Running\"}}", "count/pods=1,cpu=1,limits.cpu=1,limits.memory=1Gi,memory=1Gi,pods=1,requests.cpu=1,requests.memory=1Gi", "nynyyyynnnnnee"},
	{"{\"metadata\":{\"name\":\"zero-requests\",\"namespace\":\"ns\"},\"spec\":{\"containers\":[{\"name\":\"c\",\"image\":\"i\",\"resources\":{\"requests\":{\"cpu\":\"0\",\"ephemeral-storage\":\"1Gi\"},\"limits\":{\"ephemeral-storage\":\"2Gi\"}}}]},\"status\":{\"phase\":\"Pending\"}}", "count/pods=1,cpu=0,ephemeral-storage=1Gi,limits.ephemeral-storage=2Gi,pods=1,requests.cpu=0,requests.ephemeral-storage=1Gi", "nyynnnnyynnnee"},
	{"{\"metadata\":{\"name\":\"inits\",\"namespace\":\"ns\"},\"spec\":{\"initContainers\":[{\"name\":\"i1\",\"image\":\"i\",\"resources\":{\"requests\":{\"cpu\":\"500m\"},\"limits\":{\"cpu\":\"2\"}}},{\"name\":\"i2\",\"image\":\"i\",\"resources\":{\"requests\":{\"cpu\":\"50m\",\"memory\":\"3Gi\"}}}],\"containers\":[{\"name\":\"c1\",\"image\":\"i\",\"resources\":{\"requests\":{\"cpu\":\"100m\",\"memory\":\"1Gi\"}}},{\"name\":\"c2\",\"image\":\"i\",\"resources\":{\"requests\":{\"cpu\":\"100m\"}}}]},\"status\":{\"phase\":\"Pending\"}}", "count/pods=1,cpu=500m,limits.cpu=2,memory=3Gi,pods=1,requests.cpu=500m,requests.memory=3Gi", "nynynnnyynnnee"},
	{"{\"metadata\":{\"name\":\"sidecars\",\"namespace\":\"ns\"},\"spec\":{\"initContainers\":[{\"name\":\"s1\",\"image\":\"i\",\"restartPolicy\":\"Always\",\"resources\":{\"requests\":{\"cpu\":\"100m\",\"memory\":\"64Mi\"},\"limits\":{\"cpu\":\"200m\"}}},{\"name\":\"i\",\"image\":\"i\",\"resources\":{\"requests\":{\"cpu\":\"300m\",\"memory\":\"32Mi\"},\"limits\":{\"cpu\":\"1\"}}},{\"name\":\"s2\",\"image\":\"i\",\"restartPolicy\":\"Always\",\"resources\":{\"requests\":{\"cpu\":\"50m\"}}}],\"containers\":[{\"name\":\"c\",\"image\":\"i\",\"resources\":{\"requests\":{\"cpu\":\"200m\",\"memory\":\"128Mi\"},\"limits\":{\"cpu\":\"500m\"}}}]},\"status\":{\"phase\":\"Running\"}}", "count/pods=1,cpu=400m,limits.cpu=1200m,memory=192Mi,pods=1,requests.cpu=400m,requests.memory=192Mi", "nynynnnyynnnee"},
	{"{\"metadata\":{\"name\":\"overhead\",\"namespace\":\"ns\"},\"spec\":{\"overhead\":{\"cpu\":\"10m\",\"memory\":\"64Mi\"},\"containers\":[{\"name\":\"c\",\"image\":\"i\",\"resources\":{\"requests\":{\"cpu\":\"100m\"},\"limits\":{\"cpu\":\"1\"}}}]},\"status\":{\"phase\":\"Running\"}}", "count/pods=1,cpu=110m,limits.cpu=1010m,memory=64Mi,pods=1,requests.cpu=110m,requests.memory=64Mi", "nynynnnyynnnee"},
	{"{\"metadata\":{\"name\":\"overhead-zero-limit\",\"namespace\":\"ns\"},\"spec\":{\"overhead\":{\"cpu\":\"10m\",\"memory\":\"64Mi\"},\"containers\":[{\"name\":\"c\",\"image\":\"i\",\"resources\":{\"requests\":{\"cpu\":\"100m\"},\"limits\":{\"cpu\":\"0\",\"memory\":\"1Gi\"}}}]},\"status\":{\"phase\":\"Running\"}}", "count/pods=1,cpu=110m,limits.cpu=0,limits.memory=1088Mi,memory=64Mi,pods=1,requests.cpu=110m,requests.memory=64Mi", "nynynnnyynnnee"},
	{"{\"metadata\":{\"name\":\"pod-level\",\"namespace\":\"ns\"},\"spec\":{\"resources\":{\"requests\":{\"cpu\":\"2\"},\"limits\":{\"memory\":\"4Gi\"}},\"containers\":[{\"name\":\"c\",\"image\":\"i\",\"resources\":{\"requests\":{\"cpu\":\"100m\",\"memory\":\"1Gi\",\"ephemeral-storage\":\"1Gi\"},\"limits\":{\"cpu\":\"1\"}}}]},\"status\":{\"phase\":\"Running\"}}", "count/pods=1,cpu=2,ephemeral-storage=1Gi,limits.cpu=1,limits.memory=4Gi,memory=1Gi,pods=1,requests.cpu=2,requests.ephemeral-storage=1Gi,requests.memory=1Gi", "nynynnnyynnnee"},
	{"{\"metadata\":{\"name\":\"pod-level-only\",\"namespace\":\"ns\"},\"spec\":{\"resources\":{\"requests\":{\"cpu\":\"1\",\"memory\":\"1Gi\"},\"limits\":{\"cpu\":\"1\",\"memory\":\"1Gi\"}},\"containers\":[{\"name\":\"c\",\"image\":\"i\"}]},\"status\":{\"phase\":\"Running\"}}", "count/pods=1,cpu=1,limits.cpu=1,limits.memory=1Gi,memory=1Gi,pods=1,requests.cpu=1,requests.memory=1Gi", "nynynnnyynnnee"},
	{"{\"metadata\":{\"name\":\"pod-level-besteffort-containers\",\"namespace\":\"ns\"},\"spec\":{\"resources\":{\"requests\":{\"hugepages-2Mi\":\"2Mi\"}},\"containers\":[{\"name\":\"c\",\"image\":\"i\"}]},\"status\":{\"phase\":\"Running\"}}", "count/pods=1,hugepages-2Mi=2Mi,pods=1,requests.hugepages-2Mi=2Mi", "nyynnnnyynnnee"},
	{"{\"metadata\":{\"name\":\"resized\",\"namespace\":\"ns\"},\"spec\":{\"containers\":[{\"name\":\"c\",\"image\":\"i\",\"resources\":{\"requests\":{\"cpu\":\"100m\",\"memory\":\"1Gi\"},\"limits\":{\"cpu\":\"1\"}}}]},\"status\":{\"phase\":\"Running\",\"containerStatuses\":[{\"name\":\"c\",\"image\":\"i\",\"imageID\":\"\",\"ready\":true,\"restartCount\":0,\"allocatedResources\":{\"cpu\":\"300m\",\"memory\":\"1Gi\"},\"resources\":{\"requests\":{\"cpu\":\"200m\",\"memory\":\"2Gi\"},\"limits\":{\"cpu\":\"2\"}}}]}}", "count/pods=1,cpu=300m,limits.cpu=2,memory=2Gi,pods=1,requests.cpu=300m,requests.memory=2Gi", "nynynnnyynnnee"},
	{"{\"metadata\":{\"name\":\"infeasible\",\"namespace\":\"ns\"},\"spec\":{\"containers\":[{\"name\":\"c\",\"image\":\"i\",\"resources\":{\"requests\":{\"cpu\":\"4\",\"memory\":\"8Gi\"},\"limits\":{\"cpu\":\"8\"}}}]},\"status\":{\"phase\":\"Running\",\"conditions\":[{\"type\":\"PodResizePending\",\"status\":\"True\",\"reason\":\"Infeasible\"}],\"containerStatuses\":[{\"name\":\"c\",\"image\":\"i\",\"imageID\":\"\",\"ready\":true,\"restartCount\":0,\"allocatedResources\":{\"cpu\":\"1\"},\"resources\":{\"requests\":{\"cpu\":\"1\"},\"limits\":{\"cpu\":\"2\"}}}]}}", "count/pods=1,cpu=1,limits.cpu=2,pods=1,requests.cpu=1", "nynynnnyynnnee"},
	{"{\"metadata\":{\"name\":\"deferred\",\"namespace\":\"ns\"},\"spec\":{\"containers\":[{\"name\":\"c\",\"image\":\"i\",\"resources\":{\"requests\":{\"cpu\":\"4\"},\"limits\":{\"cpu\":\"8\"}}}]},\"status\":{\"phase\":\"Running\",\"conditions\":[{\"type\":\"PodResizePending\",\"status\":\"True\",\"reason\":\"Deferred\"}],\"containerStatuses\":[{\"name\":\"c\",\"image\":\"i\",\"imageID\":\"\",\"ready\":true,\"restartCount\":0,\"allocatedResources\":{\"cpu\":\"1\"},\"resources\":{\"requests\":{\"cpu\":\"1\"},\"limits\":{\"cpu\":\"2\"}}}]}}", "count/pods=1,cpu=4,limits.cpu=8,pods=1,requests.cpu=4", "nynynnnyynnnee"},
	{"{\"metadata\":{\"name\":\"hugepages\",\"namespace\":\"ns\"},\"spec\":{\"containers\":[{\"name\":\"c\",\"image\":\"i\",\"resources\":{\"requests\":{\"hugepages-2Mi\":\"4Mi\",\"memory\":\"1Gi\"},\"limits\":{\"hugepages-2Mi\":\"4Mi\",\"memory\":\"1Gi\"}}}]},\"status\":{\"phase\":\"Running\"}}", "count/pods=1,hugepages-2Mi=4Mi,limits.memory=1Gi,memory=1Gi,pods=1,requests.hugepages-2Mi=4Mi,requests.memory=1Gi", "nynynnnyynnnee"},
	{"{\"metadata\":{\"name\":\"extended\",\"namespace\":\"ns\"},\"spec\":{\"containers\":[{\"name\":\"c\",\"image\":\"i\",\"resources\":{\"requests\":{\"example.com/gpu\":\"2\",\"deviceclass.resource.kubernetes.io/fast\":\"1\"},\"limits\":{\"example.com/gpu\":\"2\"}}}]},\"status\":{\"phase\":\"Running\"}}", "count/pods=1,pods=1,requests.deviceclass.resource.kubernetes.io/fast=1,requests.example.com/gpu=2", "nyynnnnyynnnee"},
	{"{\"metadata\":{\"name\":\"succeeded\",\"namespace\":\"ns\"},\"spec\":{\"containers\":[{\"name\":\"c\",\"image\":\"i\",\"resources\":{\"requests\":{\"cpu\":\"1\"}}}]},\"status\":{\"phase\":\"Succeeded\"}}", "count/pods=1", "nynynnnyynnnee"},
	{"{\"metadata\":{\"name\":\"failed\",\"namespace\":\"ns\"},\"spec\":{\"activeDeadlineSeconds\":10,\"containers\":[{\"name\":\"c\",\"image\":\"i\",\"resources\":{\"requests\":{\"cpu\":\"1\"}}}]},\"status\":{\"phase\":\"Failed\"}}", "count/pods=1", "ynnynnnyynynee"},
	{"{\"metadata\":{\"name\":\"deleting\",\"namespace\":\"ns\",\"deletionTimestamp\":\"2026-03-01T11:59:50Z\",\"deletionGracePeriodSeconds\":30},\"spec\":{\"containers\":[{\"name\":\"c\",\"image\":\"i\",\"resources\":{\"requests\":{\"cpu\":\"1\"}}}]},\"status\":{\"phase\":\"Running\"}}", "count/pods=1,cpu=1,pods=1,requests.cpu=1", "nynynnnyynnnee"},
	{"{\"metadata\":{\"name\":\"deleted-past-grace\",\"namespace\":\"ns\",\"deletionTimestamp\":\"2026-03-01T11:59:00Z\",\"deletionGracePeriodSeconds\":30},\"spec\":{\"containers\":[{\"name\":\"c\",\"image\":\"i\",\"resources\":{\"requests\":{\"cpu\":\"1\"}}}]},\"status\":{\"phase\":\"Running\"}}", "count/pods=1", "nynynnnyynnnee"},
	{"{\"metadata\":{\"name\":\"terminating-job\",\"namespace\":\"ns\"},\"spec\":{\"activeDeadlineSeconds\":0,\"priorityClassName\":\"low\",\"containers\":[{\"name\":\"c\",\"image\":\"i\",\"resources\":{\"requests\":{\"memory\":\"100M\"}}}]},\"status\":{\"phase\":\"Running\"}}", "count/pods=1,memory=100M,pods=1,requests.memory=100M", "ynnyynyynnynee"},
	{"{\"metadata\":{\"name\":\"qos-in-status\",\"namespace\":\"ns\"},\"spec\":{\"containers\":[{\"name\":\"c\",\"image\":\"i\",\"resources\":{\"requests\":{\"cpu\":\"1\"}}}]},\"status\":{\"phase\":\"Running\",\"qosClass\":\"BestEffort\"}}", "count/pods=1,cpu=1,pods=1,requests.cpu=1", "nyynnnnyynnnee"},
	{"{\"metadata\":{\"name\":\"cross-ns\",\"namespace\":\"ns\"},\"spec\":{\"affinity\":{\"podAntiAffinity\":{\"preferredDuringSchedulingIgnoredDuringExecution\":[{\"weight\":1,\"podAffinityTerm\":{\"namespaceSelector\":{},\"topologyKey\":\"zone\"}}]}},\"containers\":[{\"name\":\"c\",\"image\":\"i\"}]},\"status\":{\"phase\":\"Running\"}}", "count/pods=1,pods=1", "nyynnnnyyynnee"},
	{"{\"metadata\":{\"name\":\"local-affinity\",\"namespace\":\"ns\"},\"spec\":{\"affinity\":{\"podAffinity\":{\"requiredDuringSchedulingIgnoredDuringExecution\":[{\"labelSelector\":{\"matchLabels\":{\"a\":\"b\"}},\"topologyKey\":\"zone\"}]}},\"priorityClassName\":\"high\",\"containers\":[{\"name\":\"c\",\"image\":\"i\",\"resources\":{\"limits\":{\"cpu\":\"1\"}}}]},\"status\":{\"phase\":\"Running\"}}", "count/pods=1,limits.cpu=1,pods=1", "nynyyyynnnnnee"},
	{"{\"metadata\":{\"name\":\"odd-strings\",\"namespace\":\"ns\"},\"spec\":{\"containers\":[{\"name\":\"c\",\"image\":\"i\",\"resources\":{\"requests\":{\"cpu\":\"+1\",\"memory\":\"1.500Gi\"}}}]},\"status\":{\"phase\":\"Running\"}}", "count/pods=1,cpu=+1,memory=1536Mi,pods=1,requests.cpu=+1,requests.memory=1536Mi", "nynynnnyynnnee"},
}

var serviceVectors = []objVector{
	{"{\"metadata\":{\"name\":\"cip\",\"namespace\":\"ns\"},\"spec\":{\"type\":\"ClusterIP\",\"ports\":[{\"port\":80},{\"port\":81}]}}", "count/services=1,services.loadbalancers=0,services.nodeports=0,services=1", ""},
	{"{\"metadata\":{\"name\":\"np\",\"namespace\":\"ns\"},\"spec\":{\"type\":\"NodePort\",\"ports\":[{\"port\":80,\"nodePort\":30080},{\"port\":81,\"nodePort\":30081}]}}", "count/services=1,services.loadbalancers=0,services.nodeports=2,services=1", ""},
	{"{\"metadata\":{\"name\":\"lb\",\"namespace\":\"ns\"},\"spec\":{\"type\":\"LoadBalancer\",\"ports\":[{\"port\":80,\"nodePort\":30080},{\"port\":81,\"nodePort\":30081},{\"port\":82}]}}", "count/services=1,services.loadbalancers=1,services.nodeports=3,services=1", ""},
	{"{\"metadata\":{\"name\":\"lb-no-np\",\"namespace\":\"ns\"},\"spec\":{\"type\":\"LoadBalancer\",\"allocateLoadBalancerNodePorts\":false,\"ports\":[{\"port\":80,\"nodePort\":30080},{\"port\":81}]}}", "count/services=1,services.loadbalancers=1,services.nodeports=1,services=1", ""},
	{"{\"metadata\":{\"name\":\"lb-np-true\",\"namespace\":\"ns\"},\"spec\":{\"type\":\"LoadBalancer\",\"allocateLoadBalancerNodePorts\":true,\"ports\":[{\"port\":80}]}}", "count/services=1,services.loadbalancers=1,services.nodeports=1,services=1", ""},
	{"{\"metadata\":{\"name\":\"ext\",\"namespace\":\"ns\"},\"spec\":{\"type\":\"ExternalName\",\"externalName\":\"x.example.com\"}}", "count/services=1,services.loadbalancers=0,services.nodeports=0,services=1", ""},
}

var pvcVectors = []objVector{
	{"{\"metadata\":{\"name\":\"plain\",\"namespace\":\"ns\"},\"spec\":{\"resources\":{\"requests\":{\"storage\":\"1Gi\"}}}}", "count/persistentvolumeclaims=1,persistentvolumeclaims=1,requests.storage=1Gi", "nynnynn"},
	{"{\"metadata\":{\"name\":\"class\",\"namespace\":\"ns\"},\"spec\":{\"storageClassName\":\"gold\",\"resources\":{\"requests\":{\"storage\":\"1.5\"}}}}", "count/persistentvolumeclaims=1,gold.storageclass.storage.k8s.io/persistentvolumeclaims=1,gold.storageclass.storage.k8s.io/requests.storage=2,persistentvolumeclaims=1,requests.storage=2", "nynnynn"},
	{"{\"metadata\":{\"name\":\"beta\",\"namespace\":\"ns\",\"annotations\":{\"volume.beta.kubernetes.io/storage-class\":\"silver\"}},\"spec\":{\"storageClassName\":\"gold\",\"resources\":{\"requests\":{\"storage\":\"10G\"}}}}", "count/persistentvolumeclaims=1,persistentvolumeclaims=1,requests.storage=10G,silver.storageclass.storage.k8s.io/persistentvolumeclaims=1,silver.storageclass.storage.k8s.io/requests.storage=10G", "nynnynn"},
	{"{\"metadata\":{\"name\":\"empty-class\",\"namespace\":\"ns\"},\"spec\":{\"storageClassName\":\"\",\"resources\":{\"requests\":{\"storage\":\"1Gi\"}}}}", "count/persistentvolumeclaims=1,persistentvolumeclaims=1,requests.storage=1Gi", "nynnynn"},
	{"{\"metadata\":{\"name\":\"expanding\",\"namespace\":\"ns\"},\"spec\":{\"storageClassName\":\"gold\",\"resources\":{\"requests\":{\"storage\":\"1Gi\"}}},\"status\":{\"allocatedResources\":{\"storage\":\"2Gi\"}}}", "count/persistentvolumeclaims=1,gold.storageclass.storage.k8s.io/persistentvolumeclaims=1,gold.storageclass.storage.k8s.io/requests.storage=2Gi,persistentvolumeclaims=1,requests.storage=2Gi", "nynnynn"},
	{"{\"metadata\":{\"name\":\"shrunk\",\"namespace\":\"ns\"},\"spec\":{\"resources\":{\"requests\":{\"storage\":\"2Gi\"}}},\"status\":{\"allocatedResources\":{\"storage\":\"1Gi\"}}}", "count/persistentvolumeclaims=1,persistentvolumeclaims=1,requests.storage=2Gi", "nynnynn"},
	{"{\"metadata\":{\"name\":\"alloc-frac\",\"namespace\":\"ns\"},\"spec\":{\"resources\":{\"requests\":{\"storage\":\"1\"}}},\"status\":{\"allocatedResources\":{\"storage\":\"1500m\"}}}", "count/persistentvolumeclaims=1,persistentvolumeclaims=1,requests.storage=2", "nynnynn"},
	{"{\"metadata\":{\"name\":\"no-request\",\"namespace\":\"ns\"},\"spec\":{\"storageClassName\":\"gold\"}}", "count/persistentvolumeclaims=1,gold.storageclass.storage.k8s.io/persistentvolumeclaims=1,persistentvolumeclaims=1", "nynnynn"},
	{"{\"metadata\":{\"name\":\"vac\",\"namespace\":\"ns\"},\"spec\":{\"volumeAttributesClassName\":\"fast\",\"resources\":{\"requests\":{\"storage\":\"1Gi\"}}}}", "count/persistentvolumeclaims=1,persistentvolumeclaims=1,requests.storage=1Gi", "ynynnnn"},
	{"{\"metadata\":{\"name\":\"vac-modifying\",\"namespace\":\"ns\"},\"spec\":{\"volumeAttributesClassName\":\"fast\",\"resources\":{\"requests\":{\"storage\":\"1Gi\"}}},\"status\":{\"currentVolumeAttributesClassName\":\"slow\",\"modifyVolumeStatus\":{\"targetVolumeAttributesClassName\":\"fast\",\"status\":\"InProgress\"}}}", "count/persistentvolumeclaims=1,persistentvolumeclaims=1,requests.storage=1Gi", "ynyyynn"},
	{"{\"metadata\":{\"name\":\"odd\",\"namespace\":\"ns\"},\"spec\":{\"resources\":{\"requests\":{\"storage\":\"+1Gi\"}}}}", "count/persistentvolumeclaims=1,persistentvolumeclaims=1,requests.storage=+1Gi", "nynnynn"},
}

// matchingVector is an evaluator's MatchingResources of matchingNames,
// sorted.
type matchingVector struct{ resource, names string }

// matchingNames are the hard names the matching vectors offer.
var matchingNames = []string{"pods", "count/pods", "cpu", "requests.cpu", "limits.cpu", "memory", "limits.memory", "hugepages-1Gi", "requests.hugepages-2Mi",
	"requests.example.com/gpu", "limits.example.com/gpu", "requests.deviceclass.resource.kubernetes.io/fast", "requests.kubernetes.io/x", "requests.storage",
	"persistentvolumeclaims", "count/persistentvolumeclaims", "gold.storageclass.storage.k8s.io/requests.storage", "gold.storageclass.storage.k8s.io/persistentvolumeclaims",
	"services", "count/services", "services.nodeports", "services.loadbalancers", "secrets", "count/secrets", "configmaps", "count/deployments.apps", "storage"}

var matchingVectors = []matchingVector{
	{"pods", "count/pods,cpu,hugepages-1Gi,limits.cpu,limits.memory,memory,pods,requests.cpu,requests.deviceclass.resource.kubernetes.io/fast,requests.example.com/gpu,requests.hugepages-2Mi"},
	{"services", "count/services,services,services.loadbalancers,services.nodeports"},
	{"persistentvolumeclaims", "count/persistentvolumeclaims,gold.storageclass.storage.k8s.io/persistentvolumeclaims,gold.storageclass.storage.k8s.io/requests.storage,persistentvolumeclaims,requests.storage"},
}

// quotaHard are the hard names of the quota vectors' quota.
var quotaHard = []string{"pods", "count/pods", "cpu", "memory", "requests.cpu", "requests.memory", "limits.cpu", "limits.memory",
	"ephemeral-storage", "requests.ephemeral-storage", "limits.ephemeral-storage", "hugepages-2Mi", "requests.hugepages-2Mi",
	"requests.example.com/gpu", "requests.deviceclass.resource.kubernetes.io/fast", "limits.example.com/gpu", "secrets", "services"}

// quotaVector is CalculateUsage over a namespace holding every pod of
// podVectors, with a registry of the pod evaluator only: the quota's
// scopes, its selector (indexes into scopeSelectors), the usage, and
// whether 30 runs printed the same strings (upstream's sum takes the
// format of the first term its cache lists; unstable vectors are compared
// by value).
type quotaVector struct {
	scopes, selector, usage string
	stable                  bool
}

var quotaVectors = []quotaVector{
	{"", "", "count/pods=25,cpu=13720m,ephemeral-storage=2Gi,hugepages-2Mi=6Mi,limits.cpu=21210m,limits.ephemeral-storage=2Gi,limits.memory=10304Mi,memory=13320446208,pods=22,requests.cpu=13720m,requests.deviceclass.resource.kubernetes.io/fast=1,requests.ephemeral-storage=2Gi,requests.example.com/gpu=2,requests.hugepages-2Mi=6Mi,requests.memory=13320446208", true},
	{"Terminating", "", "count/pods=2,cpu=0,ephemeral-storage=0,hugepages-2Mi=0,limits.cpu=0,limits.ephemeral-storage=0,limits.memory=0,memory=100M,pods=1,requests.cpu=0,requests.deviceclass.resource.kubernetes.io/fast=0,requests.ephemeral-storage=0,requests.example.com/gpu=0,requests.hugepages-2Mi=0,requests.memory=100M", true},
	{"NotTerminating", "", "count/pods=23,cpu=13720m,ephemeral-storage=2Gi,hugepages-2Mi=6Mi,limits.cpu=21210m,limits.ephemeral-storage=2Gi,limits.memory=10304Mi,memory=12608Mi,pods=21,requests.cpu=13720m,requests.deviceclass.resource.kubernetes.io/fast=1,requests.ephemeral-storage=2Gi,requests.example.com/gpu=2,requests.hugepages-2Mi=6Mi,requests.memory=12608Mi", true},
	{"BestEffort", "", "count/pods=6,cpu=1,ephemeral-storage=1Gi,hugepages-2Mi=2Mi,limits.cpu=0,limits.ephemeral-storage=2Gi,limits.memory=0,memory=0,pods=6,requests.cpu=1,requests.deviceclass.resource.kubernetes.io/fast=1,requests.ephemeral-storage=1Gi,requests.example.com/gpu=2,requests.hugepages-2Mi=2Mi,requests.memory=0", true},
	{"NotBestEffort", "", "count/pods=19,cpu=12720m,ephemeral-storage=1Gi,hugepages-2Mi=4Mi,limits.cpu=21210m,limits.ephemeral-storage=0,limits.memory=10304Mi,memory=13320446208,pods=16,requests.cpu=12720m,requests.deviceclass.resource.kubernetes.io/fast=0,requests.ephemeral-storage=1Gi,requests.example.com/gpu=0,requests.hugepages-2Mi=4Mi,requests.memory=13320446208", true},
	{"NotTerminating,NotBestEffort", "", "count/pods=17,cpu=12720m,ephemeral-storage=1Gi,hugepages-2Mi=4Mi,limits.cpu=21210m,limits.ephemeral-storage=0,limits.memory=10304Mi,memory=12608Mi,pods=15,requests.cpu=12720m,requests.deviceclass.resource.kubernetes.io/fast=0,requests.ephemeral-storage=1Gi,requests.example.com/gpu=0,requests.hugepages-2Mi=4Mi,requests.memory=12608Mi", true},
	{"", "5", "count/pods=2,cpu=1,ephemeral-storage=0,hugepages-2Mi=0,limits.cpu=2,limits.ephemeral-storage=0,limits.memory=1Gi,memory=1Gi,pods=2,requests.cpu=1,requests.deviceclass.resource.kubernetes.io/fast=0,requests.ephemeral-storage=0,requests.example.com/gpu=0,requests.hugepages-2Mi=0,requests.memory=1Gi", true},
	{"", "7", "count/pods=23,cpu=12720m,ephemeral-storage=2Gi,hugepages-2Mi=6Mi,limits.cpu=19210m,limits.ephemeral-storage=2Gi,limits.memory=9280Mi,memory=12246704384,pods=20,requests.cpu=12720m,requests.deviceclass.resource.kubernetes.io/fast=1,requests.ephemeral-storage=2Gi,requests.example.com/gpu=2,requests.hugepages-2Mi=6Mi,requests.memory=12246704384", true},
	{"", "8", "count/pods=22,cpu=12720m,ephemeral-storage=2Gi,hugepages-2Mi=6Mi,limits.cpu=19210m,limits.ephemeral-storage=2Gi,limits.memory=9280Mi,memory=11584Mi,pods=19,requests.cpu=12720m,requests.deviceclass.resource.kubernetes.io/fast=1,requests.ephemeral-storage=2Gi,requests.example.com/gpu=2,requests.hugepages-2Mi=6Mi,requests.memory=11584Mi", true},
	{"", "9", "count/pods=1,cpu=0,ephemeral-storage=0,hugepages-2Mi=0,limits.cpu=0,limits.ephemeral-storage=0,limits.memory=0,memory=0,pods=1,requests.cpu=0,requests.deviceclass.resource.kubernetes.io/fast=0,requests.ephemeral-storage=0,requests.example.com/gpu=0,requests.hugepages-2Mi=0,requests.memory=0", true},
	{"NotBestEffort", "6", "count/pods=3,cpu=1,ephemeral-storage=0,hugepages-2Mi=0,limits.cpu=2,limits.ephemeral-storage=0,limits.memory=1Gi,memory=1173741824,pods=3,requests.cpu=1,requests.deviceclass.resource.kubernetes.io/fast=0,requests.ephemeral-storage=0,requests.example.com/gpu=0,requests.hugepages-2Mi=0,requests.memory=1173741824", true},
	{"", "12", "count/pods=0,cpu=0,ephemeral-storage=0,hugepages-2Mi=0,limits.cpu=0,limits.ephemeral-storage=0,limits.memory=0,memory=0,pods=0,requests.cpu=0,requests.deviceclass.resource.kubernetes.io/fast=0,requests.ephemeral-storage=0,requests.example.com/gpu=0,requests.hugepages-2Mi=0,requests.memory=0", true},
	{"", "3,13", "count/pods=0,cpu=0,ephemeral-storage=0,hugepages-2Mi=0,limits.cpu=0,limits.ephemeral-storage=0,limits.memory=0,memory=0,pods=0,requests.cpu=0,requests.deviceclass.resource.kubernetes.io/fast=0,requests.ephemeral-storage=0,requests.example.com/gpu=0,requests.hugepages-2Mi=0,requests.memory=0", true},
}
