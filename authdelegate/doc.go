// Package authdelegate decides who may read kcm's secure port: it
// authenticates each request and authorizes it by asking the apiserver,
// as kube-controller-manager does through k8s.io/apiserver's delegating
// authentication and authorization (the --authentication-* ,
// --client-ca-file, --requestheader-* and --authorization-* flags).
//
// # Where it sits
//
// The pipeline's data never passes here. It stands in front of the
// manager's HTTPS mux, the way into /metrics, /configz, /debug/pprof/,
// /debug/controllers/ and /debug/pipeline:
//
//	client ──TLS──▶ Handler ─┬─ authenticate: front proxy │ client certificate │ bearer token │ anonymous
//	                         │                    (headers)   (client CA)         (TokenReview)
//	                         ├─ authorize: system:masters │ always-allowed path │ SubjectAccessReview
//	                         └─ the mux (/healthz, /metrics, ...) only when allowed
//	                                       ▲                                   ▲
//	               kube-system/extension-apiserver-authentication       kube-apiserver
//	               (client CA, front-proxy CA and headers)              (reviews, cached)
//
// # Authentication
//
// Four ways, tried in kube-controller-manager's order; the first that
// succeeds names the user, and every authenticated user is also in
// system:authenticated:
//
//  1. Front proxy. A client certificate signed by the request-header CA
//     (--requestheader-client-ca-file, or the ConfigMap's) whose common
//     name is in --requestheader-allowed-names (any, when empty) may name
//     the user in X-Remote-User, its groups in X-Remote-Group and extras
//     in X-Remote-Extra-<key>. Anyone else's such headers are removed,
//     never believed.
//  2. Client certificate. One that verifies against the client CA
//     (--client-ca-file, or the ConfigMap's client-ca-file) is the user
//     of its common name, in the groups of its organizations.
//  3. Bearer token. "Authorization: Bearer <t>" is sent to the apiserver
//     as a TokenReview. Answers are cached by the token's SHA-256 for
//     --authentication-token-webhook-cache-ttl (10 s): authenticated
//     and not alike, so a token the apiserver refused is not asked about
//     again within the TTL. Concurrent requests with one token share one
//     review.
//  4. Anonymous. A request that presents none of these is
//     system:anonymous in system:unauthenticated.
//
// Credentials that are presented and fail — a certificate that does not
// verify, a token the apiserver refused or could not review — end the
// request with 401 (even on /healthz), as upstream; absent ones make it
// anonymous.
//
// # Authorization
//
// Members of system:masters are allowed everything, as kube-apiserver's
// own authorizer would answer; the paths of
// --authorization-always-allow-paths (/healthz, /readyz, /livez) are
// allowed to anyone, anonymous included, so a kubelet probes without
// credentials; every other request is a SubjectAccessReview for the
// non-resource URL and the lower-cased method as verb ("get" on
// "/metrics"), cached for --authorization-webhook-cache-authorized-ttl
// when allowed and -unauthorized-ttl otherwise (10 s each). What nobody
// allows is forbidden: 403.
//
// # Without kubeconfigs
//
// --authentication-kubeconfig and --authorization-kubeconfig name where
// the reviews go. Left empty, the pod's own service account is used;
// outside a pod that part is left out with a warning, as
// kube-controller-manager does: no token is accepted, no client CA is
// looked up, and only the health paths (and system:masters by a
// --client-ca-file certificate) are allowed.
//
// # Guarantees
//
//   - Fail closed. A review that cannot be made (the apiserver down, a
//     timeout of ReviewTimeout, an answer that does not decode) refuses
//     the request — 401 for a token, 403 for authorization — and is never
//     cached, so the next request asks again. Allowed answers age out by
//     the injected clock: with the apiserver gone, a user allowed before
//     keeps access for at most the authorized TTL, then nobody new or old
//     gets in.
//   - Bounded cost. Each cache holds at most DefaultCacheSize entries.
//     Reviews of tokens and of access the caches do not know pass a gate:
//     a token bucket of DefaultReviewBurst (400) refilled at
//     DefaultReviewQPS (200) per second, read with the injected clock, and
//     at most DefaultReviewInFlight (32) at once. A request that finds the
//     bucket empty is refused at once (ErrTooManyReviews) instead of
//     queueing, so a flood of random tokens costs the apiserver at most
//     400 + 200 × seconds reviews, whatever the number of requests; the
//     rate and burst are those of k8s.io/apiserver's delegating clients.
//   - The client CA and front-proxy settings looked up in
//     kube-system/extension-apiserver-authentication are read once at
//     start (a failure is fatal unless
//     --authentication-tolerate-lookup-failure) and every
//     RefreshInterval after, keeping the last good ones.
//
// # Metrics
//
// With Config.Registerer, k8s.io/apiserver's families under their names:
// apiserver_delegated_authn_request_total and
// apiserver_delegated_authz_request_total by the answer's status code
// ("<error>" when none came), with their _request_duration_seconds
// histograms.
//
// # Kubernetes names
//
// DelegatingAuthenticationOptions, DelegatingAuthorizationOptions,
// authenticatorfactory.DelegatingAuthenticatorConfig (union of
// requestheader, x509 and the cached webhook token authenticator, then
// anonymous), authorizerfactory.DelegatingAuthorizerConfig (webhook
// SubjectAccessReview authorizer), path.NewAuthorizer and
// NewPrivilegedGroups, all in k8s.io/apiserver.
package authdelegate
