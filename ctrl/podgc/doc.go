// Package podgc is the pod garbage collector: it force-deletes the pods
// that nothing else will ever delete — terminated pods beyond a
// threshold, pods whose node is gone, and terminating pods that no
// kubelet will finish.
//
// # The idea
//
// A pod is normally deleted by its kubelet: the apiserver marks it
// terminating, the kubelet stops its containers and then removes it. Some
// pods have no kubelet to do that. Their node was deleted; or an
// administrator declared the node shut down for good with the
// node.kubernetes.io/out-of-service taint; or they were never bound to a
// node at all. And pods that finished (Succeeded or Failed) stay until
// someone deletes them, which for bare pods and some controllers' pods is
// nobody. The collector is a periodic sweep over the pod cache that finds
// these pods by rule and deletes them with a grace period of 0, after
// marking a pod that had not finished Failed, so that whoever watched it
// sees it end rather than vanish Running.
//
// # Where it sits
//
// It reacts to no notification: every pass reads the whole pod and node
// caches. It is fitted to the kit as a ctrl.Loop with one key that
// requeues itself, which keeps the goroutines, the cache wait, the
// shutdown and the metrics in the framework and lets an injected clock
// drive the period:
//
//	Pod informer ─┐ (no handlers: the loop waits for both caches)
//	Node informer ┘
//	New: queue.Add("pods") ─▶ ctrl.Loop (1 worker) ─▶ Sync ─▶ Pass ─▶ RequeueAfter CheckPeriod (20s)
//
//	Pass, on one snapshot of both caches:
//	  1 terminatedToCollect: terminated pods beyond --terminated-pod-gc-threshold, evicted then oldest first
//	  2 terminatingOutOfService: terminating pods on a not-Ready node tainted out-of-service
//	  3 quarantine.step ─▶ GET nodes/<name> for each node missing past QuarantineTime (40s)
//	                    ─▶ 404: orphanedOn: its pods, with condition DisruptionTarget (DeletionByPodGC)
//	  4 unscheduledTerminating: terminating pods with no spec.nodeName
//	  each pod ─▶ PATCH pods/<name>/status {phase: Failed, ...} unless Succeeded or Failed
//	           ─▶ DELETE pods/<name> gracePeriodSeconds=0
//
// One concept per file: controller.go (Descriptor, Config, New,
// Constructor, Sync), gc.go (the pass: the shell that lists, asks and
// writes), decide.go (the rules as pure functions of the snapshot, the
// threshold, the quarantine record and the time), delete.go (the status
// patch and the force deletion), metrics.go (the two counters).
//
// # Guarantees
//
//   - A node missing from the cache costs its pods nothing until it has
//     been missing for QuarantineTime and a live GET answers 404: a
//     lagging cache, a node just registered or a watch that reconnects
//     never gets pods deleted. A GET that fails or finds the node saves
//     the pods; the node is checked again a quarantine later.
//   - A pass never overlaps the next (one key, one worker), and the next
//     starts CheckPeriod after the previous one ended, as
//     wait.UntilWithContext schedules upstream's gc. The first pass runs
//     as soon as both caches have synced.
//   - The status patch carries the pod's uid as a precondition: a pod
//     recreated under the same name is never marked. A failed patch
//     skips that pod's delete; the next pass sees the pod again.
//   - Errors are logged and counted, never retried early: the next pass
//     is the retry. A pass stops between pods when its context ends.
//
// # Behaviour matched with kube-controller-manager 1.37
//
//   - The rules, their order, their filters and their sort are
//     pkg/controller/podgc's: isPodTerminated counts every phase but
//     Pending, Running and Unknown (an empty phase too); deletion order is
//     evicted (Failed, reason Evicted) first, then creationTimestamp, then
//     name; the out-of-service rule needs the node in the cache, not
//     Ready, with a taint of that key of any effect (NodeOutOfServiceVolumeDetach,
//     GA); a threshold of 0 or less turns off rule 1 only.
//   - The quarantine is the delaying queue's: a node keeps the earliest
//     time it was queued for, and one checked leaves the record, so it is
//     checked again a quarantine after that pass while its pods remain.
//   - markFailedAndDeletePodWithCondition: a pod not yet Succeeded or
//     Failed gets a strategic merge patch of its status (phase Failed,
//     observedGeneration its generation, metadata.uid as precondition);
//     the orphan rule adds the DisruptionTarget condition with reason
//     DeletionByPodGC and message "PodGC: node no longer exists"
//     (lastTransitionTime kept when the pod had such a condition with the
//     same status); then DELETE with gracePeriodSeconds 0.
//   - Metrics pod_gc_collector_force_delete_pods_total and
//     pod_gc_collector_force_delete_pod_errors_total{namespace,reason},
//     reason terminated, out-of-service, orphaned or unscheduled; every
//     attempt counts in the first, failed ones in both. The flag, its
//     default (12500) and usage are kube-controller-manager's; so are the
//     controller's name, alias (podgc) and client name
//     (pod-garbage-collector, whose bootstrap role
//     system:controller:pod-garbage-collector grants list, watch and
//     delete on pods, patch on pods/status, get, list and watch on nodes).
//
// # Deliberate differences
//
//   - Deletions run one after another in the rule's order; upstream
//     starts one goroutine per pod for rules 1 and 2. The controller's
//     client is rate limited (--kube-api-qps, 20 by default) either way,
//     so the throughput is the same; the order is deterministic and a
//     pass's goroutines stay the loop's one worker.
//   - Logs: the terminating pods whose node is not in the cache are
//     counted in one debug line per pass, where upstream logs an error
//     per pod (unscheduled ones included, for which it is no error).
//
// Kubernetes counterpart: pkg/controller/podgc (PodGCController, NewPodGC,
// gc, gcTerminated, gcTerminating, gcOrphaned, discoverDeletedNodes,
// gcUnscheduledTerminating, markFailedAndDeletePodWithCondition) and its
// metrics package; started by cmd/kube-controller-manager/app's
// newPodGarbageCollectorController as "pod-garbage-collector-controller",
// alias "podgc".
package podgc
