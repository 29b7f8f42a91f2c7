package topology

import (
	"fmt"
	"math"
	"math/big"
	"slices"
	"sync"

	"github.com/rs/zerolog"

	"github.com/kcmlab/kcm/kube/api"
)

// overloadThreshold is how much more than its CPU share of the traffic
// one zone's endpoints may be asked to take: 20%, as upstream.
const overloadThreshold float64 = 0.2

// EndpointZoneInfo counts, per zone, the endpoints whose hint names that
// zone (upstream's EndpointZoneInfo).
type EndpointZoneInfo map[string]int

// allocation is how many endpoints one zone should get hints for: at
// least minimum, at most maximum, ideally desired.
type allocation struct {
	minimum int
	maximum int
	desired float64
}

// Cache is the topology cache behind service.kubernetes.io/topology-mode:
// Auto: the share of allocatable CPU of each zone (SetNodes) and the
// hints it gave each Service (AddHints). It is safe for concurrent use;
// the reconciler's workers share one (upstream's TopologyCache).
type Cache struct {
	mu sync.Mutex
	// cpuRatiosByZone is each zone's share of the ready nodes' CPU; nil
	// when the nodes do not allow hints (fewer than two zones, or a node
	// without zone or CPU).
	cpuRatiosByZone map[string]float64
	// endpointsByService is, per Service key and address type, how many
	// endpoints the last AddHints hinted to each zone.
	endpointsByService map[string]map[string]EndpointZoneInfo
	// hintsPopulated holds the Services that have hints from this cache.
	hintsPopulated map[string]struct{}
}

// NewCache returns an empty cache: until SetNodes it knows no zone, so
// AddHints removes hints (InsufficientNodeInfo).
func NewCache() *Cache {
	return &Cache{
		endpointsByService: map[string]map[string]EndpointZoneInfo{},
		hintsPopulated:     map[string]struct{}{},
	}
}

// SetNodes recomputes each zone's share of allocatable CPU from nodes (all
// of them; the lister's list). Nodes labelled node-role.kubernetes.io/
// control-plane or node-role.kubernetes.io/master and nodes that are not
// Ready are left out. As soon as one remaining node has no
// topology.kubernetes.io/zone label or no (or zero) allocatable CPU, the
// cache knows no zone at all; so it does with fewer than two zones. Either
// way AddHints then removes every hint.
func (c *Cache) SetNodes(logger zerolog.Logger, nodes []*api.Node) {
	cpuByZone := map[string]*big.Rat{}
	total := new(big.Rat)
	sufficient := true
	for _, n := range nodes {
		if excludedNode(n.Labels) {
			logger.Trace().Str("node", n.Name).Msg("topology: ignoring a control-plane node")
			continue
		}
		if !NodeReady(n) {
			logger.Trace().Str("node", n.Name).Msg("topology: ignoring a node that is not ready")
			continue
		}
		zone := n.Labels[LabelTopologyZone]
		cpu, ok := parseQuantity(n.Status.Allocatable["cpu"])
		if zone == "" || !ok || cpu.Sign() == 0 {
			logger.Info().Str("node", n.Name).Msg("topology: can't get CPU or zone information for node")
			cpuByZone = map[string]*big.Rat{}
			sufficient = false
			break
		}
		total.Add(total, cpu)
		if z, ok := cpuByZone[zone]; ok {
			z.Add(z, cpu)
		} else {
			cpuByZone[zone] = new(big.Rat).Set(cpu)
		}
	}

	var ratios map[string]float64
	if total.Sign() == 0 || !sufficient || len(cpuByZone) < 2 {
		logger.Debug().Int("zones", len(cpuByZone)).Str("cpu", total.FloatString(3)).Bool("sufficientNodeInfo", sufficient).
			Msg("topology: insufficient node info for topology hints")
	} else {
		totalMilli := float64(milliCeil(total))
		ratios = make(map[string]float64, len(cpuByZone))
		for zone, cpu := range cpuByZone {
			ratios[zone] = float64(milliCeil(cpu)) / totalMilli
		}
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	c.cpuRatiosByZone = ratios
}

// ZoneRatios returns a copy of each zone's share of the CPU, nil when the
// nodes do not allow hints.
func (c *Cache) ZoneRatios() map[string]float64 {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.cpuRatiosByZone == nil {
		return nil
	}
	out := make(map[string]float64, len(c.cpuRatiosByZone))
	for z, r := range c.cpuRatiosByZone {
		out[z] = r
	}
	return out
}

// OverloadedServices returns, sorted, the keys of the Services with
// hints from this cache that some zone can no longer carry: a zone with
// nodes that none of the Service's hints names, or whose hinted endpoints
// fall under its CPU share less the overload threshold; and, when the
// nodes no longer allow hints, every Service with hints. The controller
// requeues them after SetNodes (upstream's GetOverloadedServices).
func (c *Cache) OverloadedServices() []string {
	c.mu.Lock()
	defer c.mu.Unlock()
	var keys []string
	for key, byType := range c.endpointsByService {
		for _, ezi := range byType {
			if serviceOverloaded(ezi, c.cpuRatiosByZone) {
				keys = append(keys, key)
				break
			}
		}
	}
	slices.Sort(keys)
	return keys
}

// SetHints records that the Service's endpoints of addressType are hinted
// to zones as allocatedHintsByZone counts.
func (c *Cache) SetHints(serviceKey, addressType string, allocatedHintsByZone EndpointZoneInfo) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.setHintsLocked(serviceKey, addressType, allocatedHintsByZone)
}

func (c *Cache) setHintsLocked(serviceKey, addressType string, allocatedHintsByZone EndpointZoneInfo) {
	byType, ok := c.endpointsByService[serviceKey]
	if !ok {
		byType = map[string]EndpointZoneInfo{}
		c.endpointsByService[serviceKey] = byType
	}
	byType[addressType] = allocatedHintsByZone
	c.hintsPopulated[serviceKey] = struct{}{}
}

// RemoveHints forgets the hints of the Service's endpoints of addressType;
// afterwards HasPopulatedHints(serviceKey) is false, even when another
// address type still has hints (as upstream).
func (c *Cache) RemoveHints(serviceKey, addressType string) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if byType, ok := c.endpointsByService[serviceKey]; ok {
		delete(byType, addressType)
		if len(byType) == 0 {
			delete(c.endpointsByService, serviceKey)
		}
	}
	delete(c.hintsPopulated, serviceKey)
}

// HasPopulatedHints reports whether the Service has hints from this cache.
func (c *Cache) HasPopulatedHints(serviceKey string) bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	_, ok := c.hintsPopulated[serviceKey]
	return ok
}

// allocations returns each zone's minimum, maximum and desired number of
// hinted endpoints for a Service with numEndpoints ready endpoints, or the
// Warning that says why hints are impossible: the nodes do not allow them,
// there are fewer endpoints than zones, or giving every zone its minimum
// (its CPU share of the endpoints, less the overload threshold, rounded
// up) needs more endpoints than there are. The Warning's message still
// lacks the address type.
func (c *Cache) allocations(numEndpoints int) (map[string]allocation, *Event) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.cpuRatiosByZone == nil {
		return nil, &Event{Type: api.EventTypeWarning, Reason: ReasonHintsDisabled, Message: InsufficientNodeInfo}
	}
	if len(c.cpuRatiosByZone) < 2 {
		return nil, &Event{Type: api.EventTypeWarning, Reason: ReasonHintsDisabled, Message: NodesReadyInOneZoneOnly}
	}
	if len(c.cpuRatiosByZone) > numEndpoints {
		return nil, &Event{Type: api.EventTypeWarning, Reason: ReasonHintsDisabled,
			Message: fmt.Sprintf("%s (%d endpoints, %d zones)", InsufficientNumberOfEndpoints, numEndpoints, len(c.cpuRatiosByZone))}
	}
	remaining, minTotal := numEndpoints, 0
	allocs := make(map[string]allocation, len(c.cpuRatiosByZone))
	for _, zone := range sortedKeys(c.cpuRatiosByZone) {
		desired := c.cpuRatiosByZone[zone] * float64(numEndpoints)
		minimum := int(math.Ceil(desired * (1 / (1 + overloadThreshold))))
		allocs[zone] = allocation{minimum: minimum, desired: math.Max(desired, float64(minimum))}
		minTotal += minimum
		remaining -= minimum
		if remaining < 0 {
			return nil, &Event{Type: api.EventTypeWarning, Reason: ReasonHintsDisabled,
				Message: fmt.Sprintf("%s (%d endpoints, %d zones)", MinAllocationExceedsOverloadThreshold, numEndpoints, len(c.cpuRatiosByZone))}
		}
	}
	for zone, a := range allocs {
		a.maximum = a.minimum + numEndpoints - minTotal
		allocs[zone] = a
	}
	return allocs, nil
}

// sortedKeys returns m's keys in order: the cache walks zones in name
// order so that its choices do not depend on map iteration.
func sortedKeys[V any](m map[string]V) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	return keys
}
