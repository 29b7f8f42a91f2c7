// Package podaddr holds the pod rules that the endpoints and EndpointSlice
// controllers share: which pods are endpoints at all, when an endpoint
// carries the pod's hostname, how a Service's targetPort resolves in one
// pod, and how pod IPs are parsed and sorted into families.
//
//	pod ──ShouldBeInEndpoints──▶ (terminal, no IP, terminating) left out
//	    ──FindPort(servicePort)──▶ the container port, per pod
//	    ──ShouldSetHostname──▶ hostname on the address / endpoint
//	    ──ParseIPSloppy / IsIPv6──▶ the address family of each pod IP
//
// # Guarantees
//
// The functions are pure: they read the pod and Service given and modify
// nothing. They behave as the Kubernetes helpers named on each.
//
// # Kubernetes counterpart
//
// k8s.io/endpointslice/util ShouldPodBeInEndpoints and ShouldSetHostname,
// k8s.io/endpointslice FindPort (also in pkg/api/v1/pod), and
// k8s.io/utils/net ParseIPSloppy and IsIPv6.
package podaddr
