// Package tainteviction is the taint eviction controller
// (kube-controller-manager's "taint-eviction-controller", the former
// taint manager of the node lifecycle controller): it deletes the pods
// running on a node with a NoExecute taint they do not tolerate, at once,
// and the pods that tolerate it for a while, once their tolerationSeconds
// have passed.
//
// # The idea
//
// A NoExecute taint on a node says "no pod may run here unless it
// tolerates me". The node lifecycle controller puts such taints on nodes
// that stop reporting (node.kubernetes.io/unreachable, not-ready); an
// administrator may put others. For each pod on a tainted node the
// controller asks Decide, a pure function of the node's taints, the pod's
// tolerations and the time:
//
//	no NoExecute taint                            ─▶ NoTaint:   cancel any scheduled eviction
//	a NoExecute taint no toleration tolerates     ─▶ EvictNow:  delete now (replacing a scheduled eviction)
//	each taint tolerated; the first toleration    ─▶ EvictAt:   delete at now + the least tolerationSeconds
//	  matching each taint sets tolerationSeconds                (≤ 0: now); a scheduled eviction is kept
//	each taint tolerated, none of those           ─▶ Tolerated: cancel any scheduled eviction (tolerate forever)
//	  tolerations sets tolerationSeconds
//
// The scheduled evictions (timed_workers.go) are a map from pod to its due
// time, served by the loop queue's delay heap: the key "evict/<ns>/<name>"
// is added after the delay, and a cancelled eviction simply leaves no
// entry behind for it to find. So the injected clock drives every timer,
// and no goroutine or timer exists per pod.
//
// # Where it sits
//
//	Node informer ─ add/delete; update when the NoExecute taints changed ─▶ "node/<name>" ─┐
//	Pod informer  ─ add/delete; update when tolerations or nodeName changed ─▶ "pod/<ns>/<name>" ─┼─▶ ctrl.Loop (8 workers) ─▶ Sync
//	timedEvictions ─ AddAfter(due − now) ─────────────────────────────▶ "evict/<ns>/<name>" ─┘
//
//	Sync("node/n"):  record n's NoExecute taints (forget a deleted node's);
//	                 none ─▶ cancel the evictions of n's pods; else Decide each pod of n
//	Sync("pod/k"):   pod gone ─▶ cancel its eviction; on a tainted node ─▶ Decide it
//	Sync("evict/k"): cancelled ─▶ nothing; due later ─▶ RequeueAfter;
//	                 else event "Marking for deletion Pod k", then up to 5 attempts 10 ms apart:
//	                   GET the pod; PATCH pods/status (strategic merge, uid precondition) with the
//	                   DisruptionTarget condition unless it has it; DELETE the pod
//
// Node and pod decisions hold one mutex, so a pod is never decided on
// older taints than its node's update used; they make no API call.
// Evictions run outside it, in parallel on the loop's workers.
//
// One concept per file: decide.go (Decide, the rule), timed_workers.go
// (the scheduled evictions), controller.go (Descriptor, New, Sync, the
// node and pod decisions), handlers.go (informer handlers), evict.go (the
// eviction: events, condition, deletion, retries), metrics.go (the
// taint_eviction_controller_* families).
//
// # Guarantees
//
//   - A pod on a node with a NoExecute taint it does not tolerate gets the
//     DisruptionTarget condition (reason DeletionByTaintManager) and is
//     deleted, with a TaintManagerEviction event first; one that tolerates
//     every such taint for a time is deleted that long after the taint was
//     seen, unless the taint goes, the pod goes, or its tolerations come to
//     tolerate the taints forever first — then "Cancelling deletion of Pod"
//     is recorded.
//   - A pod that tolerates every NoExecute taint without tolerationSeconds
//     is never deleted by this controller.
//   - Evictions are due at the times of the injected clock; tests step a
//     clock.Fake, no test sleeps.
//   - Shutdown is bounded: Run returns when the loop's workers have
//     stopped (the loop's drain timeout); scheduled evictions die with the
//     queue.
//
// # Deliberate differences from kube-controller-manager
//
//   - One queue and one loop instead of two queues feeding eight
//     node-hashed channels: ordering between a node's update and its pods'
//     comes from the decision mutex instead; node updates are not given
//     priority over pod updates (they are cheap either way).
//   - Evictions run on the loop's 8 workers rather than a goroutine each;
//     the client's rate limit bounds them in both.
//   - An eviction already scheduled is kept on re-evaluation (upstream
//     replaces it only when it was created at the very instant of the
//     re-evaluation or later, which a fake clock would show and a real
//     one does not).
//   - When a failed eviction's work ends, kcm forgets that eviction only,
//     not one scheduled anew meanwhile.
//   - pod_deletion_duration_seconds observes seconds; upstream multiplies
//     a duration by time.Second before converting, so its observations
//     all land in +Inf.
//   - The pods of a node are found by scanning the pod cache (upstream
//     indexes pods by spec.nodeName).
//
// # Kubernetes counterpart
//
// pkg/controller/tainteviction (taint_eviction.go: Controller, New, Run,
// processPodOnNode, handleNodeUpdate, handlePodUpdate,
// addConditionAndDeletePod; timed_workers.go: TimedWorkerQueue;
// metrics/metrics.go) at v1.37.2, started by
// cmd/kube-controller-manager/app/core.go newTaintEvictionController with
// the "node-controller" client and RBAC role (kcm: ClientName and the
// "taint-eviction-controller" rules of deploy/rbac.yaml).
package tainteviction
