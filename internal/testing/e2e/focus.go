package e2e

import "strings"

// Group is a set of upstream specs run because they exercise one of kcm's
// controllers.
type Group struct {
	// Pattern is a ginkgo --focus regular expression.
	Pattern string
	// Controller is the kcm controller the specs exercise.
	Controller string
	// Why says what the specs check of that controller.
	Why string
}

// Exclusion is a set of specs inside a Group that are not run, with the
// reason.
type Exclusion struct {
	Pattern string
	Why     string
}

// Groups are the specs `make e2e` runs: every spec of the upstream
// Describe blocks that are about kcm's controllers. Each test namespace
// the framework creates also waits for its "default" ServiceAccount and
// its kube-root-ca.crt ConfigMap, so every spec exercises the
// serviceaccount controller and root-ca-cert-publisher as well. The
// upstream suite has no spec of its own for serviceaccount-token-controller
// (legacy token Secrets) or legacy-serviceaccount-token-cleaner: kcm's
// differential tests compare those with kube-controller-manager.
var Groups = []Group{
	{`\[sig-apps\] Deployment `, "deployment-controller",
		"rollouts (rolling, recreate, rollover, proportional scaling), revision history cleanup, adoption and orphaning of ReplicaSets, the scale subresource, status"},
	{`\[sig-apps\] ReplicaSet `, "replicaset-controller",
		"creating and deleting pods, adoption and release of pods, the ReplicaFailure condition under a quota, scale, status"},
	{`\[sig-api-machinery\] Garbage collector `, "garbage-collector-controller",
		"background and foreground cascading deletion, orphaning, dependency circles, owners of custom resources (with kube-controller-manager's replication, cronjob and job controllers as owners' controllers)"},
	{`\[sig-api-machinery\] Namespaces `, "namespace-controller",
		"deleting a namespace's content and the namespace, finalizers, namespace status, deletion throughput (100 namespaces)"},
	{`\[sig-api-machinery\] OrderedNamespaceDeletion `, "namespace-controller",
		"pods are deleted before the other resources of a namespace"},
	{`\[sig-auth\] ServiceAccounts `, "serviceaccount-controller",
		"the default ServiceAccount of each namespace, no legacy token Secrets, ServiceAccount lifecycle"},
	{`\[sig-auth\] ServiceAccounts should guarantee kube-root-ca\.crt exist in any namespace`, "root-ca-certificate-publisher-controller",
		"kube-root-ca.crt in the test namespace, created again after its deletion and its ca.crt restored after an update " +
			"that replaces its data (every spec's namespace also waits for kube-root-ca.crt before the spec starts, so " +
			"with kcm no spec needs kube-controller-manager's publisher)"},
	{`\[sig-api-machinery\] ResourceQuota `, "resourcequota-controller",
		"status.hard and status.used, promptly calculated and recalculated on create and delete: object counts " +
			"(services, secrets, configMaps, replication controllers, replica sets, persistent volume claims with and " +
			"without a storage class, a custom resource, ResourceClaims per device class), pods' compute resources, " +
			"the Terminating, NotTerminating, BestEffort, NotBestEffort, PriorityClass, CrossNamespacePodAffinity and " +
			"VolumeAttributesClass scopes and scope selectors, update and deletion of a quota, status put back after " +
			"a client patches it"},
	{`\[sig-network\] EndpointsController `, "endpoints-controller",
		"Endpoints created for a Service's pods, emptied and deleted with them and the Service"},
	{`\[sig-network\] Endpoints `, "endpoints-controller",
		"the Endpoints API lifecycle (create, list, patch, delete) on a selector-less Service, left alone by the controller"},
	{`\[sig-network\] EndpointSlice `, "endpointslice-controller",
		"EndpointSlices (and Endpoints) created for a Service's pods and deleted with them, the managed-by and service-name labels, the EndpointSlice API operations"},
	{`\[sig-network\] EndpointSliceMirroring `, "endpointslice-mirroring-controller",
		"a selector-less Service's custom Endpoints mirrored into EndpointSlices through create, update and delete"},
	{`\[sig-apps\] StatefulSet `, "statefulset-controller",
		"canary and phased rolling updates with a partition (a deleted pod restored at its revision), maxUnavailable, OnDelete, " +
			"start ordinals, minReadySeconds and availableReplicas, claim retention (WhenDeleted, WhenScaled, claims owned by " +
			"another controller, adopted pods), the scale subresource, list/patch/delete, status"},
	{`\[sig-node\] NoExecuteTaintManager (Single Pod|Multiple Pods) `, "taint-eviction-controller",
		"pods on a node with a NoExecute taint deleted at once without a toleration, after their tolerationSeconds with one, " +
			"never with an unbounded one, the eviction cancelled when the taint goes, the DisruptionTarget condition"},
	{`\[sig-node\] Pod garbage collector `, "pod-garbage-collector-controller",
		"1000 terminated pods collected down to --terminated-pod-gc-threshold (100, set on both managers as upstream's test clusters do)"},
	{`\[sig-node\] Node Lifecycle `, "node-lifecycle-controller",
		"a node created, read, patched, updated and deleted through the API while the controller watches it (a new node without " +
			"a Lease is within its startup grace period and must not be tainted or changed under the spec)"},
}

// Exclusions are the specs of Groups that are not run: they test the
// kubelet's token volume through a container's files or output, which
// kwok's nodes do not have, and nothing of the serviceaccount controller
// beyond the default ServiceAccount that every spec waits for; or they
// drive a StatefulSet's pods through kubectl exec, probes or a kubelet's
// admission, which kwok's nodes do not have either, and would only fail
// after minutes of retries; or they test an alpha feature that is off.
var Exclusions = []Exclusion{
	{`\[sig-auth\] ServiceAccounts should mount an API token into pods`,
		"reads the token, CA and namespace files inside a running container (kubectl exec): kubelet's token volume, needs a real container"},
	{`\[sig-auth\] ServiceAccounts should mount projected service account token`,
		"a container prints the projected token file and the spec reads its log: kubelet's projected volume, needs a real container"},
	{`\[sig-auth\] ServiceAccounts should set ownership `,
		"containers print the token files' owner and mode: kubelet's volume ownership, needs real containers"},
	{`\[sig-auth\] ServiceAccounts should support InClusterConfig with token rotation`,
		"a container calls the API with its rotated token and the spec reads its log: needs a real container (and is [Slow])"},
	{`\[sig-auth\] ServiceAccounts ServiceAccountIssuerDiscovery`,
		"a container fetches the OIDC discovery document and must exit 0: needs a real container"},
	{`\[sig-network\] EndpointSlice should support a Service with multiple (ports|endpoint IPs) specified in multiple EndpointSlices`,
		"a pod connects to the Service's cluster IP through kubectl exec (execHostnameTest) and must reach agnhost in the backend: needs real containers and kube-proxy; the slices are the test's own, no controller writes them"},
	{`\[sig-network\] EndpointSliceMirroring should mirror a custom Endpoint with multiple subsets and same IP address`,
		"after the mirrored slices exist, a pod connects to the Service's cluster IP through kubectl exec (execHostnameTest): needs real containers and kube-proxy"},
	{`\[sig-apps\] StatefulSet StatefulSet Recreate Update Strategy `,
		"the Recreate strategy is behind the alpha gate StatefulSetRecreateStrategy, off by default in 1.37 (kube-apiserver " +
			"and kube-controller-manager run with default gates here), and kcm does not implement it (issue 30)"},
	{`\[sig-apps\] StatefulSet Basic StatefulSet functionality \[StatefulSetBasic\] (Burst scaling|Scaling should happen in predictable order)`,
		"makes pods unready by moving the file their HTTP readiness probe serves through kubectl exec (breakHTTPProbe), " +
			"retrying the exec for 5 minutes per pod: needs real containers and a kubelet that runs probes (and is [Slow])"},
	{`\[sig-apps\] StatefulSet Basic StatefulSet functionality \[StatefulSetBasic\] should perform rolling updates and roll backs of template modifications`,
		"makes a pod unready through kubectl exec (breakPodHTTPProbe in rollbackTest), retried for 5 minutes: needs a real " +
			"container and a kubelet that runs probes (the with-PVCs variant too)"},
	{`\[sig-apps\] StatefulSet Basic StatefulSet functionality \[StatefulSetBasic\] (should provide basic identity|should adopt matching orphans|should not deadlock when a pod's predecessor fails)`,
		"pauses new pods with an exec readiness probe (PauseNewPods) and waits for each pod Running but not Ready before " +
			"resuming it through kubectl exec (Saturate, ResumeNextPod; basic identity also writes files in the pods): kwok " +
			"makes every pod Ready at once and runs no exec, so the wait times out after 10 minutes"},
	{`\[sig-apps\] StatefulSet Deploy clustered applications `,
		"runs CockroachDB and reads and writes it through kubectl exec: needs real containers (and is [Slow])"},
	{`\[sig-apps\] StatefulSet Basic StatefulSet functionality \[StatefulSetBasic\] should perform canary updates and phased rolling updates of template modifications for partiton1 and delete pod-0`,
		"deletes pod-0, held by a finalizer, and waits for readyReplicas to drop to 2 (deletingPodForRollingUpdatePartitionTest): " +
			"a kubelet stops a deleted pod's containers so the pod turns unready; kwok leaves a terminating pod Running and " +
			"Ready, readyReplicas stays 3 and the wait times out after 10 minutes (seen under kube-controller-manager; both variants)"},
	{`\[sig-apps\] StatefulSet Automatically recreate PVC for pending pod when PVC is missing `,
		"deletes the pod, waits for status.currentReplicas 1 — already true, so the wait returns at once — and Gets the pod " +
			"(statefulset.go:2055): a kubelet keeps a deleted pod terminating for its grace period, kwok removes it at once, " +
			"so the Get finds a pod only if the controller recreated it within milliseconds. Flaky under both managers on " +
			"kwok: 'pods \"ss-0\" not found' in 2 of 5 runs under kube-controller-manager and 3 of 5 under kcm (2026-12-06)"},
	{`\[sig-apps\] StatefulSet Basic StatefulSet functionality \[StatefulSetBasic\] Should recreate evicted statefulset`,
		"needs a kubelet that rejects the set's pod for a host port another pod on the node holds (phase Failed), which the " +
			"controller must then replace; kwok admits every pod and makes it Running, so the spec waits 5 minutes for a " +
			"deletion that never comes"},
}

// Focus is the --ginkgo.focus expression of the groups.
func Focus(groups []Group) string {
	parts := make([]string, len(groups))
	for i, g := range groups {
		parts[i] = g.Pattern
	}
	return strings.Join(parts, "|")
}

// Skip is the --ginkgo.skip expression of the exclusions.
func Skip(ex []Exclusion) string {
	parts := make([]string, len(ex))
	for i, e := range ex {
		parts[i] = e.Pattern
	}
	return strings.Join(parts, "|")
}
