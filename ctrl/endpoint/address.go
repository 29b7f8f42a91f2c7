package endpoint

import (
	"errors"
	"fmt"

	"github.com/kcmlab/kcm/ctrl/internal/podaddr"
	"github.com/kcmlab/kcm/kube/api"
)

// ErrNoPodIPOfFamily: the pod has no IP of the Service's family (a
// dual-stack upgrade in progress); the pod is left out, as upstream does.
var ErrNoPodIPOfFamily = errors.New("no pod IP of the service's IP family")

// ErrNoPort: a named targetPort the pod does not declare (for the
// service port's protocol); the pod serves no address on that port. The
// pod rules (which pods are endpoints, hostnames, named ports, IP
// families) are package podaddr's, shared with the EndpointSlice
// controller.
var ErrNoPort = podaddr.ErrNoPort

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
		wantIPv6 = podaddr.IsIPv6(podaddr.ParseIPSloppy(svc.Spec.ClusterIP))
	default:
		wantIPv6 = podaddr.IsIPv6(podaddr.ParseIPSloppy(pod.Status.PodIP))
	}
	for _, p := range pod.Status.PodIPs {
		if ip := podaddr.ParseIPSloppy(p.IP); podaddr.IsIPv6(ip) == wantIPv6 {
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
