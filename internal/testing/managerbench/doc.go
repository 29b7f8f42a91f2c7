// Package managerbench measures a controller-manager as an operator meets
// it: a separate process started against a real cluster, timed from the
// outside, its memory and CPU read from the kernel. It runs kcm (the
// binary built from this tree) and kube-controller-manager (the binary
// testenv builds at testenv.KubernetesVersion) the same way, on the same
// machine, in the same run, with the same --controllers, and reports both
// side by side. `make bench-manager` runs it through cmd/kcm-bench; it is
// not part of `make test`.
//
// # Where it sits
//
// Above everything: it drives whole managers and a whole cluster.
//
//	kcm-bench ──▶ testenv.Cluster (etcd + kube-apiserver) ◀── manager process (kcm | kube-controller-manager)
//	    │  creates objects, watches pods (its own unthrottled client)        ▲
//	    └──────────── /proc/<pid>/status, /proc/<pid>/stat, log lines ────────┘
//
// # The benchmarks
//
// Scale (issue 9: "a Deployment of 1000 replicas to 1000 pods at QPS 20,
// burst 30"): on a fresh cluster, each run starts the manager with
// --kube-api-qps=20 --kube-api-burst=30 (kube-controller-manager's
// defaults), waits until it is working (the probe, below), creates a
// Deployment of 1000 replicas in a fresh namespace and times, from the
// create request, the ADDED events of its pods on a watch: the first and
// the 1000th. The pods are then deleted, so every run starts alike.
//
// Sync ("resident memory and CPU to reach synced caches on a cluster of
// 10k pods in 100 Deployments"): a second fresh cluster is populated once
// — 10 namespaces × 10 Deployments × 100 replicas — by
// kube-controller-manager itself at a high QPS, so that the ReplicaSets,
// pods, annotations and statuses are exactly what a manager makes; every
// pod is then marked Ready through the status subresource (no kubelet
// runs) and the harness waits until every Deployment reports all its pods
// available, then stops the populating manager. The cluster is now at
// rest. Each run starts one manager on it and samples, at the probe and
// again after a settle period, VmRSS (resident now), VmHWM (peak
// resident) and utime+stime (CPU seconds). It also counts the watch
// events on the populated objects while the manager runs: a manager that
// agrees with what it finds writes nothing, so a non-zero count shows
// work the numbers include.
// For kcm it also reads the heap profile (--profiling's
// /debug/pprof/heap?debug=1, the text form) right after the probe's
// sample, and again after the settle period's sample with a collection
// forced first, and lists each one's top entries (ParseHeapProfile). kcm
// runs with --authentication-kubeconfig and --authorization-kubeconfig set
// to the bench cluster's kubeconfig, and the harness reads its port with a
// system:masters client certificate of the cluster's client CA;
// kube-controller-manager runs without them here, so it lets nobody read
// its profiles or /metrics (its default with no kubeconfig outside a pod).
//
// Endpoints (issue 29: "1000 Services × 10 pods on kwok nodes — time from
// the last pod Ready to the last slice written, and writes per pod update
// during a rolling update"): each run gives each manager a fresh cluster
// of its own with kwok nodes in three zones (testenv.AddNodes; no
// scheduler: the harness binds each pod to a node itself, kwok makes it
// Running and Ready with an IP) and runs it with the endpoint controllers:
// kube-controller-manager with its three (endpoints, endpointslice,
// endpointslice-mirroring), kcm with those of them it has (read from its
// --help; when it lacks some, a third run gives kube-controller-manager
// exactly kcm's set, for a like-for-like comparison). A probe Service
// with one pod shows the manager working; then the harness creates the
// Services and their pods, and its watches of pods, Endpoints and
// EndpointSlices (esTracker) give the moment the last pod turned Ready,
// the moment every Service's Endpoints (and slices) listed all its pods
// ready, and — after a settle period — the last write of each kind.
// Then one Service's pods are replaced one at a time, and the events of
// its pods, Endpoints and slices during it are counted: writes per pod
// update. Memory and CPU are sampled at the probe, after the fill and at
// the end. A manager without an endpointslice-controller gets no slice
// numbers: its cells say "kcm: no endpointslice-controller".
//
// StatefulSets (issue 30: "100 StatefulSets × 3 replicas on kwok nodes —
// time to all Ready and the manager's RSS and CPU"): each run gives each
// manager a fresh cluster of its own with kwok nodes in three zones and
// runs it with the statefulset-controller alone. No scheduler runs: each
// set's template names its node (the sets round-robin over the nodes),
// and kwok makes the pods Running and Ready. A probe set of one replica,
// created before the start, shows the manager working; then the harness
// creates the sets (OrderedReady by default, --sts-parallel for
// Parallel) and its watches of pods, StatefulSets and ControllerRevisions
// (stsTracker) give the moment the last pod turned Ready and the moment
// every set's status, written for its generation, said all its replicas
// ready with all its pods Ready. Then every set's image is changed and
// the harness times the rollout to the moment every set reports the new
// revision current on all replicas. It counts pod creates and deletes,
// status writes (StatefulSet events at an unchanged generation) and
// ControllerRevisions, and samples memory and CPU at the probe, after
// the fill and at the end. --sts-managers runs one manager alone (a kcm
// without a statefulset-controller is refused).
//
// Nodes (issue 31: "100 kwok nodes with 3000 pods; 10 nodes stop
// heartbeating — time until their taints and pod readiness are set ...
// and the manager's RSS and CPU while monitoring"): each run gives each
// manager a fresh cluster with NLWorkload.Nodes kwok nodes in three zones
// and NLWorkload.Pods pods bound round-robin to them; once every pod is
// Ready the manager starts with node-lifecycle-controller and
// taint-eviction-controller and the same --node-monitor-grace-period,
// watches the healthy cluster for NLWorkload.Monitor, then
// testenv.PauseHeartbeat silences NLWorkload.Silent nodes spread over the
// zones (each fenced with one last Lease renewal, so the grace period
// runs from the pause). The harness's watches of nodes and pods
// (nlTracker) give, from the first pause call, when each silent node
// first carried the NoExecute unreachable (or not-ready) taint and when
// each of their pods was first seen Ready=False or deleted; a taint on a
// healthy node is counted as wrong. CPU is taken over the healthy period
// and over the outage, memory at their ends.
//
// Quotas (issue 32: "1000 namespaces, each with a quota and 10 pods; time
// from creating the quotas to all status.used correct, and after deleting
// 1000 pods, to all corrected"): each run gives each manager a fresh
// cluster (no nodes: the pods stay Pending, which quota counts) holding
// RQWorkload.Namespaces namespaces of RQWorkload.PodsPerNamespace pods
// and a probe quota in a namespace of its own; the manager starts with
// the resourcequota-controller alone and the probe reports its usage.
// Then one ResourceQuota (pods, requests.cpu, requests.memory) per
// namespace is created, and later RQWorkload.DeletePerNamespace pods of
// each deleted. The harness's watch of ResourceQuotas (rqTracker) gives,
// from the first create and from the first delete, when each quota's
// status.used first equalled the usage the harness expects from the pods
// it made (compared as quantities), and counts the quotas' writes.
//
// # The same criterion for "synced"
//
// The managers signal sync differently: kcm logs "caches synced; starting
// controllers" once; kube-controller-manager logs "Caches are synced for
// <controller>" once per controller, and serves no readiness endpoint for
// it. Both lines are recorded (the last one's time), but the moment the
// samples are taken is the probe, a criterion that holds for both: before
// the manager starts, the harness creates a 1-replica Deployment in a new
// namespace; the probe fires when that Deployment's pod appears on a
// watch. By then the manager's Deployment and ReplicaSet controllers have
// synced their caches (neither acts before) and each has done one sync.
//
// # Fairness
//
// Both managers get the same flags where both have them: --kubeconfig,
// --controllers, --leader-elect=false (a new process would otherwise wait
// out the Lease its predecessor held), HTTPS serving on a loopback port,
// --kube-api-qps/--kube-api-burst. Everything else is each one's default:
// kube-controller-manager asks for protobuf, kcm speaks JSON; both log at
// verbosity 0. Runs alternate the order of the managers. The harness's
// own client is unthrottled and its cost is not counted (it is another
// process). The machine's load average is recorded before and after each
// benchmark: on a shared machine, times stretch with the load; memory
// does not.
//
// # Pure parts
//
// ParseStatus, ParseStat, ParseLoadAvg, Summarize, Table, LineWatcher,
// KnownControllers, the endpoints, StatefulSet, nodes and quotas
// benchmarks' trackers (fed events by hand; watchState is what they
// share) and their reports, CPUShare, NLWorkload and RQWorkload (its
// expected usage) are pure and unit-tested; the rest needs a cluster and is
// exercised by running it.
package managerbench
