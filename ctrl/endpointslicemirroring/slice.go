package endpointslicemirroring

import (
	"bytes"
	"hash/fnv"
	"slices"
	"strconv"
	"strings"

	"github.com/kcmlab/kcm/ctrl/controllerref"
	"github.com/kcmlab/kcm/ctrl/endpointslice/reconciler"
	"github.com/kcmlab/kcm/ctrl/internal/podaddr"
	"github.com/kcmlab/kcm/kube/api"
)

// Annotations of an Endpoints object that are not mirrored (upstream's
// newEndpointSlice): the endpoints controller's trigger time, which means
// nothing on a slice, and kubectl apply's record of the Endpoints, which
// would make kubectl treat the slice as applied.
const (
	AnnotationLastChangeTriggerTime = reconciler.AnnotationLastChangeTriggerTime
	AnnotationLastAppliedConfig     = "kubectl.kubernetes.io/last-applied-configuration"
)

// maxNameLength is the longest DNS subdomain, an EndpointSlice name's limit.
const maxNameLength = 253

// newSlice is the EndpointSlice mirroring one group of eps's addresses
// (upstream's newEndpointSlice): a controller ownerReference to the
// Endpoints; the Endpoints' labels with kubernetes.io/service-name and
// the managed-by label set; its annotations but the two above; the ports
// and address type given; no endpoints yet. name is the slice to
// replace, or "" for a new one, named by generateName "<endpoints>-".
func newSlice(eps *api.Endpoints, ports []api.EndpointSlicePort, addressType, name string) *api.EndpointSlice {
	s := &api.EndpointSlice{
		ObjectMeta: api.ObjectMeta{
			Namespace:       eps.Namespace,
			Labels:          make(map[string]string, len(eps.Labels)+2),
			Annotations:     mirroredAnnotations(eps.Annotations),
			OwnerReferences: []api.OwnerReference{controllerref.NewControllerRef(&eps.ObjectMeta, "v1", "Endpoints")},
		},
		AddressType: addressType,
		Ports:       ports,
		Endpoints:   []api.Endpoint{},
	}
	for k, v := range eps.Labels {
		s.Labels[k] = v
	}
	s.Labels[LabelServiceName] = eps.Name
	s.Labels[LabelManagedBy] = ControllerName
	if name == "" {
		s.GenerateName = slicePrefix(eps.Name)
	} else {
		s.Name = name
	}
	return s
}

// mirroredAnnotations is a copy of an Endpoints' annotations without the
// two that are not mirrored; never nil.
func mirroredAnnotations(a map[string]string) map[string]string {
	out := make(map[string]string, len(a))
	for k, v := range a {
		if k != AnnotationLastChangeTriggerTime && k != AnnotationLastAppliedConfig {
			out[k] = v
		}
	}
	return out
}

// slicePrefix is the generateName of a new slice: "<name>-", or the name
// alone when the dash would make the prefix too long
// (getEndpointSlicePrefix; an Endpoints name is already a DNS subdomain).
func slicePrefix(name string) string {
	if len(name)+1 > maxNameLength {
		return name
	}
	return name + "-"
}

// addressEndpoint is the slice endpoint of one Endpoints address and its
// address type (upstream's addressToEndpoint): the IP parsed as Kubernetes
// parses it (leading zeros allowed) and written canonically, the ready
// condition from the list it came from, targetRef, nodeName and hostname
// as given. ok is false for an address that is not an IP.
func addressEndpoint(a api.EndpointAddress, ready bool) (ep api.Endpoint, addressType string, ok bool) {
	ip := podaddr.ParseIPSloppy(a.IP)
	if ip == nil {
		return api.Endpoint{}, "", false
	}
	addressType = api.AddressTypeIPv4
	if ip.To4() == nil {
		addressType = api.AddressTypeIPv6
	}
	ep = api.Endpoint{
		Addresses:  []string{ip.String()},
		Conditions: api.EndpointConditions{Ready: &ready},
		TargetRef:  a.TargetRef,
		NodeName:   a.NodeName,
	}
	if a.Hostname != "" {
		h := a.Hostname
		ep.Hostname = &h
	}
	return ep, addressType, true
}

// slicePorts converts an Endpoints subset's ports into a slice's, in the
// order Kubernetes writes them: sorted by the hash of each port
// (endpointslice's NewPortMapKey sorts the ports it is given, and the
// mirroring controller writes that sorted list). Never nil.
func slicePorts(ports []api.EndpointPort) []api.EndpointSlicePort {
	out := make([]api.EndpointSlicePort, 0, len(ports))
	for _, p := range ports {
		name, port, protocol := p.Name, p.Port, p.Protocol
		var app *string
		if p.AppProtocol != nil {
			a := *p.AppProtocol
			app = &a
		}
		out = append(out, api.EndpointSlicePort{Name: &name, Port: &port, Protocol: &protocol, AppProtocol: app})
	}
	sortPortsByHash(out)
	return out
}

// sortPortsByHash sorts ports by the FNV-128a hash of each one's
// k8s.io/utils/dump.ForHash text (portHashText), as Kubernetes does.
func sortPortsByHash(ports []api.EndpointSlicePort) {
	type keyed struct {
		h []byte
		p api.EndpointSlicePort
	}
	ks := make([]keyed, len(ports))
	for i, p := range ports {
		h := fnv.New128a()
		h.Write([]byte(portHashText(p)))
		ks[i] = keyed{h.Sum(nil), p}
	}
	slices.SortStableFunc(ks, func(a, b keyed) int { return bytes.Compare(a.h, b.h) })
	for i := range ks {
		ports[i] = ks[i].p
	}
}

// portHashText is dump.ForHash of a discovery/v1 EndpointPort: each
// pointer field typed and followed, nil as <nil> (TestPortHashTextIsSpews).
func portHashText(p api.EndpointSlicePort) string {
	var b strings.Builder
	b.WriteString("(v1.EndpointPort){Name:(*string)")
	writeOr(&b, p.Name)
	b.WriteString(" Protocol:(*v1.Protocol)")
	writeOr(&b, p.Protocol)
	b.WriteString(" Port:(*int32)")
	if p.Port == nil {
		b.WriteString("<nil>")
	} else {
		b.WriteString(strconv.FormatInt(int64(*p.Port), 10))
	}
	b.WriteString(" AppProtocol:(*string)")
	writeOr(&b, p.AppProtocol)
	b.WriteByte('}')
	return b.String()
}

func writeOr(b *strings.Builder, s *string) {
	if s == nil {
		b.WriteString("<nil>")
		return
	}
	b.WriteString(*s)
}

// portsKey identifies a set of slice ports, whatever their order: the
// hash texts of the ports, sorted (upstream's PortMapKey, a hash of the
// sorted ports). A nil and an empty list are the same set.
func portsKey(ports []api.EndpointSlicePort) string {
	texts := make([]string, len(ports))
	for i, p := range ports {
		texts[i] = portHashText(p)
	}
	slices.Sort(texts)
	return strings.Join(texts, "\n")
}

// groupKey identifies the slices of one address type and port set
// (upstream's addrTypePortMapKey).
type groupKey struct {
	addressType string
	ports       string
}

func groupOf(s *api.EndpointSlice) groupKey {
	return groupKey{addressType: s.AddressType, ports: portsKey(s.Ports)}
}

// endpointID identifies an endpoint within a group, as Kubernetes' endpoint
// hash does: its addresses (sorted), hostname, and the namespace and name
// of its targetRef. Two endpoints with one identity are one endpoint,
// whose other fields (conditions, node, zone) may change in place.
func endpointID(ep *api.Endpoint) string {
	addrs := slices.Clone(ep.Addresses)
	slices.Sort(addrs)
	var b strings.Builder
	for _, a := range addrs {
		b.WriteString(a)
		b.WriteByte(',')
	}
	b.WriteByte('|')
	if ep.Hostname != nil {
		b.WriteString(*ep.Hostname)
	}
	b.WriteByte('|')
	if r := ep.TargetRef; r != nil {
		b.WriteString(r.Namespace)
		b.WriteByte('/')
		b.WriteString(r.Name)
	}
	return b.String()
}

// sameBeyondID reports whether two endpoints of one identity are equal in
// everything else Kubernetes compares (EndpointsEqualBeyondHash): node,
// zone, the three conditions, and targetRef but for its resourceVersion.
// Hints are not compared.
func sameBeyondID(a, b *api.Endpoint) bool {
	return strPtrEqual(a.NodeName, b.NodeName) && strPtrEqual(a.Zone, b.Zone) &&
		boolPtrEqual(a.Conditions.Ready, b.Conditions.Ready) &&
		boolPtrEqual(a.Conditions.Serving, b.Conditions.Serving) &&
		boolPtrEqual(a.Conditions.Terminating, b.Conditions.Terminating) &&
		refEqualIgnoringRV(a.TargetRef, b.TargetRef)
}

func strPtrEqual(a, b *string) bool {
	return (a == nil) == (b == nil) && (a == nil || *a == *b)
}

func boolPtrEqual(a, b *bool) bool {
	return (a == nil) == (b == nil) && (a == nil || *a == *b)
}

func refEqualIgnoringRV(a, b *api.ObjectReference) bool {
	if a == nil || b == nil {
		return a == b
	}
	x, y := *a, *b
	x.ResourceVersion, y.ResourceVersion = "", ""
	return x == y
}
