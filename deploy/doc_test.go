// Package deploy_test checks the manifests in deploy/ against a real
// kube-apiserver: the RBAC the kcm manager runs with in a cluster.
package deploy_test
