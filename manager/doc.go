// Package manager is kcm's controller manager: the program `kcm` runs. It
// reads kube-controller-manager's command line, serves health and metrics
// endpoints, campaigns for the leader Lease, and, while it leads, starts
// the controllers of package ctrl on one shared informer factory.
//
// # Where it sits
//
// Everything below the manager is a library; the manager is what puts the
// pieces together in one process, in the order kube-controller-manager
// does:
//
//	kcm [flags] ─▶ NewControllerManagerCommand ─▶ Parse ─▶ Options (validated)
//	                                                         │
//	Run ─┬─ HTTPS :10257 ─ /healthz /readyz /livez /metrics  │ (always, leader or not)
//	     └─ lease.Elector (kube-system/kube-controller-manager, ReleaseOnCancel)
//	            │ OnStartedLeading(ctx) — only the leader goes on:
//	            ▼
//	        ctrl.CreateControllerContext   one informer.Factory, a client per controller
//	                                       (as its own ServiceAccount under
//	                                       --use-service-account-credentials:
//	                                       ctrl/clientbuilder)
//	        BuildControllers               each enabled descriptor's constructor takes its
//	                                       informers and registers its handlers
//	        InformerFactory.Start          LIST+WATCH begin
//	        InformerFactory.WaitForCacheSync
//	        StartControllers               every controller's workers (ctrl.Loop.Run)
//
// The controllers the binary knows are listed once, in controllers.go
// (NewControllerDescriptors); --controllers, the --concurrent-<x>-syncs
// flags, --help and the /healthz checks are all derived from that list.
//
// One concept per file: options.go (the flag values, defaults and
// Validate), flags.go (the flags in their --help sections), parse.go
// (NewControllerManagerCommand, Parse, --help), kcmflags.go (the names of
// kube-controller-manager v1.37's flags), run.go (Config and Run), elect.go
// (the elector, the leader's callback and the leaderElection check),
// start.go (BuildControllers, StartControllers), status.go (what the
// controller and readiness checks read), healthz.go (the k8s-style health
// handler), serve.go and tls.go (the HTTPS server and its certificate),
// debug.go (the controllers' pages under /debug/controllers/<name>/),
// profiling.go (/debug/pprof/ under --profiling), configz.go (/configz),
// controllers.go (the
// registry, above), metrics.go, logging.go, version.go.
//
// # The command line
//
// Flag names, types and defaults are kube-controller-manager v1.37's, so
// its command lines work unchanged for the flags kcm has. A flag
// kube-controller-manager has and kcm does not is refused by name —
// "kcm does not support kube-controller-manager's flag --X; see kcm
// --help" — and never ignored, since an ignored flag is a setting the
// operator believes is in force. A flag nobody has gets pflag's "unknown
// flag". --kube-api-content-type defaults to
// application/vnd.kubernetes.protobuf, as kube-controller-manager's, and
// is the content type of every client the manager builds (see Options).
// Deliberate differences: --leader-elect-resource-lock accepts only "leases" (the one
// lock client-go still has), and --log-format is accepted as another
// spelling of --logging-format.
//
// # Guarantees
//
//   - Only the leader runs controllers. With --leader-elect (the default)
//     no informer starts and no worker runs before the Lease is held; the
//     serving endpoints run on every instance, so a standby answers probes.
//   - A stop (SIGTERM or SIGINT, i.e. Run's context ending) stops taking
//     keys, lets the syncs in flight finish within each loop's drain
//     timeout, stops the informers, releases the Lease (holderIdentity
//     cleared, as client-go's ReleaseOnCancel leaves it) and returns nil.
//   - A lost Lease (a renewal deadline passed, or another holder) cancels
//     the syncs in flight at once (ctrl.WithAbort) instead of draining
//     them, and Run returns an error wrapping ErrLeaderElectionLost: the
//     binary exits 1, as kube-controller-manager exits on "leaderelection
//     lost". The lease package stops the leader at RenewDeadline, so no
//     write of this instance overlaps the next leader's (see package lease).
//   - A controller that cannot be built ends Run with its error; one whose
//     Run fails turns its /healthz check red.
//
// # Endpoints
//
// On --bind-address:--secure-port (0.0.0.0:10257; --secure-port=0 serves
// nothing), over HTTPS with --tls-cert-file, else a self-signed
// certificate kept in memory, or written to and reused from --cert-dir:
//
//	/healthz   leaderElection (fails when this leader has not renewed for
//	           lease duration + 20 s, client-go's HealthzAdaptor rule), and one
//	           check per enabled controller, named after it
//	/readyz    the same, and informer-sync (a leader whose caches have not synced)
//	/livez     leaderElection (ping without leader election)
//	/metrics   Go runtime and process collectors, leader_election_master_status
//	           {name="<lease name>"}, the workqueue_* and controller_runtime_*
//	           series of every controller, client-go's rest_client_requests_total
//	           {code,host,method}, rest_client_request_duration_seconds and
//	           rest_client_rate_limiter_duration_seconds, every informer's
//	           reflector_* series {name="pods"} (lists, watches, short watches,
//	           durations, items, last resourceVersion, reflector_errors_total
//	           {op,reason}), and the informers' error counters
//	           (informer_transform_errors_total, informer_handler_panics_total;
//	           listed once they count something)
//	/debug/controllers/<name>/  the pages of a controller that has them
//	           (ctrl.Debuggable), under its name and its aliases, as
//	           kube-controller-manager mounts them: the garbage collector's
//	           graph in DOT at .../garbage-collector-controller/graph (?uid=
//	           repeatable; also under garbagecollector); 404 while this
//	           instance does not lead
//
//	/debug/pipeline  only with --enable-pipeline-view (kcm's own flag, off by
//	           default): the live view of the pipeline (package pipeview), a
//	           page and its WebSocket at /debug/pipeline/ws
//	/debug/pprof/  with --profiling (kube-controller-manager's flag, on by
//	           default as there): Go's profiles, as kube-controller-manager
//	           serves them
//	/configz   the running configuration (the flags' values, no secret) under
//	           "componentconfig", as kube-controller-manager's
//
// ?verbose lists "[+]name ok" / "[-]name failed: reason" lines and
// ?exclude=name skips a check, as on Kubernetes components; /healthz/<name>
// runs one check. kcm prints the failure reason where kube-apiserver writes
// "reason withheld".
//
// Authentication and authorization: every request passes package
// authdelegate first, as kube-controller-manager delegates both to the
// apiserver: a front proxy's headers, a client certificate of the client
// CA or a bearer token (TokenReview) names the user, anonymous otherwise;
// /healthz, /readyz and /livez are allowed to anyone, system:masters
// everything, and every other request is a SubjectAccessReview (get on the
// path). The --authentication-*, --client-ca-file, --requestheader-* and
// --authorization-* flags are kube-controller-manager's; without
// kubeconfigs, in a pod its service account is used, elsewhere only the
// health paths (and system:masters by a --client-ca-file certificate) are
// allowed.
//
// # The pipeline view
//
// Config.Pipeline, or with --enable-pipeline-view a view Run makes and
// runs itself, is fed by everything the Run builds: the base client (so
// every controller's client, each reporting its writes under its
// User-Agent), the shared informers and every controller's loop (through
// ctrl.Config.Tap), and the elector's Status. The secure port serves the
// page only with --enable-pipeline-view, authorized like /metrics (get on
// /debug/pipeline); kcm dev hands in its own view and serves it
// on 127.0.0.1 over plain HTTP. While no browser is connected, reporting
// costs one atomic load per event.
//
// # Kubernetes counterparts
//
// cmd/kube-controller-manager/app: NewControllerManagerCommand, Run,
// CreateControllerContext (ctrl.CreateControllerContext here),
// NewControllerDescriptors, StartControllers (kcm splits it into
// BuildControllers and StartControllers, the names of the walkthroughs),
// leaderElectAndRun (newElector); k8s.io/apiserver's healthz handler
// (InstallHealthChecks); client-go's leaderelection.HealthzAdaptor
// (leaderElectionCheck).
//
// # How it is tested
//
// Unit tests parse command lines (every shared default compared with
// kube-controller-manager v1.37's; each rejection and its message), drive
// the health handler and the three endpoints through httptest recorders,
// ask the leaderElection check at times set on a fake clock, and check
// --help's sections. manager_integration_test.go (build constraint
// !nocluster) runs Run against a real kube-apiserver: the leader's
// identity on the Lease, the endpoints over HTTPS, a namespace given its
// default ServiceAccount, the release on stop; a standby that waits; a
// leader whose Lease is taken from it returning ErrLeaderElectionLost.
package manager
