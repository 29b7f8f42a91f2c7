// Package legacysatokencleaner is the legacy-serviceaccount-token-cleaner
// controller: once a day it finds the auto-generated legacy
// service-account token Secrets nobody has used for
// --legacy-service-account-token-clean-up-period (one year by default),
// labels them kubernetes.io/legacy-token-invalid-since=<today> (which
// makes kube-apiserver refuse them), and deletes them once that label is
// as old as the period.
//
//	one pass, 24h after the previous one ended (the loop's only key, RequeueAfter)
//	  GET kube-system/kube-apiserver-legacy-service-account-token-tracking "since"
//	    tracked for less than the period ──▶ nothing
//	  every token Secret in the cache:
//	    created within the period, being deleted, last-used within the period  ──▶ kept
//	    its account (cache, by annotation name and UID) does not list it      ──▶ kept (not auto-generated)
//	    a pod of its namespace refers to it (VisitPodSecretNames's places)    ──▶ kept
//	    no valid invalid-since label ──▶ PATCH (merge) the label, today's UTC date
//	    invalid since before the period ──▶ DELETE (resourceVersion precondition)
//
// kube-apiserver writes the kubernetes.io/legacy-token-last-used label
// when a legacy token authenticates a request (at most daily), so a token
// in use is never marked.
//
// # Guarantees
//
//   - A token is deleted only after a full period unused and another full
//     period marked invalid; a Secret changed since the cache saw it is
//     left for the next pass (the delete's resourceVersion precondition),
//     and the label patch carries the Secret's UID (a re-created Secret is
//     never marked for its predecessor).
//   - A pass never fails: errors are logged and the next pass retries.
//     The pass is deterministic under an injected clock.
//
// # Kubernetes counterpart
//
// kubernetes/pkg/controller/serviceaccount LegacySATokenCleaner
// (legacy_serviceaccount_token_cleaner.go), registered in
// kube-controller-manager as "legacy-serviceaccount-token-cleaner-controller"
// (alias "legacy-serviceaccount-token-cleaner"), on by default,
// --legacy-service-account-token-clean-up-period 8760h0m0s,
// DefaultCleanerSyncInterval 24h, its client named
// "legacy-service-account-token-cleaner".
package legacysatokencleaner
