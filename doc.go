// Package kcm is a Kubernetes informer/cache engine and controller-manager
// written from scratch, without client-go. This package holds no code: it is
// the table of contents. Read the chapters in this order; each opens with a
// doc.go that names the concept, draws its place in the pipeline, states
// its guarantees and gives the client-go name it corresponds to.
//
//		kube-apiserver ─LIST+WATCH─▶ reflector ─▶ deltafifo ─▶ store ─▶ processor ─▶ handler ─▶ queue ─▶ workers
//		                             └──────────── informer (one per resource, shared by a Factory) ──────────┘
//		lease: only the leader runs controllers
//
//	 1. kube       — overview of the four packages below, read in this order:
//	    kube/api       — the object model: ObjectMeta, Object, RawObject, typed kinds, codecs
//	    kube/labels    — label selectors: parse, compile, match
//	    kube/rest      — the REST client: Client, Resources, list/watch, errors, retries
//	    kube/clientcmd — kubeconfig, exec plugins, in-cluster: a rest.Config
//	 2. testenv    — the real etcd + kube-apiserver the tests and `make dev` run
//	 3. clock      — the injectable clock, so tests step time
//	 4. reflector  — LIST + WATCH as an explicit state machine
//	 5. deltafifo  — the arrival-ordered queue of changes
//	 6. store      — the lock-free-read cache with copy-on-write B-tree indexes
//	 7. processor  — fan-out to event handlers, one buffer each
//	 8. informer   — the pieces assembled; the shared Factory; listers
//	 9. queue      — the work queue: dedup, processing set, rate-limited retries
//	 10. lease     — leader election on a coordination.k8s.io Lease
//	 11. ctrl      — the controller framework: registry, context, work loop,
//	                 expectations, events; ctrl/<name> the controllers
//	 12. cmd/kcm   — the binary: kcm dev, kcm trace
//
// Benchmarks against client-go live in the separate module bench/.
package kcm
