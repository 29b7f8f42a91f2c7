package endpoint

import (
	"errors"
	"fmt"
	"net"
	"strconv"
	"strings"

	"github.com/kcmlab/kcm/kube/api"
)

// ErrNoPodIPOfFamily: the pod has no IP of the Service's family (a
// dual-stack upgrade in progress); the pod is left out, as upstream does.
var ErrNoPodIPOfFamily = errors.New("no pod IP of the service's IP family")

// ErrNoPort: a named targetPort the pod does not declare (for the
// service port's protocol); the pod serves no address on that port.
var ErrNoPort = errors.New("no suitable port")

// shouldPodBeInEndpoints is endpointslice's ShouldPodBeInEndpoints: a
// terminal pod (Succeeded, Failed) never is, nor one without an IP; a
// terminating pod (deletionTimestamp set) only when includeTerminating,
// which the endpoints controller passes as publishNotReadyAddresses.
func shouldPodBeInEndpoints(pod *api.Pod, includeTerminating bool) bool {
	if pod.Status.Phase == api.PodSucceeded || pod.Status.Phase == api.PodFailed {
		return false
	}
	if pod.Status.PodIP == "" && len(pod.Status.PodIPs) == 0 {
		return false
	}
	return includeTerminating || pod.DeletionTimestamp == nil
}

// shouldSetHostname: the address carries the pod's hostname when the pod
// names this Service as its subdomain (endpointslice's ShouldSetHostname;
// headless or not).
func shouldSetHostname(pod *api.Pod, svc *api.Service) bool {
	return pod.Spec.Hostname != "" && pod.Spec.Subdomain == svc.Name && svc.Namespace == pod.Namespace
}

// podAddress is the endpoint address of pod for svc
// (podToEndpointAddressForService): the first pod IP of the Service's
// family, written in canonical form, the pod's node and a reference to it.
// The family is spec.ipFamilies[0]; without it, that of a set clusterIP;
// without one, that of status.podIP.
func podAddress(svc *api.Service, pod *api.Pod) (api.EndpointAddress, error) {
	wantIPv6 := false
	switch {
	case len(svc.Spec.IPFamilies) > 0:
		wantIPv6 = svc.Spec.IPFamilies[0] == api.IPv6Protocol
	case svc.Spec.ClusterIP != "" && svc.Spec.ClusterIP != api.ClusterIPNone:
		wantIPv6 = isIPv6(parseIPSloppy(svc.Spec.ClusterIP))
	default:
		wantIPv6 = isIPv6(parseIPSloppy(pod.Status.PodIP))
	}
	for _, p := range pod.Status.PodIPs {
		if ip := parseIPSloppy(p.IP); isIPv6(ip) == wantIPv6 {
			nodeName := pod.Spec.NodeName
			return api.EndpointAddress{
				IP:        ip.String(),
				NodeName:  &nodeName,
				TargetRef: &api.ObjectReference{Kind: "Pod", Namespace: pod.Namespace, Name: pod.Name, UID: pod.UID},
			}, nil
		}
	}
	return api.EndpointAddress{}, fmt.Errorf("service %s, pod %s: %w", svc.Name, pod.Name, ErrNoPodIPOfFamily)
}

// isIPv6 is k8s.io/utils/net IsIPv6: a parsed address that is not IPv4.
func isIPv6(ip net.IP) bool { return ip != nil && ip.To4() == nil }

// parseIPSloppy parses an IP as Go's net.ParseIP did before Go 1.17
// (k8s.io/utils/net ParseIPSloppy): IPv4 octets may have leading zeros,
// read as decimal. It returns nil for anything else.
func parseIPSloppy(s string) net.IP {
	if ip := net.ParseIP(s); ip != nil {
		return ip
	}
	if strings.Contains(s, ":") {
		return nil
	}
	parts := strings.Split(s, ".")
	if len(parts) != 4 {
		return nil
	}
	var b [4]byte
	for i, p := range parts {
		if p == "" || len(p) > 3 {
			return nil
		}
		n, err := strconv.Atoi(p)
		if err != nil || n > 255 || p[0] == '+' || p[0] == '-' {
			return nil
		}
		b[i] = byte(n)
	}
	return net.IPv4(b[0], b[1], b[2], b[3])
}

// findPort resolves a service port's targetPort in one pod (endpointslice's
// FindPort): a number is itself; a name is the containerPort of that name
// and the service port's protocol in the pod's containers, then in its
// sidecars (init containers with restartPolicy Always).
func findPort(pod *api.Pod, sp *api.ServicePort) (int32, error) {
	if !sp.TargetPort.IsString() {
		return int32(sp.TargetPort.IntValue()), nil
	}
	name := sp.TargetPort.StrValue()
	for _, c := range pod.Spec.Containers {
		for _, p := range c.Ports {
			if p.Name == name && p.Protocol == sp.Protocol {
				return p.ContainerPort, nil
			}
		}
	}
	for _, c := range pod.Spec.InitContainers {
		if c.RestartPolicy == nil || *c.RestartPolicy != string(api.RestartPolicyAlways) {
			continue
		}
		for _, p := range c.Ports {
			if p.Name == name && p.Protocol == sp.Protocol {
				return p.ContainerPort, nil
			}
		}
	}
	return 0, fmt.Errorf("pod %s, port %q: %w", pod.Name, name, ErrNoPort)
}

// endpointPort is the Endpoints port of a service port resolved to num.
func endpointPort(sp *api.ServicePort, num int32) api.EndpointPort {
	return api.EndpointPort{Name: sp.Name, Port: num, Protocol: sp.Protocol, AppProtocol: sp.AppProtocol}
}

// subsetOf is one address with (at most) one port, as a subset of its own:
// in addresses when the pod is ready or the Service publishes unready
// addresses, else in notReadyAddresses (addEndpointSubset). RepackSubsets
// merges them afterwards.
func subsetOf(pod *api.Pod, addr api.EndpointAddress, port *api.EndpointPort, publishNotReady bool) (api.EndpointSubset, bool) {
	s := api.EndpointSubset{Ports: []api.EndpointPort{}}
	if port != nil {
		s.Ports = append(s.Ports, *port)
	}
	if publishNotReady || api.IsPodReady(pod) {
		s.Addresses = []api.EndpointAddress{addr}
		return s, true
	}
	s.NotReadyAddresses = []api.EndpointAddress{addr}
	return s, false
}
