package topology

// The Service annotations that turn on the topology cache's hints: the
// current one and its deprecated predecessor, which wins when both are set.
const (
	AnnotationTopologyMode                 = "service.kubernetes.io/topology-mode"
	DeprecatedAnnotationTopologyAwareHints = "service.kubernetes.io/topology-aware-hints"
)

// HintsEnabled reports whether a Service's annotations ask for hints from
// the topology cache: service.kubernetes.io/topology-aware-hints, or when
// that is absent service.kubernetes.io/topology-mode, set to "Auto" or
// "auto" (upstream's hintsEnabled in utils.go). Any other value, "" or
// "Disabled" included, is off; a deprecated annotation set to another
// value turns hints off even when topology-mode says Auto.
func HintsEnabled(annotations map[string]string) bool {
	v, ok := annotations[DeprecatedAnnotationTopologyAwareHints]
	if !ok {
		v = annotations[AnnotationTopologyMode]
	}
	return v == "Auto" || v == "auto"
}
