// Package nodelifecycle is the node lifecycle controller: it notices nodes
// that stopped reporting, marks their conditions Unknown, marks their pods
// NotReady so Services stop sending them traffic, and taints them so the
// taint eviction controller (ctrl/tainteviction) deletes their pods — at a
// rate that slows down or stops when a whole zone, or the whole cluster,
// looks dead (more likely the network or the controller than every node).
//
// # The idea
//
// A node proves it is alive two ways: its kubelet renews the node's Lease
// in kube-node-lease (every 10s by default) and posts the Ready condition
// with a new lastHeartbeatTime. The controller never compares those
// timestamps with its clock (the node's clock may be off): it keeps, per
// node, the time by its own clock when it last saw either change (the
// probe timestamp). A node silent for longer than
// --node-monitor-grace-period (--node-startup-grace-period if it never
// posted Ready) gets Ready, MemoryPressure, DiskPressure and PIDPressure
// set to Unknown ("NodeStatusUnknown", "Kubelet stopped posting node
// status."). Before that, with the NodeControllerLeaseCircuitBreaker gate
// (beta, on in 1.37), the Lease is re-read live: if it moved on, the
// Lease cache is behind and no node is judged until it catches up.
//
// Taints follow the Ready condition: False → node.kubernetes.io/not-ready,
// Unknown → node.kubernetes.io/unreachable, both as NoSchedule (at once,
// with the memory/disk/pid-pressure, network-unavailable and
// unschedulable taints) and as NoExecute. A NoExecute taint goes on
// through the node's zone queue, at the zone's rate; a node that already
// carries the opposite NoExecute taint has them swapped at once; a node
// Ready again loses both.
//
// Zones (the topology.kubernetes.io region and zone labels) have a state
// each pass: Normal, PartialDisruption (at least 3 nodes and
// --unhealthy-zone-threshold of them not Ready) or FullDisruption (none
// Ready). Normal and FullDisruption taint at --node-eviction-rate;
// PartialDisruption at --secondary-node-eviction-rate in zones larger than
// --large-cluster-size-threshold and not at all in smaller ones. When every
// zone is in FullDisruption the controller removes its NoExecute taints
// and stops tainting; when one zone recovers every node's probe time
// restarts.
//
// # Where it sits
//
//	Node informer ── add/update ──▶ node loop (8 workers) ──▶ noScheduleSync: NoSchedule condition taints
//	             ── delete: forget the retry mark
//	Pod informer ── newly bound ──▶ pod loop (4 workers) ──▶ podSync: pod on a not-Ready node → Ready=False
//	Lease informer (kube-node-lease): read by the monitor pass
//
//	every --node-monitor-period: monitorNodeHealth           (monitor.go)
//	   new nodes: RegisteredNode event, NoExecute taints removed; gone: RemovingNode
//	   per node (8 at a time): tryUpdateNodeHealth           (health.go: observe, markUnknown)
//	      expired ─▶ live Lease GET (circuit breaker) ─▶ PUT nodes/<n>/status (Unknown)
//	      processTaintBasedEviction: swap, or queue in the zone, or untaint   (evict.go)
//	      just became not Ready ─▶ NodeNotReady event, PUT pods/<p>/status Ready=False (pods.go)
//	   handleDisruption: ComputeZoneState per zone, zone rates  (zone.go)
//	every 100ms: noExecuteTaintingPass: each zone's queue ─▶ PATCH spec.taints (taints.go)
//
// The pure rules are functions tested alone: observe and markUnknown
// (health.go), ComputeZoneState, zoneQPS and planDisruption (zone.go),
// noScheduleDiff (taints.go), markReadyFalse (pods.go), and the zone
// queue with its token bucket on an injected clock (subpackage
// scheduler). The Controller (controller.go) holds the state and Run
// drives the passes; handlers.go turns notifications into keys; the
// node_collector_* metrics are in metrics.go.
//
// # Guarantees
//
//   - Health is judged by the controller's clock only (clock.Clock, fake in
//     tests), from when it saw the node's heartbeat or Lease change.
//   - A node is queued for its NoExecute taint once per outage (the zone
//     queue remembers it until the node is Ready again).
//   - No tainting while every zone is fully disrupted.
//
// # Differences from kube-controller-manager
//
//   - Taint writes read the node live and patch spec.taints with a JSON
//     merge patch under its resourceVersion (upstream: a strategic merge
//     patch, same effect: the list replaced, a concurrent change a
//     conflict), retried at once on a conflict up to 5 times (upstream
//     backs off).
//   - A monitor pass retries a failed health update at once, up to 5
//     times (upstream polls every 20ms).
//   - Pods per node come from one pass over the pod cache per monitor
//     pass (upstream: a spec.nodeName index).
//   - A failed NoSchedule pass is retried by the loop with backoff
//     (upstream logs it and waits for the next node event).
//   - The label reconciliation of the beta OS/arch labels, which upstream
//     runs in the same worker, is not done.
//   - A zone that lost all its nodes is dropped from the states at once
//     (upstream's loop may leave some for a later pass).
//
// # Kubernetes counterpart
//
// k8s.io/kubernetes/pkg/controller/nodelifecycle (node_lifecycle_controller.go:
// Controller, monitorNodeHealth, tryUpdateNodeHealth, handleDisruption,
// ComputeZoneState, doNoScheduleTaintingPass, doNoExecuteTaintingPass;
// metrics.go) and pkg/controller/util/node (MarkPodsNotReady,
// SwapNodeControllerTaint, RecordNodeStatusChange), at v1.37.2; the
// controller's name is "node-lifecycle-controller" (alias
// "nodelifecycle"), its events' source "node-controller".
package nodelifecycle
