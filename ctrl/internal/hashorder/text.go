package hashorder

import (
	"strconv"
	"strings"

	"github.com/kcmlab/kcm/kube/api"
)

// SubsetText is dump.ForHash of a core/v1 EndpointSubset.
func SubsetText(s api.EndpointSubset) string {
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
			writeEndpointPort(&b, p)
		}
		b.WriteByte(']')
	}
	b.WriteByte('}')
	return b.String()
}

// EndpointPortText is dump.ForHash of a core/v1 EndpointPort.
func EndpointPortText(p api.EndpointPort) string {
	var b strings.Builder
	b.WriteString("(v1.EndpointPort)")
	writeEndpointPort(&b, p)
	return b.String()
}

// SlicePortText is dump.ForHash of a discovery/v1 EndpointPort: each
// pointer field typed and followed, nil as <nil>.
func SlicePortText(p api.EndpointSlicePort) string {
	var b strings.Builder
	b.WriteString("(v1.EndpointPort){Name:")
	writePtr(&b, "*string", p.Name)
	b.WriteString(" Protocol:")
	writePtr(&b, "*v1.Protocol", p.Protocol)
	b.WriteString(" Port:(*int32)")
	if p.Port == nil {
		b.WriteString("<nil>")
	} else {
		b.WriteString(strconv.FormatInt(int64(*p.Port), 10))
	}
	b.WriteString(" AppProtocol:")
	writePtr(&b, "*string", p.AppProtocol)
	b.WriteByte('}')
	return b.String()
}

// writeEndpointPort writes a core/v1 EndpointPort as spew writes a struct
// whose type was already printed (a slice element, or after the top-level
// type).
func writeEndpointPort(b *strings.Builder, p api.EndpointPort) {
	b.WriteString("{Name:(string)")
	b.WriteString(p.Name)
	b.WriteString(" Port:(int32)")
	b.WriteString(strconv.FormatInt(int64(p.Port), 10))
	b.WriteString(" Protocol:(v1.Protocol)")
	b.WriteString(p.Protocol)
	b.WriteString(" AppProtocol:")
	writePtr(b, "*string", p.AppProtocol)
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
		writePtr(b, "*string", a.NodeName)
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

// writePtr writes a pointer-to-string-kind field as spew does: its type in
// parentheses, then the value, or <nil>.
func writePtr(b *strings.Builder, typ string, s *string) {
	b.WriteString("(" + typ + ")")
	if s == nil {
		b.WriteString("<nil>")
		return
	}
	b.WriteString(*s)
}
