package endpointslicemirroring

// The reasons of the Warning Events the controller records on an
// Endpoints object (upstream's events.go; the messages are upstream's).
const (
	// ReasonInvalidIPAddress: addresses that are not IPs were left out
	// ("Skipped %d invalid IP addresses when mirroring to EndpointSlices").
	ReasonInvalidIPAddress = "InvalidIPAddress"
	// ReasonTooManyAddressesToMirror: a subset had more addresses than
	// --mirroring-max-endpoints-per-subset; the rest were left out ("A max
	// of %d addresses can be mirrored to EndpointSlices per Endpoints
	// subset. %d addresses were skipped").
	ReasonTooManyAddressesToMirror = "TooManyAddressesToMirror"
	// ReasonFailedToListEndpointSlices and ReasonFailedToUpdateEndpointSlices
	// are declared by upstream, which records neither; kcm does not either.
	ReasonFailedToListEndpointSlices   = "FailedToListEndpointSlices"
	ReasonFailedToUpdateEndpointSlices = "FailedToUpdateEndpointSlices"
)
