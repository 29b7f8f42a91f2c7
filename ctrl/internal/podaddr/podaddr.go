package podaddr

import (
	"errors"
	"fmt"
	"net"
	"strconv"
	"strings"

	"github.com/kcmlab/kcm/kube/api"
)

// ErrNoPort: a named targetPort the pod does not declare (for the
// service port's protocol); the pod serves no endpoint on that port.
var ErrNoPort = errors.New("no suitable port")

// ShouldBeInEndpoints is endpointslice/util's ShouldPodBeInEndpoints: a
// terminal pod (Succeeded, Failed) never is, nor one without an IP; a
// terminating pod (deletionTimestamp set) only when includeTerminating.
// The endpoints controller passes publishNotReadyAddresses, the
// EndpointSlice controller true (it keeps terminating endpoints).
func ShouldBeInEndpoints(pod *api.Pod, includeTerminating bool) bool {
	if pod.Status.Phase == api.PodSucceeded || pod.Status.Phase == api.PodFailed {
		return false
	}
	if pod.Status.PodIP == "" && len(pod.Status.PodIPs) == 0 {
		return false
	}
	return includeTerminating || pod.DeletionTimestamp == nil
}

// ShouldSetHostname: the address carries the pod's hostname when the pod
// names this Service as its subdomain (endpointslice/util's
// ShouldSetHostname; headless or not).
func ShouldSetHostname(pod *api.Pod, svc *api.Service) bool {
	return pod.Spec.Hostname != "" && pod.Spec.Subdomain == svc.Name && svc.Namespace == pod.Namespace
}

// FindPort resolves a service port's targetPort in one pod (endpointslice's
// FindPort): a number is itself; a name is the containerPort of that name
// and the service port's protocol in the pod's containers, then in its
// sidecars (init containers with restartPolicy Always).
func FindPort(pod *api.Pod, sp *api.ServicePort) (int32, error) {
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

// IsIPv6 is k8s.io/utils/net IsIPv6: a parsed address that is not IPv4.
func IsIPv6(ip net.IP) bool { return ip != nil && ip.To4() == nil }

// ParseIPSloppy parses an IP as Go's net.ParseIP did before Go 1.17
// (k8s.io/utils/net ParseIPSloppy): IPv4 octets may have leading zeros,
// read as decimal. It returns nil for anything else.
func ParseIPSloppy(s string) net.IP {
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
