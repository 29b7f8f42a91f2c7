// Package serviceaccount is the serviceaccount controller: it makes sure
// every active namespace has a ServiceAccount named "default", creating it
// when a namespace appears or becomes active and re-creating it when it is
// deleted. kube-apiserver's ServiceAccount admission refuses pods in a
// namespace until "default" exists, so the controller is on by default.
//
//	Namespace added/updated ──────────────┐
//	ServiceAccount "default" deleted ─────┴──namespace name──▶ queue ──▶ sync(ns)
//	                                                                       │
//	   namespace not found or not Active ──▶ nothing                      │
//	   "default" in the cache            ──▶ nothing                      ▼
//	   otherwise                         ──▶ POST serviceaccounts {"metadata":{"name":"default"}}
//
// A create that finds the account already there (the cache was behind) or
// the namespace terminating is not an error.
//
// # Kubernetes counterpart
//
// kubernetes/pkg/controller/serviceaccount ServiceAccountsController
// (serviceaccounts_controller.go), registered in kube-controller-manager as
// "serviceaccount-controller" with the alias "serviceaccount" and one
// worker.
package serviceaccount
