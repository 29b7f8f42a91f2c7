package endpointset

import (
	"slices"
	"strings"

	"github.com/kcmlab/kcm/kube/api"
)

// Key identifies an endpoint across syncs by what cannot change in
// place: its addresses (as a set), hostname and the namespace and name of
// its pod (upstream's endpointHash). Everything else — conditions, node,
// zone, hints, the pod's uid — is compared by EqualBeyondKey.
type Key string

// KeyOf returns ep's Key; ep's addresses are not reordered.
func KeyOf(ep *api.Endpoint) Key {
	addrs := slices.Clone(ep.Addresses)
	slices.Sort(addrs)
	var b strings.Builder
	for _, a := range addrs {
		b.WriteString(a)
		b.WriteByte(',')
	}
	b.WriteByte(0)
	if ep.Hostname != nil {
		b.WriteString(*ep.Hostname)
	}
	b.WriteByte(0)
	if ep.TargetRef != nil {
		b.WriteString(ep.TargetRef.Namespace)
		b.WriteByte('/')
		b.WriteString(ep.TargetRef.Name)
	}
	return Key(b.String())
}
