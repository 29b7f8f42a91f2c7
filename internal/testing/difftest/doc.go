// Package difftest is differential testing of controller-managers: it runs
// one scenario under kcm and again under kube-controller-manager, the
// implementation kcm's controllers follow, records what the controllers
// leave behind and how they got there, and reports every difference in a
// form a person can read.
//
// A unit test checks a controller against what its author believes
// Kubernetes does; a differential test checks it against what Kubernetes
// does. The reference is the real kube-controller-manager binary at
// testenv.KubernetesVersion, built from the Go module proxy like
// kube-apiserver (testenv.EnsureControllerManager) and started with
// testenv's Cluster.StartKubeControllerManager.
//
// # Where it sits
//
//	            ┌── manager A (kcm, in process) ──┐        ┌── manager B (kube-controller-manager) ──┐
//	scenario ──▶│ fresh testenv cluster            │        │ fresh testenv cluster                    │◀── scenario
//	 driver     │   Observer (watches) ─▶ Timeline │        │   Observer (watches) ─▶ Timeline         │   driver
//	            │   LIST at the end ─▶ Normalize   │        │   LIST at the end ─▶ Normalize           │
//	            └───────────────┬──────────────────┘        └───────────────┬──────────────────────────┘
//	                            └──────────── Compare: DiffSnapshots, DiffSpecs, invariants ──▶ Report
//
// It is internal because it imports kcm's controllers (and later kcm's
// manager) to run them: it sits above ctrl in the layering, so it cannot
// live in testenv, which sits below kube/rest and is imported by its
// tests; and no user of kcm needs it.
//
// # One cluster per manager
//
// Controllers are cluster-wide. Two managers on one cluster would both
// reconcile every namespace; one after the other, the second would find
// and act on what the first left, and cluster-scoped state (namespaces,
// their ServiceAccounts) would differ. So each manager runs on a fresh
// cluster (RunOnFreshCluster), which costs a few seconds, and all of a
// test's scenarios run under it, each in its own namespace.
//
// # What is compared
//
//   - Objects (Normalize, DiffSnapshots). After a scenario, the objects of
//     the resources it names are listed and normalised: what the server
//     assigns (uids, resourceVersions, managedFields, timestamps,
//     generated name suffixes) is removed or replaced by a placeholder,
//     and the pod-template hash, which another implementation may compute
//     differently, becomes "<hash:rev N>" everywhere it appears. Generation
//     and observedGeneration stay: they count spec writes. Every label and
//     annotation stays. Each object is rendered as YAML and the two sides
//     are diffed line by line. Allowances name deliberate differences, each
//     with its reason.
//   - Timelines (Observer, Timeline, DiffSpecs, invariants). While the
//     scenario runs, watches on the namespace's ReplicaSets and pods
//     record two streams, each in commit order: the sequence of
//     spec.replicas per ReplicaSet (the controller's decisions), and the
//     pod counts per template (the consequences). Timing differs between
//     runs, so exact snapshots at exact moments are not comparable; the
//     harness makes the decisions independent of timing instead. The
//     rolling-update driver marks one pod Ready at a time and only when
//     the controllers have settled (Settled: every ReplicaSet and the
//     Deployment have observed their generation and report exactly what
//     the pods are), so each scaling decision sees one more Ready pod
//     than the last and the decision sequence is deterministic; it is
//     compared exactly. The pod stream depends on timing (batches,
//     deletions), so it is not compared across runs but checked, on each
//     side, against the strategy's guarantees at every step: never fewer
//     than replicas − maxUnavailable Ready pods and never more than
//     replicas + maxSurge in the ReplicaSets' specs during a rolling
//     update; never pods of two templates at once during Recreate.
//
// # Driving without a kubelet
//
// The test cluster has no kubelet and no scheduler. The driver plays the
// kubelet's part through the pods' status subresource (phase Running,
// Ready and ContainersReady True); pods are never bound to a node, and
// kube-apiserver deletes unbound pods at once, so scale-downs complete
// without a kubelet too.
//
// # Proving the harness can fail
//
// TestKCMAgreesWithItself runs the workload scenarios twice under
// kube-controller-manager and requires no difference — evidence that the
// normaliser removes only what varies between runs and that the timeline
// comparison does not depend on timing — and then tampers with a
// recording and requires a difference. The unit tests check the
// normaliser, the diff and the timeline state machine on fixed inputs.
//
// # The workload comparison
//
// TestWorkloadsMatchKCM compares kcm's ReplicaSet and Deployment
// controllers with kube-controller-manager's on four scenarios: scale,
// a rolling update driven one Ready pod at a time, Recreate, and a stalled
// rollout whose new pods never become Ready. The stalled one matters: a
// driver that readies pods only when the Deployment has settled hides a
// controller that is stricter than Kubernetes' maxUnavailable (the spec
// steps come out the same); left alone, such a controller stops short of
// where kube-controller-manager stops, and the scenario times out saying
// where it stood.
//
// # The namespace comparison
//
// TestNamespaceMatchesKCM deletes a namespace holding a Deployment, a
// ReplicaSet, pods, a ConfigMap, a Secret and two custom resources, one
// held by a finalizer of the scenario's own, under kcm's namespace and
// serviceaccount controllers and under kube-controller-manager's. The
// scenario follows the namespace on a watch and records each distinct
// state — phase, spec.finalizers and the five deletion conditions with
// reasons and messages, times left out — in the timeline's States stream,
// compared exactly: Terminating with NamespaceContentRemaining and
// NamespaceFinalizersRemaining True while the finalizer holds, all five
// False once the scenario removes it, then gone. The namespaces left at
// the end are compared as objects. TestNamespaceDiscoveryFailureMatchesKCM
// does the same with an aggregated API whose Service does not exist:
// NamespaceDeletionDiscoveryFailure holds the namespace until the
// APIService goes. The one deliberate difference is the failed group's own
// error text inside that condition's message (GroupErrorPlaceholder):
// kube-controller-manager reads aggregated discovery, where the group is
// "stale", and kcm reads the group version itself, which answers 503
// "service unavailable".
//
// # The root CA publisher comparison
//
// TestRootCAPublisherMatchesKCM runs RootCAScenario under kcm's
// root-ca-cert-publisher and kube-controller-manager's, both given the same
// --root-ca-file; TestRootCAPublisherWithoutFileMatchesKCM runs it with
// none, where each publishes the CA of its own kubeconfig (its cluster's,
// shown as "<cluster CA>"). The scenario checks the kube-root-ca.crt of
// kube-apiserver's namespaces and of three new ones, then edits them
// (ca.crt changed, a key, label and annotation added; binaryData added and
// ca.crt removed; the description removed, changed to another value, the
// data emptied) and deletes one. Each step waits on a watch until the
// ConfigMap is as the publisher leaves it and records, in the States
// stream, its data, annotations, labels and binaryData keys and the number
// of watch events the step took (one write more by a controller shows
// there). Two edits must be left alone (the description changed to
// another non-empty value; a label and an annotation added): after each,
// another namespace's ConfigMap is deleted and waited for, a barrier
// (one worker, one FIFO queue on both sides), and the edited one is
// recorded with whether it was written since. The streams are compared
// exactly.
//
// # The service-account token comparison
//
// TestServiceAccountTokensMatchKCM runs ServiceAccountTokenScenario under
// kcm's serviceaccount-token controller and kube-controller-manager's,
// both given the same --service-account-private-key-file (an RSA key the
// test generates) and --root-ca-file; TestServiceAccountTokensWithoutCAFileMatchKCM
// gives neither a CA file, so ca.crt is each cluster's CA (shown as
// "<cluster CA>"). Token Secrets are created for two accounts, one with a
// stale account UID, one for an account that does not exist, one already
// holding a token, and an Opaque one; then an account is deleted, then a
// token listed in its account's secrets. After each step every Secret's
// state is recorded: data keys, the namespace entry, which CA ca.crt is,
// the annotations and the token decoded — header, claims, and whether the
// signature verifies with the key's public half — with the accounts' UIDs
// (which each cluster assigns) replaced by "<uid of NAME>". The streams
// are compared exactly; the recorded Secrets are compared but for the
// token and UID-annotation lines, which carry those UIDs.
//
// # The garbage collector comparison
//
// TestGarbageCollectorMatchesKCM deletes a Deployment that the
// Deployment and ReplicaSet controllers built, with each propagation
// policy (DeletionScenario), under kcm's and kube-controller-manager's
// garbage collectors, and compares the objects left and the order of the
// deletions. The observer records every Deployment, ReplicaSet and pod
// deletion with its resourceVersion; three watches deliver them, and the
// resourceVersion (the etcd revision of the delete) puts them in one
// order. Names differ between managers, so the order is compared by phase
// and kind (DiffDeletions): Background is Deployment, ReplicaSet, pods;
// Foreground pods, ReplicaSet, Deployment; Orphan the Deployment alone.
//
// # The endpoints comparison
//
// TestEndpointsMatchKCM runs on clusters with kube-scheduler and three
// kwok nodes, one per zone (EndpointNodes), where kwok gives a scheduled
// pod an IP and makes it Running and Ready; every pod names its node, so
// nodeName and zone are the same in every run. EndpointsScenario creates
// Services with a named and a numeric targetPort (one named port numbered
// differently on one pod, so two subsets), two ports (one pod lacking
// one), publishNotReadyAddresses, a headless Service with hostnames and
// subdomains and one without ports, a selector-less Service with the
// user's Endpoints, and three Services asking for zone hints
// (trafficDistribution PreferClose, topology-mode Auto, the deprecated
// topology-aware-hints annotation) over two pods per zone; over Ready pods, unready ones (their Ready condition
// written False) and a terminating one (deleted, held by a finalizer). It
// waits until every Endpoints lists the pods Kubernetes puts there and
// compares the objects. EndpointsRollingScenario replaces 100 pods behind
// one Service one at a time (new pod Ready, old pod terminating, old pod
// gone), waiting on an EndpointsWatch after each step, and compares every
// write of the rollout, one line per write with what it changed by pod
// name; each side must also make exactly 200 Endpoints writes.
// Normalisation replaces each pod IP by its pod's name and sorts
// addresses, subsets and slice endpoints, whose order follows the IPs
// (normalizeEndpointsObject). EndpointSlices are recorded and compared
// (as a set per Service: generated names become "<rand>") when kcm
// registers the endpointslice controller (SlicesInKCM); until then both
// sides run the endpoints controller alone — kube-controller-manager's
// endpointslice and mirroring controllers are on by default, so its
// --controllers names what runs — and only Endpoints are compared.
//
// TestEndpointsTakeoverFromKCM lets kube-controller-manager build the
// Endpoints of 50 Services, stops it, starts kcm on the same cluster with
// one worker per controller, turns one pod unready and creates a barrier
// Service; the writes seen on a watch must be exactly that pod's
// Endpoints update and the barrier's Endpoints.
//
// # The StatefulSet comparison
//
// TestStatefulSetMatchesKCM runs StatefulSetScenarios under kcm's
// statefulset-controller and kube-controller-manager's, each with its
// garbage collector (which deletes the claims the retention policy hands
// to condemned pods), on clusters with kube-scheduler, one kwok node and
// testenv's claim binder (StatefulSetClusterOptions): kwok makes a
// scheduled pod Running and Ready and deletes a pod marked for deletion;
// the claim binder binds every claim to a volume of its own, so that
// kube-scheduler accepts pods with claims, and plays pvc-protection. The
// scenarios: OrderedReady scale 0→3→5→1; Parallel scale 0→5→2; a rolling
// update of 5 with partition 3, then 0; OnDelete (a template change rolls
// nothing, a deleted pod comes back at the update revision); two
// volumeClaimTemplates with whenScaled Delete, scaled 4→2; a claim
// template with whenDeleted Delete, scaled 2→1, then the set deleted
// (its claims go with it; these steps, the garbage collector's, are
// compared as a set). After each
// action a scenario waits until the set has settled (observed, the
// revisions its status names seen, every pod Ready, none terminating);
// SetWatch logs every step in between — a pod, claim or revision created
// or deleted, a pod or claim relabelled or given other owners, a revision
// renumbered, a pod turning Ready — ordered by resourceVersion across its
// watches, and the steps of each phase are compared exactly, in order
// for OrderedReady and as a set for Parallel (whose batches are
// concurrent). The objects at the end (StatefulSets with their status,
// pods, claims, ControllerRevisions) are compared as objects — revision
// names and controller-revision-hash labels included, unnormalised: kcm
// must compute kube-controller-manager's hashes — and the Events about
// StatefulSets as sorted lines with their counts.
//
// Two things Kubernetes itself does in random order are evened out, not
// allowed: a pod's claim volumes (updateStorage ranges over a Go map), by
// sorting those volumes by name in place (normalizeStatefulSetPod), and
// the order among one pod's claims of claim steps with one verb
// (createPersistentVolumeClaims and UpdatePodClaimForRetentionPolicy range
// over the same map; the garbage collector deletes a pod's claims
// concurrently), by sorting each such run (sortClaimRuns); and whether a
// new pod turns Ready (kwok) before or after the controller's next sync
// gives its claims their owners, by putting those reowns first in each
// run of such steps (readyAfterReowns); and whether the garbage
// collector deletes a condemned pod's claims before or after the
// controller's next step, both answered to the pod being gone, by putting
// those claim deletions right after their pod's (claimDeletionsAfterPods).
// kwok deletes a pod marked for deletion by name, without a uid
// precondition, twice, the second time now and then removing the
// controller's replacement of the same name; SetWatch takes such a
// deletion (one never seen marked first, or first seen marked with grace
// 0: the controllers delete the scenarios' scheduled pods gracefully), the
// re-creation that answers it and its Event out of what is compared, and
// Strays lists them. A "Delete Pod" Event counts at most the pod's
// deletions in the step log: under a stale informer the StatefulSet
// controller deletes a pod already terminating a second time, which
// changes nothing but is counted into its Event (SetWatch.Events). All
// three were seen in kube-controller-manager v1.37.2 agreeing with itself.
// kwok's pod IPs become "<ip:pod NAME>", container start times "<time>".
// There is no deliberate difference (statefulSetAllowances is empty).
// TestStatefulSetKCMAgreesWithItself runs the scenarios twice under
// kube-controller-manager, requires no difference, and requires a swapped
// pair of steps and a changed revision label to be reported.
//
// TestStatefulSetTakeoverFromKCM: kube-controller-manager builds 10
// StatefulSets of 3 pods, each pod with a claim, and stops; the second
// manager starts on the same cluster. A probe (every set's
// revisionHistoryLimit 10→11, which bumps the generation and rolls
// nothing) proves the second manager synced every set once its
// observedGeneration is written; a barrier pod, claim and revision,
// created then and seen on the watches, prove every earlier write has
// been seen. No step but the barrier's may be logged in between: no pod,
// claim or revision created, deleted, relabelled or given other owners.
// Then every set's image changes, and the roll (per set, in order), the
// objects and the Events are compared with the same run whose second
// manager is kube-controller-manager again.
//
// # The node lifecycle comparison
//
// TestNodeLifecycleMatchesKCM (issue 31) runs RunNodeLifecycle under
// kcm's and kube-controller-manager's node-lifecycle-controller,
// taint-eviction-controller and pod-garbage-collector-controller, both
// with --node-monitor-grace-period=16s --node-monitor-period=2s
// (NodeLifecycleArgs), each on a fresh cluster of six kwok nodes, two in
// each of three zones, with one pod per node tolerating the not-ready and
// unreachable NoExecute taints for 5 s (explicit tolerations: the
// DefaultTolerationSeconds admission plugin would give 300 s) and one on
// a-1 tolerating them forever. The steps: a-1 goes silent
// (testenv.PauseHeartbeat) and recovers; zone-b goes silent beside two
// healthy zones; the Node c-2 is deleted (every zone silent at once is
// left out: its outcome is a race under kube-controller-manager, see
// RunNodeLifecycle). NodeWatch keeps a normalised view (a node's
// taints and conditions with reason and message, a pod's phase, Ready,
// DisruptionTarget reason and deletion, the Events as lines) and each
// object's history of distinct states; CompareNodeLifecycle compares the
// view after each step, the pods' histories in order, the taints and the
// condition sets each node ever had as sets (a node's NoSchedule and
// NoExecute taints come and go by two racing loops, and a silent zone's
// nodes get NoExecute one per 10 s in an order that is a race) and the
// Events. No timestamps enter. There is no deliberate difference.
//
// TestNodeLifecycleTakeover: kube-controller-manager runs the three
// controllers on the healthy cluster until it has registered every node,
// and stops; kcm starts. A probe node silent from before kcm's start gets
// its unreachable NoSchedule taint only after a full grace period of kcm,
// and a barrier pod follows; in between no healthy node and no pod may
// change state.
//
// # The resource quota comparison
//
// TestResourceQuotaMatchesKCM runs QuotaScenario under kcm's
// resourcequota and serviceaccount controllers and under
// kube-controller-manager's: nine quotas (an unscoped one with every
// object count, storage per class, node ports, load balancers, ephemeral
// storage, hugepages and an extended resource; the pod scopes; scope
// selectors on PriorityClass and CrossNamespacePodAffinity) over pods in
// each state, Services, claims, ConfigMaps, a Secret, a Deployment and a
// ReplicationController; then a pod turns Succeeded; then objects of each
// kind are deleted (a bound pod waits out its grace period and a claim
// its protection finalizer, so both still count). After each step the
// scenario waits, on a watch, until every quota's status.used is what
// package ctrl/resourcequota/quota computes from the objects — so kcm's
// evaluators are checked against kube-controller-manager's controller on
// the reference side, and a difference shows as that side's time-out
// naming the quota — and records status.hard and status.used of every
// quota, strings as written, as one state; the states are compared
// exactly, and so are the quotas left at the end. Before its first quota
// the scenario waits until the controller's workers run (a quota in a
// namespace of its own has a status): a quota that exists as they start
// is synced twice at once, on both managers, and the retry of the write
// that conflicts could recount usage during the next step, from a pod
// cache behind quota admission's charge, and lose a pod until the full
// resync (waitQuotaController).
//
// # The takeover tests
//
// One manager rolls a Deployment out and stops; the other starts on the
// same cluster and the Deployment is scaled. The second must find the
// first one's ReplicaSet as current — Kubernetes' FindNewReplicaSet, by
// EqualIgnoreHash — and scale it: no new ReplicaSet, no pod replaced.
// TestTakeoverFromKCMStartsNoRollout does kube-controller-manager → kcm
// on a plain template. TestTakeoverKeepsEmptyTemplateObjects does both
// directions on a template with empty objects ("securityContext": {}) and
// fields kcm does not model, and checks that the ReplicaSet's template and
// the scale-up's pod keep them (issue 25: kcm's ReplicaSet had lost the
// container's securityContext, and kube-controller-manager rolled out).
//
// All cluster tests carry `//go:build !nocluster`, like every test that
// starts a real kube-apiserver.
//
// # Who wrote what (audit.go)
//
// Both managers run every comparison with
// --use-service-account-credentials, as kubeadm runs
// kube-controller-manager: each controller acts as its own ServiceAccount
// kube-system/<name>, limited by the bootstrap role
// system:controller:<name>. Every cluster keeps an audit log of writes
// (testenv.Options.AuditWrites). After a run, RunScenarios — and
// audited, for a manager a test starts itself — reads it and fails the
// test for any write by the manager's clients (told apart by their
// User-Agents, Identities) that was made as another identity than that
// controller's account, or by the manager's own credentials beyond its
// accounts, their tokens, its Lease, the secure port's reviews and the
// token controller's Secrets (CheckWrites). So a controller of kcm that
// needs more than its bootstrap role, or that writes through the wrong
// client, fails the comparison that exercises it; the same check on the
// kube-controller-manager side shows the rule is the reference's.
// Recording.Writes counts each scenario's writes by account.
//
// # Counterparts
//
// Kubernetes has no differential harness between controller-manager
// implementations; its controllers' integration tests
// (test/integration/deployment) drive pods Ready the same way, by writing
// pod status, because they run without kubelets too.
package difftest
