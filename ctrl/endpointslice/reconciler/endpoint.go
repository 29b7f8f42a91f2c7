package reconciler

import (
	"github.com/rs/zerolog"

	"github.com/kcmlab/kcm/ctrl/internal/podaddr"
	"github.com/kcmlab/kcm/kube/api"
)

// LabelTopologyZone is the Node label an endpoint's zone is read from.
const LabelTopologyZone = "topology.kubernetes.io/zone"

// addressTypes returns the address types svc gets slices of, IPv4 before
// IPv6 (getAddressTypesForService): one per entry of spec.ipFamilies;
// without them (an apiserver that predates dual-stack), the family of a
// set clusterIP, and for a headless Service both.
func addressTypes(svc *api.Service) []string {
	var v4, v6 bool
	for _, f := range svc.Spec.IPFamilies {
		switch f {
		case api.IPv4Protocol:
			v4 = true
		case api.IPv6Protocol:
			v6 = true
		}
	}
	if !v4 && !v6 {
		if serviceIPSet(svc) {
			// IsIPv6String: an unparsable clusterIP counts as IPv4.
			ip := podaddr.ParseIPSloppy(svc.Spec.ClusterIP)
			v6 = podaddr.IsIPv6(ip)
			v4 = !v6
		} else {
			v4, v6 = true, true
		}
	}
	var out []string
	if v4 {
		out = append(out, api.AddressTypeIPv4)
	}
	if v6 {
		out = append(out, api.AddressTypeIPv6)
	}
	return out
}

// podToEndpoint is the endpoint of pod in svc's slices of addressType
// (podToEndpoint):
//   - addresses: the pod's IPs of that family, in canonical form;
//   - serving: the pod is Ready; terminating: it has a deletionTimestamp;
//     ready: serving and not terminating — or always, when the Service
//     publishes not-ready addresses;
//   - targetRef to the pod, nodeName when set, zone from the node's
//     topology.kubernetes.io/zone label (node may be nil), hostname when
//     the pod names the Service as its subdomain.
func podToEndpoint(pod *api.Pod, node *api.Node, svc *api.Service, addressType string) api.Endpoint {
	serving := api.IsPodReady(pod)
	terminating := pod.DeletionTimestamp != nil
	ready := svc.Spec.PublishNotReadyAddresses || (serving && !terminating)
	ep := api.Endpoint{
		Addresses:  podAddresses(pod, addressType),
		Conditions: api.EndpointConditions{Ready: &ready, Serving: &serving, Terminating: &terminating},
		TargetRef:  &api.ObjectReference{Kind: "Pod", Namespace: pod.Namespace, Name: pod.Name, UID: pod.UID},
	}
	if pod.Spec.NodeName != "" {
		name := pod.Spec.NodeName
		ep.NodeName = &name
	}
	if node != nil && node.Labels[LabelTopologyZone] != "" {
		zone := node.Labels[LabelTopologyZone]
		ep.Zone = &zone
	}
	if podaddr.ShouldSetHostname(pod, svc) {
		host := pod.Spec.Hostname
		ep.Hostname = &host
	}
	return ep
}

// podAddresses are the pod's IPs (status.podIPs) of the address type,
// parsed sloppily and written in canonical form (getEndpointAddresses).
func podAddresses(pod *api.Pod, addressType string) []string {
	out := []string{}
	for _, p := range pod.Status.PodIPs {
		ip := podaddr.ParseIPSloppy(p.IP)
		v6 := podaddr.IsIPv6(ip)
		if v6 && addressType == api.AddressTypeIPv6 || !v6 && addressType == api.AddressTypeIPv4 {
			out = append(out, ip.String())
		}
	}
	return out
}

// endpointPorts are the slice ports pod serves for svc (getEndpointPorts):
// one per service port whose targetPort resolves in the pod, with the
// service port's name, protocol and appProtocol; none for a headless
// Service without ports. A named targetPort the pod lacks is skipped, so
// pods may differ in their port sets.
func endpointPorts(log zerolog.Logger, svc *api.Service, pod *api.Pod) []api.EndpointSlicePort {
	out := []api.EndpointSlicePort{}
	if len(svc.Spec.Ports) == 0 && svc.Spec.ClusterIP == api.ClusterIPNone {
		return out
	}
	for i := range svc.Spec.Ports {
		sp := &svc.Spec.Ports[i]
		num, err := podaddr.FindPort(pod, sp)
		if err != nil {
			log.Debug().Err(err).Str("service", svc.Namespace+"/"+svc.Name).Msg("failed to find port for service")
			continue
		}
		name, proto := sp.Name, sp.Protocol
		p := api.EndpointSlicePort{Name: &name, Port: &num, Protocol: &proto}
		if sp.AppProtocol != nil {
			app := *sp.AppProtocol
			p.AppProtocol = &app
		}
		out = append(out, p)
	}
	return out
}
