package topology

import (
	"fmt"

	"github.com/kcmlab/kcm/kube/api"
)

// Event is what the reconciler records on the Service after it applied
// hints: an api.EventTypeNormal or api.EventTypeWarning, a reason and a
// message (upstream's EventBuilder).
type Event struct {
	Type, Reason, Message string
}

// The reasons of the Events this package produces, as kube-controller-manager
// records them.
const (
	ReasonHintsEnabled  = "TopologyAwareHintsEnabled"
	ReasonHintsDisabled = "TopologyAwareHintsDisabled"
)

// The messages of those Events, before FormatWithAddressType appends the
// address type (upstream's constants of the same names).
const (
	NoZoneSpecified                       = "One or more endpoints do not have a zone specified"
	NoAllocatedHintsForZones              = "No hints allocated for zones"
	TopologyAwareHintsEnabled             = "Topology Aware Hints has been enabled"
	TopologyAwareHintsDisabled            = "Topology Aware Hints has been disabled"
	InsufficientNodeInfo                  = "Insufficient Node information: allocatable CPU or zone not specified on one or more nodes"
	NodesReadyInOneZoneOnly               = "Nodes only ready in one zone"
	InsufficientNumberOfEndpoints         = "Insufficient number of endpoints"
	MinAllocationExceedsOverloadThreshold = "Unable to allocate minimum required endpoints to each zone without exceeding overload threshold"
)

// FormatWithAddressType appends ", addressType: <addressType>" to s, the
// form in which every message above reaches the Service's Events.
func FormatWithAddressType(s, addressType string) string {
	return fmt.Sprintf("%s, addressType: %s", s, addressType)
}

// disabled is the Warning that tells why hints were removed.
func disabled(message, addressType string) Event {
	return Event{Type: api.EventTypeWarning, Reason: ReasonHintsDisabled, Message: FormatWithAddressType(message, addressType)}
}

// HintsDisabledEvent is the Warning the reconciler records when a Service
// whose hints this cache populated no longer asks for them (the annotation
// went away): "Topology Aware Hints has been disabled, addressType: IPv4".
func HintsDisabledEvent(addressType string) Event {
	return disabled(TopologyAwareHintsDisabled, addressType)
}
