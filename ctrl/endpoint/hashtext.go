package endpoint

import (
	"strconv"
	"strings"

	"github.com/kcmlab/kcm/kube/api"
)

// Kubernetes orders an Endpoints object's subsets, and the ports of each
// subset, by the FNV-128a hash of the Go value as go-spew prints it with
// k8s.io/utils/dump.ForHash (%#v: every field named and typed, pointers
// followed, types as k8s.io/api's package "v1" names them). kcm's structs
// are not k8s.io/api's, so the functions below write that text themselves,
// field by field in k8s.io/api's order, for the two types that are sorted:
// the same bytes give the same hash, so kcm writes subsets in the order
// kube-controller-manager writes them. TestHashTextIsSpews pins the text.

// subsetHashText is dump.ForHash of a v1.EndpointSubset.
func subsetHashText(s api.EndpointSubset) string {
	var b strings.Builder
	b.WriteString("(v1.EndpointSubset){Addresses:")
	writeAddresses(&b, s.Addresses)
	b.WriteString(" NotReadyAddresses:")
	writeAddresses(&b, s.NotReadyAddresses)
	b.WriteString(" Ports:([]v1.EndpointPort)")
	if s.Ports == nil {
		b.WriteString("<nil>")
	} else {
		b.WriteByte('[')
		for i, p := range s.Ports {
			if i > 0 {
				b.WriteByte(' ')
			}
			writePort(&b, p)
		}
		b.WriteByte(']')
	}
	b.WriteByte('}')
	return b.String()
}

// portHashText is dump.ForHash of a v1.EndpointPort.
func portHashText(p api.EndpointPort) string {
	var b strings.Builder
	b.WriteString("(v1.EndpointPort)")
	writePort(&b, p)
	return b.String()
}

// writePort writes a port as spew writes a struct whose type was already
// printed (a slice element, or after the top-level type).
func writePort(b *strings.Builder, p api.EndpointPort) {
	b.WriteString("{Name:(string)")
	b.WriteString(p.Name)
	b.WriteString(" Port:(int32)")
	b.WriteString(strconv.FormatInt(int64(p.Port), 10))
	b.WriteString(" Protocol:(v1.Protocol)")
	b.WriteString(p.Protocol)
	b.WriteString(" AppProtocol:")
	writeStringPtr(b, p.AppProtocol)
	b.WriteByte('}')
}

func writeAddresses(b *strings.Builder, as []api.EndpointAddress) {
	b.WriteString("([]v1.EndpointAddress)")
	if as == nil {
		b.WriteString("<nil>")
		return
	}
	b.WriteByte('[')
	for i, a := range as {
		if i > 0 {
			b.WriteByte(' ')
		}
		b.WriteString("{IP:(string)")
		b.WriteString(a.IP)
		b.WriteString(" Hostname:(string)")
		b.WriteString(a.Hostname)
		b.WriteString(" NodeName:")
		writeStringPtr(b, a.NodeName)
		b.WriteString(" TargetRef:(*v1.ObjectReference)")
		if r := a.TargetRef; r == nil {
			b.WriteString("<nil>")
		} else {
			for j, f := range [...]struct{ name, typ, v string }{
				{"Kind", "string", r.Kind}, {"Namespace", "string", r.Namespace}, {"Name", "string", r.Name},
				{"UID", "types.UID", r.UID}, {"APIVersion", "string", r.APIVersion},
				{"ResourceVersion", "string", r.ResourceVersion}, {"FieldPath", "string", r.FieldPath},
			} {
				if j == 0 {
					b.WriteByte('{')
				} else {
					b.WriteByte(' ')
				}
				b.WriteString(f.name + ":(" + f.typ + ")" + f.v)
			}
			b.WriteByte('}')
		}
		b.WriteByte('}')
	}
	b.WriteByte(']')
}

// writeStringPtr writes a *string field: its type, then the value or <nil>.
func writeStringPtr(b *strings.Builder, s *string) {
	b.WriteString("(*string)")
	if s == nil {
		b.WriteString("<nil>")
		return
	}
	b.WriteString(*s)
}
