// Package clientcmd finds a cluster and who to be there, and boils it down
// to a rest.Config: kubeconfig files, exec credential plugins, the pod's
// service account.
//
// # Where it sits
//
//	--kubeconfig, --master ─┐
//	service account (pod)  ─┼─▶ BuildConfig ──▶ *rest.Config ──▶ rest.NewClient
//	$KUBECONFIG, ~/.kube   ─┘         Credentials: TokenFile, BasicAuth,
//	                                   ExecCredentials, rest.StaticToken
//
// # Finding a cluster
//
// BuildConfig does what kube-controller-manager does: an explicit
// --kubeconfig or --master wins, then the pod's service account
// (InClusterConfig), then $KUBECONFIG (several files merged: the first
// file that sets a value wins) and ~/.kube/config (LoadKubeconfig).
// Contexts, CA files or data, insecure-skip-tls-verify (only when set),
// tls-server-name, tokens and rotating token files, client certificates,
// basic auth and exec credential plugins (client.authentication.k8s.io
// v1 and v1beta1) are supported.
//
// # Guarantees
//
//   - Problems surface when the config is built, named: a malformed file
//     yields a KubeconfigError naming the file, the context and the field;
//     YAML errors name the file, the line and the key, never a value (the
//     decoder's own messages, which quote anchors, tags and values, are
//     rebuilt: yamlerr.go);
//     certificates, keys and CA bundles are checked before any request.
//   - Every read is bounded: a kubeconfig file by MaxKubeconfigBytes, CA,
//     certificate and key files by MaxPEMFileBytes (16 MiB each), token
//     files by MaxTokenFileBytes (1 MiB); past a limit the error wraps
//     ErrFileTooLarge and names the file and the limit
//     (--kubeconfig=/dev/zero fails at once). An exec plugin's stdout is
//     capped at 1 MiB (an error past it) and its stderr at 64 KiB.
//   - An exec plugin runs in a process group of its own: on timeout the
//     whole group is killed, and whatever the plugin leaves in it is killed
//     when it ends, so no child outlives it; a child that keeps stdout open
//     after the plugin exited cleanly does not cost the credential printed.
//   - Rotating credentials refresh themselves: a TokenFile re-reads the
//     kubelet's projected token, ExecCredentials re-run the plugin at
//     expiry or after a 401, both on kcm's clock (the Clock options).
//   - Secrets (tokens, passwords, key data, exec args and env values)
//     never appear in errors or logs, and no type here prints them: every
//     fmt verb, json.Marshal and zerolog print redacted views (redact.go).
//
// # client-go names
//
// BuildConfig ≈ clientcmd.BuildConfigFromFlags; LoadKubeconfig,
// ReadKubeconfig ≈ clientcmd's loading rules; Kubeconfig ≈ clientcmdapi.Config;
// InClusterConfig ≈ rest.InClusterConfig; ExecCredentials ≈ the exec
// credential plugin of client-go's plugin/pkg/client/auth/exec.
package clientcmd
