package topology

import (
	"math"

	"github.com/rs/zerolog"

	"github.com/kcmlab/kcm/kube/api"
)

// givingAndReceivingZones compares what each zone has been hinted
// (allocated) with what it should get (allocs' desired) and returns how
// many whole endpoints each zone over its share gives away and each zone
// under it receives. Fractions are settled one endpoint at a time between
// the zone furthest over and the zone furthest under, and stop once
// neither has a whole endpoint left, or either has less than half of one
// (upstream's getGivingAndReceivingZones).
func givingAndReceivingZones(allocs map[string]allocation, allocated map[string]int) (giving, receiving map[string]int) {
	over, under := map[string]float64{}, map[string]float64{}
	for zone, a := range allocs {
		have := float64(allocated[zone])
		switch {
		case have > a.desired:
			over[zone] = have - a.desired
		case have < a.desired:
			under[zone] = a.desired - have
		}
	}
	giving, receiving = map[string]int{}, map[string]int{}
	for {
		g, toGive := most(over)
		r, toReceive := most(under)
		if g == "" || r == "" || (toGive < 1.0 && toReceive < 1.0) || toGive < 0.5 || toReceive < 0.5 {
			break
		}
		giving[g]++
		over[g]--
		receiving[r]++
		under[r]--
	}
	return giving, receiving
}

// most returns the zone with the largest positive value and that value;
// ties go to the zone that sorts first ("" and 0 when none is positive).
func most(zones map[string]float64) (string, float64) {
	best, n := "", 0.0
	for _, z := range sortedKeys(zones) {
		if zones[z] > n {
			best, n = z, zones[z]
		}
	}
	return best, n
}

// redistributeHints re-hints ready endpoints of giving zones to receiving
// zones, in slice and endpoint order, until either side is satisfied; it
// returns the change of each zone's count (upstream's redistributeHints;
// receiving zones are taken in name order).
func redistributeHints(logger zerolog.Logger, slices []*api.EndpointSlice, giving, receiving map[string]int) map[string]int {
	changes := map[string]int{}
	for _, s := range slices {
		for i := range s.Endpoints {
			ep := &s.Endpoints[i]
			if !EndpointReady(ep) {
				continue
			}
			if len(giving) == 0 || len(receiving) == 0 {
				return changes
			}
			if ep.Zone == nil || *ep.Zone == "" {
				// AddHints has already refused such a Service.
				logger.Info().Msg("topology: endpoint found without zone specified")
				continue
			}
			from := *ep.Zone
			if giving[from] <= 0 {
				continue
			}
			to := sortedKeys(receiving)[0]
			ep.Hints = &api.EndpointHints{ForZones: []api.ForZone{{Name: to}}}
			take(giving, from)
			take(receiving, to)
			changes[to]++
			changes[from]--
		}
	}
	return changes
}

// take counts one endpoint off zone's entry, deleting it at zero.
func take(m map[string]int, zone string) {
	if m[zone] <= 1 {
		delete(m, zone)
		return
	}
	m[zone]--
}

// hintsByZone counts the zone hints of s's ready endpoints, or returns nil
// when s must be rewritten: a ready endpoint without zone hints, a hint
// for a zone that gets no allocation, or more hints for a zone than its
// maximum on top of allocated, what earlier slices already hold
// (upstream's getHintsByZone).
func hintsByZone(s *api.EndpointSlice, allocated EndpointZoneInfo, allocs map[string]allocation) map[string]int {
	byZone := map[string]int{}
	for i := range s.Endpoints {
		ep := &s.Endpoints[i]
		if !EndpointReady(ep) {
			continue
		}
		if ep.Hints == nil || len(ep.Hints.ForZones) == 0 {
			return nil
		}
		for _, z := range ep.Hints.ForZones {
			if _, ok := allocs[z.Name]; !ok {
				return nil
			}
			byZone[z.Name]++
		}
	}
	for zone, n := range byZone {
		if n+allocated[zone] > allocs[zone].maximum {
			return nil
		}
	}
	return byZone
}

// serviceOverloaded reports whether a Service hinted as ezi counts leaves
// some zone short: a zone of zoneRatios with no hinted endpoint, or with
// fewer than its share of them less the overload threshold (rounded up).
// With no zones at all (the nodes no longer allow hints), any hinted
// Service is overloaded.
func serviceOverloaded(ezi EndpointZoneInfo, zoneRatios map[string]float64) bool {
	if len(ezi) == 0 {
		return false
	}
	if len(zoneRatios) == 0 {
		return true
	}
	total := 0.0
	for _, n := range ezi {
		total += float64(n)
	}
	for zone, ratio := range zoneRatios {
		n, ok := ezi[zone]
		if !ok {
			return true
		}
		if n < int(math.Ceil(total*ratio*(1/(1+overloadThreshold)))) {
			return true
		}
	}
	return false
}
