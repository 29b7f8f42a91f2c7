package nodelifecycle

import "github.com/kcmlab/kcm/kube/api"

// ZoneState is the state of one zone (upstream's ZoneState).
type ZoneState string

// The zone states.
const (
	// StateInitial: a zone seen for the first time in this pass.
	StateInitial ZoneState = "Initial"
	// StateNormal: fewer unhealthy nodes than the threshold.
	StateNormal ZoneState = "Normal"
	// StatePartialDisruption: at least 3 nodes and the
	// --unhealthy-zone-threshold fraction of the zone not Ready.
	StatePartialDisruption ZoneState = "PartialDisruption"
	// StateFullDisruption: no node of the zone Ready.
	StateFullDisruption ZoneState = "FullDisruption"
)

// The zone labels, the current ones and the deprecated beta ones that
// take precedence (component-helpers' node/topology GetZoneKey).
const (
	LabelTopologyZone          = "topology.kubernetes.io/zone"
	LabelTopologyRegion        = "topology.kubernetes.io/region"
	LabelFailureDomainZone     = "failure-domain.beta.kubernetes.io/zone"
	LabelFailureDomainRegion   = "failure-domain.beta.kubernetes.io/region"
	LabelNodeExcludeDisruption = "node.kubernetes.io/exclude-disruption"
)

// ZoneKey is the node's zone as the controller keys it (GetZoneKey): the
// beta zone label, else the topology one, and likewise the region, joined
// as region + ":\x00:" + zone; "" when the node has neither.
func ZoneKey(node *api.Node) string {
	l := node.Labels
	if l == nil {
		return ""
	}
	zone, ok := l[LabelFailureDomainZone]
	if !ok {
		zone = l[LabelTopologyZone]
	}
	region, ok := l[LabelFailureDomainRegion]
	if !ok {
		region = l[LabelTopologyRegion]
	}
	if region == "" && zone == "" {
		return ""
	}
	return region + ":\x00:" + zone
}

// excludedFromDisruption: a node labelled
// node.kubernetes.io/exclude-disruption does not count in its zone's state
// (isNodeExcludedFromDisruptionChecks).
func excludedFromDisruption(node *api.Node) bool {
	_, ok := node.Labels[LabelNodeExcludeDisruption]
	return ok
}

// ComputeZoneState is upstream's ComputeZoneState: given the Ready
// conditions of a zone's nodes (nil for a node without one), it returns
// how many are not Ready and the zone's state: FullDisruption when none is
// Ready, PartialDisruption when more than 2 are not Ready and they are at
// least threshold of the zone, Normal otherwise.
func ComputeZoneState(ready []*api.NodeCondition, threshold float32) (int, ZoneState) {
	readyNodes, notReady := 0, 0
	for _, c := range ready {
		if c != nil && c.Status == api.ConditionTrue {
			readyNodes++
		} else {
			notReady++
		}
	}
	switch {
	case readyNodes == 0 && notReady > 0:
		return notReady, StateFullDisruption
	case notReady > 2 && float32(notReady)/float32(notReady+readyNodes) >= threshold:
		return notReady, StatePartialDisruption
	default:
		return notReady, StateNormal
	}
}

// rates are the eviction rate flags.
type rates struct {
	primary, secondary float32
	largeCluster       int32
}

// zoneQPS is the tainting rate of a zone of size nodes in state
// (setLimiterInZone): Normal takes --node-eviction-rate;
// PartialDisruption takes --secondary-node-eviction-rate when the zone has
// more than --large-cluster-size-threshold nodes and 0 otherwise
// (ReducedQPSFunc); FullDisruption takes --node-eviction-rate again
// (HealthyQPSFunc: one fully disrupted zone among healthy ones is likely
// the zone's fault, so its nodes go). ok is false for Initial, which
// leaves the limiter as it is.
func (r rates) zoneQPS(state ZoneState, size int) (qps float32, ok bool) {
	switch state {
	case StateNormal, StateFullDisruption:
		return r.primary, true
	case StatePartialDisruption:
		if int32(size) > r.largeCluster {
			return r.secondary, true
		}
		return 0, true
	}
	return 0, false
}

// disruptionMode is what handleDisruption does this pass.
type disruptionMode int

const (
	// perZone: at least one zone is not fully disrupted, now and before:
	// each zone whose state changed gets its new rate.
	perZone disruptionMode = iota
	// enterFull: every zone is fully disrupted now and was not before:
	// the controller suspects itself (or the network), removes the
	// NoExecute taints it set, and stops all tainting.
	enterFull
	// exitFull: every zone was fully disrupted and now one is not: probe
	// times reset to now on every node, every zone gets its state's rate.
	exitFull
	// stayFull: all zones were and are fully disrupted: nothing changes.
	stayFull
)

// planDisruption decides the mode from the zones' new states and their
// states before (after zones that have no nodes left were dropped from
// old). An empty old map counts as "all were fully disrupted", and an
// empty new one as "all are", as upstream's loops do.
func planDisruption(old, new map[string]ZoneState) disruptionMode {
	allAre := true
	for _, s := range new {
		if s != StateFullDisruption {
			allAre = false
		}
	}
	allWere := true
	for _, s := range old {
		if s != StateFullDisruption {
			allWere = false
			break
		}
	}
	switch {
	case allAre && allWere:
		return stayFull
	case allAre:
		return enterFull
	case allWere:
		return exitFull
	default:
		return perZone
	}
}
