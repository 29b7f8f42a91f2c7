// Package resourcequota is the resource quota controller: it keeps every
// ResourceQuota's status current — status.hard the quota's spec.hard,
// status.used what the namespace's objects use of each hard resource —
// so that kube-apiserver's ResourceQuota admission, which charges each
// create against status.used, admits against the truth. Admission only
// ever adds; this controller is what gives usage back when objects are
// deleted or stop counting (a pod turning Succeeded or Failed), and what
// computes the usage of a new quota.
//
//	quotas (typed, shared) ──add / spec.hard change──▶ priority queue (status.hard ≠ spec.hard, or usage missing)
//	                        │                         └▶ primary queue (otherwise)
//	                        └─delete─▶ primary queue
//	every --resource-quota-sync-period ──all quotas──▶ primary queue
//	                                                      │ --concurrent-resource-quota-syncs workers per queue
//	                                                      ▼
//	        Sync(ns/name): used = CalculateUsage(evaluators) masked to the hard names;
//	                       UpdateStatus once, only when hard or used changed
//
//	pods, services, PVCs (typed, shared) ─┐ delete, or an update that
//	metadata monitors of every other      ├─changes usage──▶ resource changes queue ──▶ replenish:
//	quotable resource (discovery)         ┘                  the namespace's quotas whose status.hard
//	                                                          an evaluator of that resource computes
//	                                                          ──▶ primary queue
//	discovery every 30 s ──new resources──▶ monitors + count/<resource>.<group> evaluators
//
// One concept per file:
//
//   - controller.go: the descriptor, its flags, construction and Run.
//   - sync.go: the quota sync and its one status write.
//   - handlers.go: which queue a quota goes on, the update filters, and
//     replenishment.
//   - monitors.go: the metadata monitors of the quotable resources (a
//     ctrl/internal/monitorset set, by group-resource) and their counts.
//   - codec.go: what a monitor keeps of each object.
//   - discovery.go: quotable resources and the discovery resync.
//   - dra.go: the typed ResourceClaim and DeviceClass caches the
//     ResourceClaim evaluator reads, and the claims' replenishment.
//
// The evaluators — what a pod, service, claim or object count uses,
// scopes and scope selectors — are package quota's.
//
// # Guarantees
//
//   - A quota's status is written with one UpdateStatus per sync, and only
//     when status.hard is not spec.hard, either status list is absent, or
//     status.used changes; status.used names no resource that is not
//     hard.
//   - A hard resource no evaluator computes keeps the usage its status
//     had. A usage that fails to compute in part is written for the rest
//     and the sync retried with backoff.
//   - No quota is synced before the quota cache, the typed informers'
//     handlers and every monitor have synced; while discovery changes the
//     monitors the workers pause (the worker lock), for at most a
//     discovery period.
//   - A resource discovery reports later (a CRD) gets a monitor and a
//     count/<resource>.<group> evaluator within a discovery period; a
//     resource no longer reported loses its monitor (its evaluator stays
//     and counts 0: its objects went with it). A monitor not synced yet
//     counts nothing (ErrNotSynced): the quota's sync is retried.
//   - Run returns when ctx ends, after the loops drained (ctrl.Loop's
//     drain timeout) and every monitor stopped.
//
// # Differences from kube-controller-manager
//
//   - Monitors of resources other than pods, services, PVCs and quotas
//     are kcm's own metadata-only informers, indexed by namespace and
//     trimmed to namespace and name, rather than informers shared through
//     the factory; they are stopped one by one when their resource goes.
//   - The pods' update filter compares the pod's usage as the evaluator
//     computes it (and its Terminating scope) where Kubernetes compares
//     QuotaV1Pod and the container statuses' resources: a pod turning
//     terminal and an in-place resize both change the usage.
//   - Resource changes are queued by namespace and group-resource, so
//     bursts of deletions in one namespace replenish once.
//   - When discovery adds count evaluators, the quotas that already name
//     their resources are queued at once rather than at the next full
//     resync.
//   - A monitor that has not synced yet answers ErrNotSynced instead of
//     counting the part it has listed: the quota's sync fails and is
//     retried, rather than writing a count too low that only the next full
//     resync would correct.
//   - Discovery is first read when Run starts, and a discovery that fails
//     is read again every discovery period; kube-controller-manager reads
//     it when it builds the controller and fails the controller's start
//     when it cannot.
//   - ResourceClaims and DeviceClasses are cached by typed informers of
//     the controller's own, run by Run and not shared through the factory
//     (the manager waits for every factory informer, and a cluster that
//     does not serve resource.k8s.io/v1 would never sync them); until
//     both have synced, a quota naming a claim resource fails its sync
//     (ErrNotSynced) and is retried. A claim update whose usage changes
//     (owner references, the extended-resource annotation) replenishes;
//     Kubernetes' update filter passes no claim update.
//   - The replenishment handlers get no informer resync (Kubernetes'
//     12-24 h ReplenishmentResyncPeriod only re-delivers unchanged
//     objects, which every update filter passes over).
//
// # Kubernetes counterpart
//
// kubernetes/pkg/controller/resourcequota (Controller, QuotaMonitor,
// GetQuotableResources), pkg/quota/v1/install (DefaultIgnoredResources,
// DefaultUpdateFilter), started by cmd/kube-controller-manager/app/core.go
// as "resourcequota-controller" (alias "resourcequota") with
// --concurrent-resource-quota-syncs 5 and --resource-quota-sync-period 5m;
// its queues are resourcequota_primary, resourcequota_priority and
// resource_quota_controller_resource_changes.
package resourcequota
