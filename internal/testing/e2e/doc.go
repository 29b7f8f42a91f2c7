// Package e2e runs upstream Kubernetes's own end-to-end specs
// (k8s.io/kubernetes test/e2e at testenv.KubernetesVersion) for the
// controllers kcm has, against kube-controller-manager and against kcm, and
// tabulates the outcome spec by spec. It is the strongest check of kcm's
// controllers there is: the specs upstream's controllers must pass.
//
// # Where it sits
//
// Not on kcm's data path, and not in `make test` (a first build of the
// e2e binary takes minutes, a run longer still). `make e2e` runs it
// through cmd/kcm-e2e:
//
//	kcm-e2e ─▶ for each Mode, a fresh testenv.Cluster:
//	             etcd, kube-apiserver, kube-scheduler, kwok nodes (fake kubelets),
//	             the claim binder (a fake volume binder) and DefaultStorageClass
//	             KubeOnly: kube-controller-manager --controllers=*
//	             WithKCM:  kcm (its controllers) + kube-controller-manager --controllers=*,-<each of kcm's>
//	          ─▶ e2e.test (testenv.EnsureE2E) --ginkgo.focus=Focus(Groups) --ginkgo.json-report
//	          ─▶ ReadReport ×2 ─▶ Compare ─▶ Page.Markdown ─▶ docs/e2e/RESULTS.md
//
// # What runs
//
// Groups selects the Describe blocks about kcm's controllers (Deployment,
// ReplicaSet, Garbage collector, Namespaces, OrderedNamespaceDeletion,
// ServiceAccounts (kube-root-ca.crt's spec among them), ResourceQuota,
// sig-network's EndpointsController, Endpoints,
// EndpointSlice and EndpointSliceMirroring, StatefulSet, and sig-node's
// NoExecuteTaintManager, Pod garbage collector and Node Lifecycle, with
// --terminated-pod-gc-threshold=100 on both managers); Exclusions
// leaves out, with the reason, the specs of those blocks that test the
// kubelet through a container's files, output, probes or admission, or
// kube-proxy by connecting through a Service, and an alpha feature that
// is off. The StatefulSet specs that make claims skip unless the cluster
// has a default StorageClass, and their pods start only once the claims
// are bound: every run's cluster has DefaultStorageClass and testenv's
// claim binder. A group whose controller kcm does not have yet runs under
// kube-controller-manager in both modes (the kcm mode disables in
// kube-controller-manager only the controllers kcm runs). The e2e framework waits in every test namespace for the
// "default" ServiceAccount and the "kube-root-ca.crt" ConfigMap; in the
// kcm mode both come from kcm (its serviceaccount controller and its
// root-ca-cert-publisher), so no spec needs kube-controller-manager for a
// namespace. Neither manager gets --root-ca-file: both publish the CA of
// their kubeconfig, the cluster's. kcm gets the ServiceAccount signing key
// (--service-account-private-key-file) as kube-controller-manager does,
// once one of its controllers declares the flag (KCMFileArgs).
//
// kwok's nodes run no containers: a pod is scheduled, then marked Running
// and Ready. Specs that read a container's output, exec into it or send
// it traffic fail under both managers; Known lists each with the reason,
// and the page says which failures those are.
//
// # Guarantees
//
//   - Each run starts from a fresh cluster, so the two runs cannot see each
//     other's objects.
//   - A spec's failure is data, not an error: RunMode fails only when the
//     run itself did not happen (a process did not start, kcm exited during
//     the run, no report was written).
//   - Compare pairs specs by full name; a spec that passes under
//     kube-controller-manager and fails under kcm is a Regression, listed by
//     name in the page's summary, and cmd/kcm-e2e exits 1.
//   - A Known reason whose spec no longer fails under both is flagged as
//     stale on the page.
//
// # Counterparts
//
// Upstream runs these suites with hack/ginkgo-e2e.sh or kubetest2 against
// kind or cloud clusters, and conformance with sonobuoy or hydrophone;
// SIG Scalability runs them at scale with kwok nodes. ginkgo's JSON report
// format is github.com/onsi/ginkgo/v2/types.Report, read here without
// importing ginkgo (no k8s.io or ginkgo module in kcm's go.mod).
package e2e
