// Package statefulset is the StatefulSet controller (kube-controller-manager's statefulset-controller).
package statefulset
