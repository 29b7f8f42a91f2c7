// Package testenv runs a real Kubernetes control plane for tests: one etcd
// and one kube-apiserver on free loopback ports and, when a test asks for
// them, kube-scheduler and fake nodes played by kwok. No controllers run
// unless a test starts kube-controller-manager. Every integration test in
// kcm talks to it, so what kcm is tested against is the real API server,
// not a fake.
//
// # Where it sits
//
// testenv is not on kcm's data path; it provides the left end of it:
//
//	            ┌──────────── testenv.Cluster ─────────────┐
//	test ──────▶│ etcd ◀── kube-apiserver :port (TLS)       │◀── Config() / KubeconfigPath()
//	            └───────────────▲───────────────────────────┘            │
//	                            │ LIST + WATCH, writes                   ▼
//	kcm:  apiserver -> reflector -> deltafifo -> store -> processor -> handler -> queue -> workers -> ctrl
//
// # Binaries
//
// No program is downloaded as a release. Each is built from the Go
// module proxy at pinned versions (KubernetesVersion, EtcdVersion) the first
// time they are needed, in a throw-away module, with CGO_ENABLED=0 and
// -trimpath. k8s.io/kubernetes cannot be built with a plain `go install`
// because its go.mod points every k8s.io/<staging> module at ./staging; the
// throw-away module replaces each one with its published v0.Y.Z version,
// reading the list from that go.mod. The results are cached per version in
// CacheDir (override with KCM_TESTENV_CACHE). A first kube-apiserver build
// takes minutes and prints its progress to stderr; afterwards starting a
// cluster takes seconds. Parallel test binaries
// serialise the build with an exclusive file lock. `kcm dev --build-only`
// warms the cache.
//
// # Releases
//
// The pinned versions are the reference release's. KCM_KUBE_VERSION
// (EnvKubeVersion) picks another supported release for kube-apiserver and
// etcd: Releases lists them, each Kubernetes release with the etcd its own
// sources say it is tested with (v1.35.4 with etcd 3.6.6, v1.36.3 with
// 3.6.8, v1.37.2 with 3.7.0). Every test binary then starts its clusters at
// that release, which is how `make compat` (internal/testing/compat) runs the same
// tests against each; an unknown release is an error naming the supported
// ones. Each release and etcd version has its own cache directory.
// kube-controller-manager stays at the reference release, the one kcm's
// controllers are compared with. Options.APIServerFlags adds kube-apiserver
// flags for one cluster (a feature gate turned off, for instance).
//
// # kube-controller-manager
//
// The same recipe builds kube-controller-manager, the reference kcm's
// controllers are compared with (package internal/testing/difftest). It is built
// lazily by EnsureControllerManager, never by Start, so tests that do not
// run it never wait for its first build (minutes, most of it shared with
// kube-apiserver's in the Go build cache).
// Cluster.StartKubeControllerManager runs it against a cluster with the
// cluster's kubeconfig, the given --controllers, --leader-elect=false
// unless asked, HTTPS on a free loopback port (self-signed, no delegated
// authentication: only /healthz is served), and
// --use-service-account-credentials=false. It returns once /healthz
// answers ok, or an error with the tail of its log. Controllers that need
// files testenv does not write (the CSR signer's key, a cloud provider)
// are not for tests; the serviceaccount-token controller runs when given
// --service-account-private-key-file=ServiceAccountKeyFile().
//
// # The e2e test binary
//
// EnsureE2E builds the test binary of upstream's e2e framework
// (k8s.io/kubernetes/test/e2e at KubernetesVersion) with the suites
// E2ESuites, the way kube-apiserver is built: a throw-away module, plus one
// generated test file whose TestMain reads the framework's flags and
// registers its embedded manifests, as upstream's e2e_test.go does. go
// test -c names no package as it compiles, so a go build -v of the
// imported packages runs first for the progress line. Only `make e2e`
// (package internal/testing/e2e) uses it; a first build takes longer than
// kube-apiserver's, less once kube-apiserver's packages are in the Go
// build cache.
//
// # Nodes and the scheduler
//
// By default a cluster has no nodes and no scheduler: a pod stays Pending
// and a test that needs it Ready writes its status itself (which stays the
// way to get exact, deterministic pod states). Tests that need pods to be
// scheduled and run, nodes that heartbeat, or nodes that stop doing so ask
// for them:
//
//	c, err := testenv.Start(ctx, testenv.Options{Nodes: []testenv.NodeSpec{
//		{Name: "node-1", Zone: "zone-a"}, {Name: "node-2", Zone: "zone-b", CPU: "4", Memory: "8Gi"},
//	}})
//	// or, on any cluster: c.StartScheduler(ctx); c.AddNodes(ctx, specs...)
//
// StartScheduler runs kube-scheduler (KubernetesVersion, built like
// kube-apiserver) with leader election off. AddNodes starts kwok
// (KwokVersion, sigs.k8s.io/kwok, the kubelet simulator SIG Scalability
// uses) and creates the Node objects, each with its zone and region
// labels, capacity, an InternalIP and a pod range of its own, and returns
// once every node is Ready and has its Lease in kube-node-lease. kwok
// plays the kubelet through the Stage objects of its own module (see
// KwokStagesFile): it renews each node's Lease every quarter of
// Options.NodeLeaseDurationSeconds (40 s, the kubelet's default, unless
// set), refreshes the Ready condition's heartbeat every 10-20 min, gives
// each pod bound to a node an IP from the node's range and makes it
// Running and Ready, completes the pods of Jobs, and deletes a pod marked
// for deletion (as a kubelet does once its containers stopped). No
// container runs: exec, logs and traffic to pods do not work.
//
// PauseHeartbeat(node) makes a node look dead — its Lease's renewTime and
// its status stop changing, its pods are left as they are — and
// ResumeHeartbeat brings it back (Ready again, Lease renewed); node
// lifecycle tests watch the Lease go stale and come back. kwok and
// kube-scheduler are built lazily, the first time a cluster asks for them
// (EnsureKwok, EnsureScheduler), and are stopped by Stop like every other
// process; their logs are kwok.log and kube-scheduler.log in the cluster's
// directory.
//
// # Volumes
//
// A cluster binds no PersistentVolumeClaim by itself: the volume binder is
// a kube-controller-manager controller that kcm does not have and that
// differential tests do not run, and kube-scheduler refuses a pod whose
// claims are not bound. Options.ClaimBinder (or StartClaimBinder) runs
// testenv's claim binder, a fake in the way kwok is: for every claim
// without a volume it makes a hostPath PersistentVolume named
// ClaimVolumeName(namespace, claim), sized to the request and bound to the
// claim by uid, and marks the claim bound (spec.volumeName, the
// annotation pv.kubernetes.io/bind-completed that kube-scheduler checks,
// status Bound with the capacity). It also plays pvc-protection (a
// deleted claim's kubernetes.io/pvc-protection finalizer goes once no
// unfinished pod uses it) and deletes the volume of a claim that is gone,
// so a claim's deletion completes and is seen on a watch. Stop ends it
// before kube-apiserver.
//
// # Identities
//
// Config and KubeconfigPath carry a bearer token of a member of
// system:masters. kube-apiserver also trusts client certificates of
// ClientCA (--client-ca-file, published in
// kube-system/extension-apiserver-authentication for delegating servers
// such as kcm's secure port); CA.ClientCertificate issues one for any
// user and groups, and NewCA makes a CA of a test's own. For tests of
// authorization, ServiceAccountToken creates a ServiceAccount and returns
// a token from the TokenRequest API, GrantNonResource binds a ClusterRole
// on non-resource URLs (get /metrics) to a subject for the test's
// duration, and APIRequests reads kube-apiserver's own
// apiserver_request_total, e.g. to count the TokenReviews a client sent.
//
// # Guarantees
//
//   - Start returns only when /readyz answers ok with the cluster's token, or
//     an error that carries the tail of the failing process's log. On error
//     nothing is left running.
//   - Processes run in their own process group with Pdeathsig=SIGKILL: they
//     die with the test binary even if it never calls Stop. Stop kills them
//     (SIGTERM, then SIGKILL after a bound), waits, and deletes the
//     temporary directory (data, logs, certificates, kubeconfig); it is
//     idempotent.
//   - Config returns a fresh *rest.Config each call: the https URL, the
//     self-signed serving certificate (which names 127.0.0.1) as CA, and a
//     static bearer token whose user is in system:masters; its ContentType
//     is empty (JSON). ManagerConfig is the same with the ContentType of
//     the code under test: $KCM_TEST_CONTENT_TYPE (EnvContentType), by
//     default protobuf, the manager's --kube-api-content-type default.
//   - RestartAPIServer brings kube-apiserver back on the same URL with the
//     same certificate and token; etcd, and therefore every object and
//     resourceVersion, survives.
//   - Namespace gives each test its own namespace with its "default"
//     ServiceAccount, which kube-apiserver's ServiceAccount admission needs
//     before it accepts pods, and which no controller creates here.
//
// # Making a watch fail with 410 Gone
//
// Normally kube-apiserver serves watches from its watch cache, a window of
// recent events kept in memory. Compacting etcd does not touch that window,
// so a watch from an old resourceVersion keeps being served even though
// etcd has forgotten that revision, and a test cannot provoke "too old
// resource version" on demand. testenv therefore starts kube-apiserver with
// --watch-cache-sizes=configmaps#0: configmaps (UncachedResource) have no
// watch cache, their lists and watches go straight to etcd, and after
// CompactEtcd a watch on configmaps from a resourceVersion below the
// compacted revision gets HTTP 200 followed by one event
//
//	{"type":"ERROR","object":{"kind":"Status","status":"Failure","reason":"Expired","code":410,
//	 "message":"The resourceVersion for the provided watch is too old."}}
//
// (and a LIST with resourceVersionMatch=Exact at such a version gets HTTP
// 410). The same watch on a cached resource such as secrets replays the
// events instead. Configmaps were chosen because no kcm controller is
// about configmaps, so no controller test loses the cache's behaviour; and
// an uncached resource still serves everything else, WatchList included
// (initial ADDED events, then the BOOKMARK annotated
// k8s.io/initial-events-end, as with the cache). Use configmaps when a test
// needs a real 410, any other resource when it needs the cached behaviour.
//
// # Shared cluster
//
// Starting a cluster costs seconds, so each test binary shares one:
//
//	func TestMain(m *testing.M) { os.Exit(testenv.Main(m)) }
//
//	func TestSomething(t *testing.T) {
//		c := testenv.Shared(t) // started on first use; t.Fatal if it cannot start
//		ns := c.Namespace(t)   // deleted when the test ends
//		cfg := c.Config()
//		...
//	}
//
// Main stops the shared cluster after the tests and then checks for leaked
// goroutines with goleak. Tests that restart or stop kube-apiserver should
// Start a cluster of their own rather than disturb the shared one.
//
// # Counterparts
//
// controller-runtime's envtest (sigs.k8s.io/controller-runtime/pkg/envtest)
// plays this role for client-go based controllers, with downloaded release
// binaries; Kubernetes's own integration tests run an in-process apiserver
// (k8s.io/kubernetes/test/integration/framework).
package testenv
