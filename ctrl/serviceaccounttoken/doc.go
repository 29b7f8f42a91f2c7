// Package serviceaccounttoken is the serviceaccount-token controller: it
// fills Secrets of type kubernetes.io/service-account-token with a legacy
// (secret-based, non-expiring) token signed by
// --service-account-private-key-file, plus ca.crt and namespace, and
// deletes token Secrets whose ServiceAccount is gone. Workloads that still
// mount such Secrets, and tools that create one to get a long-lived
// token, depend on it; kube-apiserver verifies the tokens with its
// --service-account-key-file.
//
//	ServiceAccount add/update/delete ──key ns/name/uid──▶ account loop ──▶ SyncServiceAccount
//	    account gone from the cache (or another UID)  ──▶ DELETE its token Secrets (UID precondition)
//
//	token Secret add/update/delete ──key ns/name/uid/sa/saUID──▶ secret loop ──▶ SyncSecret
//	    Secret gone          ──▶ drop its name from the account's secrets (conflicts retried)
//	    account gone         ──▶ DELETE the Secret (UID precondition)
//	    token, namespace or ca.crt missing/stale ──▶ GET, same resourceVersion? ──▶ PUT with them filled in
//
// # Tokens
//
// jwt.go writes compact JWS without a JWT library: header
// {"alg":…,"kid":…} (kid: base64url SHA-256 of the public key's PKIX
// DER), payload with iss "kubernetes/serviceaccount", sub
// "system:serviceaccount:<ns>:<name>" and the four
// kubernetes.io/serviceaccount/* claims, byte for byte what upstream's
// go-jose generator writes (the tests hold its vectors); RS256 for RSA
// keys, ES256/ES384/ES512 for ECDSA keys on P-256/P-384/P-521. key.go
// reads the key file as client-go's keyutil does (PKCS #1, SEC 1, PKCS #8
// PEM blocks; others skipped), bounded to MaxKeyFileBytes.
//
// # Guarantees
//
//   - The private key is never logged, printed or put in an error: a
//     Signer renders as its algorithm and key ID under every fmt verb,
//     json and zerolog; key-file errors name the file and the PEM block
//     types, never bytes.
//   - A Secret is written only from a fresh GET whose resourceVersion is
//     the cache's, so a token is never written over someone else's newer
//     change; a conflict or a Secret gone is not an error.
//   - Deletions carry the Secret's UID as a precondition: a Secret
//     re-created under the same name is never deleted for its
//     predecessor's account.
//   - Retries as upstream: cache and write failures are retried with the
//     loop's backoff, at most MaxRetries times in a row; parse errors, a
//     Secret gone between cache and GET and a failed reference removal
//     are logged and not retried (ctrl.TerminalError).
//
// # Kubernetes counterpart
//
// kubernetes/pkg/controller/serviceaccount TokensController
// (tokens_controller.go) with pkg/serviceaccount's JWTTokenGenerator and
// LegacyClaims; registered in kube-controller-manager as
// "serviceaccount-token-controller" (alias "serviceaccount-token"),
// --concurrent-serviceaccount-token-syncs 5,
// --service-account-private-key-file and --root-ca-file
// (cmd/kube-controller-manager/app/service_accounts.go). Without a key
// file it does not start, with kube-controller-manager's log line.
// Upstream starts it before the other controllers, whose service-account
// credentials it mints; kcm's controllers use kcm's credentials, so it
// starts in list order. Its two queues are loops named
// "serviceaccount-token-controller" and
// "serviceaccount-token-controller-secrets".
package serviceaccounttoken
