package manager

import "slices"

// KubeControllerManagerVersion is the kube-controller-manager release whose
// flags kcm follows.
const KubeControllerManagerVersion = "v1.37"

// kubeControllerManagerFlags are the names of every flag of
// kube-controller-manager v1.37 (the flags kube-controller-manager
// v1.37.2, as testenv builds it, lists in --help, --help left out, plus
// the deprecated ones its FlagSet hides: allow-untagged-cloud,
// node-sync-period, and concurrent_rc_syncs, the name under which
// concurrent-rc-syncs is registered), sorted. Against v1.34.4: added
// concurrent-device-taint-eviction-syncs, concurrent-disruption-syncs,
// concurrent-resourceclaim-syncs, controller-shutdown-timeout,
// min-compatibility-version and tls-curve-preferences; removed
// concurrent-service-syncs (the service-lb-controller's); newly listed,
// though v1.34 had them too, concurrent-rc-syncs (the spelling --help
// shows; kube-controller-manager accepts both), log-json-info-buffer-size
// and log-json-split-stream. Names only: kcm
// uses the table to tell a flag it lacks ("kcm does not support
// kube-controller-manager's flag --X") from a typo, which gets pflag's
// plain "unknown flag". A flag kcm has is defined in flags.go and never
// looked up here.
var kubeControllerManagerFlags = []string{
	"allocate-node-cidrs", "allow-metric-labels", "allow-metric-labels-manifest", "allow-untagged-cloud",
	"attach-detach-reconcile-sync-period", "authentication-kubeconfig", "authentication-skip-lookup",
	"authentication-token-webhook-cache-ttl", "authentication-tolerate-lookup-failure",
	"authorization-always-allow-paths", "authorization-kubeconfig", "authorization-webhook-cache-authorized-ttl",
	"authorization-webhook-cache-unauthorized-ttl", "bind-address", "cert-dir", "cidr-allocator-type",
	"client-ca-file", "cloud-config", "cloud-provider", "cluster-cidr", "cluster-name", "cluster-signing-cert-file",
	"cluster-signing-duration", "cluster-signing-key-file", "cluster-signing-kube-apiserver-client-cert-file",
	"cluster-signing-kube-apiserver-client-key-file", "cluster-signing-kubelet-client-cert-file",
	"cluster-signing-kubelet-client-key-file", "cluster-signing-kubelet-serving-cert-file",
	"cluster-signing-kubelet-serving-key-file", "cluster-signing-legacy-unknown-cert-file",
	"cluster-signing-legacy-unknown-key-file", "concurrent-cron-job-syncs", "concurrent-daemonset-syncs",
	"concurrent-deployment-syncs", "concurrent-device-taint-eviction-syncs", "concurrent-disruption-syncs",
	"concurrent-endpoint-syncs", "concurrent-ephemeralvolume-syncs", "concurrent-gc-syncs",
	"concurrent-horizontal-pod-autoscaler-syncs", "concurrent-job-syncs", "concurrent-namespace-syncs",
	"concurrent-rc-syncs", "concurrent-replicaset-syncs", "concurrent-resource-quota-syncs",
	"concurrent-resourceclaim-syncs", "concurrent-service-endpoint-syncs", "concurrent-serviceaccount-token-syncs",
	"concurrent-statefulset-syncs", "concurrent-ttl-after-finished-syncs",
	"concurrent-validating-admission-policy-status-syncs", "concurrent_rc_syncs", "configure-cloud-routes",
	"contention-profiling", "controller-shutdown-timeout", "controller-start-interval", "controllers",
	"disable-attach-detach-reconcile-sync", "disable-force-detach-on-timeout", "disable-http2-serving",
	"disabled-metrics", "emulated-version", "enable-dynamic-provisioning", "enable-garbage-collector",
	"enable-hostpath-provisioner", "enable-leader-migration", "endpoint-updates-batch-period",
	"endpointslice-updates-batch-period", "external-cloud-volume-plugin", "feature-gates", "flex-volume-plugin-dir",
	"horizontal-pod-autoscaler-cpu-initialization-period", "horizontal-pod-autoscaler-downscale-stabilization",
	"horizontal-pod-autoscaler-initial-readiness-delay", "horizontal-pod-autoscaler-sync-period",
	"horizontal-pod-autoscaler-tolerance", "http2-max-streams-per-connection", "kube-api-burst",
	"kube-api-content-type", "kube-api-qps", "kubeconfig", "large-cluster-size-threshold", "leader-elect",
	"leader-elect-lease-duration", "leader-elect-renew-deadline", "leader-elect-resource-lock",
	"leader-elect-resource-name", "leader-elect-resource-namespace", "leader-elect-retry-period",
	"leader-migration-config", "legacy-service-account-token-clean-up-period", "log-flush-frequency",
	"log-json-info-buffer-size", "log-json-split-stream", "log-text-info-buffer-size", "log-text-split-stream",
	"logging-format", "master", "max-endpoints-per-slice", "min-compatibility-version", "min-resync-period",
	"mirroring-concurrent-service-endpoint-syncs", "mirroring-endpointslice-updates-batch-period",
	"mirroring-max-endpoints-per-subset", "namespace-sync-period", "node-cidr-mask-size",
	"node-cidr-mask-size-ipv4", "node-cidr-mask-size-ipv6", "node-eviction-rate", "node-monitor-grace-period",
	"node-monitor-period", "node-startup-grace-period", "node-sync-period", "permit-address-sharing",
	"permit-port-sharing", "profiling", "pv-recycler-increment-timeout-nfs", "pv-recycler-minimum-timeout-hostpath",
	"pv-recycler-minimum-timeout-nfs", "pv-recycler-pod-template-filepath-hostpath",
	"pv-recycler-pod-template-filepath-nfs", "pv-recycler-timeout-increment-hostpath", "pvclaimbinder-sync-period",
	"requestheader-allowed-names", "requestheader-client-ca-file", "requestheader-extra-headers-prefix",
	"requestheader-group-headers", "requestheader-uid-headers", "requestheader-username-headers",
	"resource-quota-sync-period", "root-ca-file", "route-reconciliation-period", "secondary-node-eviction-rate",
	"secure-port", "service-account-private-key-file", "service-cluster-ip-range",
	"show-hidden-metrics-for-version", "terminated-pod-gc-threshold", "tls-cert-file", "tls-cipher-suites",
	"tls-curve-preferences", "tls-min-version", "tls-private-key-file", "tls-sni-cert-key",
	"unhealthy-zone-threshold", "use-service-account-credentials", "v", "version", "vmodule",
}

// IsKubeControllerManagerFlag reports whether kube-controller-manager
// v1.37 has a flag of this name (without dashes; "v" is -v).
func IsKubeControllerManagerFlag(name string) bool {
	_, found := slices.BinarySearch(kubeControllerManagerFlags, name)
	return found
}
