// Package podgen generates the objects kcm's benchmarks and tests feed to
// the engine: pods as a Deployment's pods look on a real cluster, their
// ReplicaSets, list responses, watch event streams, and a loopback server
// that answers LIST, WATCH and WatchList from bytes encoded once.
//
// Where it sits: it stands in for the apiserver, at the far left of the
// data path.
//
//	podgen.Server ──LIST / WATCH / WatchList──▶ rest client ─▶ reflector ─▶ deltafifo ─▶ store ─▶ processor ─▶ handler
//	(pre-encoded bytes, identical for every engine under test)
//
// Guarantees:
//
//   - Deterministic: Pod(i), ReplicaSet(i), List and WatchEvents return the
//     same bytes in every call and every process; values derive from the
//     index through a fixed hash, never from a random source or the clock.
//   - Realistic: each pod carries what kube-apiserver 1.34 writes for a
//     running Deployment pod — generateName, uid, resourceVersion,
//     creationTimestamp, app and pod-template-hash labels, an annotation,
//     a controller ownerReference to its ReplicaSet, two managedFields
//     entries (kube-controller-manager's Update and the kubelet's status
//     Update) with FieldsV1 trees shaped like real ones; a spec with one or
//     two containers (ports, env, resources, volume mounts), the projected
//     kube-api-access-xxxxx token volume, the not-ready/unreachable
//     tolerations and a nodeName; a status with the five pod conditions,
//     running container statuses, pod and host IPs, qosClass and startTime.
//     Objects spread over Namespaces namespaces and Nodes nodes.
//   - Sizes: a pod is 4.8-6.1 KB of JSON (mean about 5.2 KB), of which
//     managedFields is about 2 KB; stripped of managedFields, as kcm caches
//     it, 3.0-3.9 KB (mean about 3.3 KB). TestSizes (podgen_test.go)
//     checks each range and each mean.
//
// There is no client-go counterpart; it plays the part of the fake
// apiservers client-go's own benchmarks build by hand.
package podgen
