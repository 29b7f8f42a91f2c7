package reconciler

import (
	"sync"
)

// efficiency is, for one set of ports of one Service, how many endpoints
// it has and how many slices hold them (metrics.EfficiencyInfo).
type efficiency struct{ endpoints, slices int }

// servicePorts is a Service's efficiency by port set (ServicePortCache).
type servicePorts map[portMapKey]efficiency

// totals returns the Service's slices, the slices a perfect packing would
// need (at least 1: the placeholder) and its endpoints.
func (sp servicePorts) totals(maxPerSlice int) (actual, desired, endpoints int) {
	for _, e := range sp {
		endpoints += e.endpoints
		actual += e.slices
		desired += desiredSlices(e.endpoints, maxPerSlice)
	}
	if desired == 0 {
		desired = 1
	}
	return actual, desired, endpoints
}

// desiredSlices is ceil(endpoints / maxPerSlice) (numDesiredSlices).
func desiredSlices(endpoints, maxPerSlice int) int {
	if endpoints == 0 {
		return 0
	}
	return (endpoints + maxPerSlice - 1) / maxPerSlice
}

// metricsCache keeps the running totals behind the gauges
// endpoints_desired, num_endpoint_slices, desired_endpoint_slices and
// services_count_by_traffic_distribution (k8s.io/endpointslice/metrics
// Cache): each sync replaces its Service's share. Safe for concurrent use.
type metricsCache struct {
	m           *Metrics
	maxPerSlice int

	mu                            sync.Mutex
	endpoints, actual, desired    int
	byService                     map[string]servicePorts
	servicesByTrafficDistribution map[string]map[string]bool
}

func newMetricsCache(m *Metrics, maxPerSlice int) *metricsCache {
	return &metricsCache{m: m, maxPerSlice: maxPerSlice, byService: map[string]servicePorts{},
		servicesByTrafficDistribution: map[string]map[string]bool{}}
}

// updateService replaces the Service's share of the totals.
func (c *metricsCache) updateService(key string, sp servicePorts) {
	c.mu.Lock()
	defer c.mu.Unlock()
	var pa, pd, pe int
	if old, ok := c.byService[key]; ok {
		pa, pd, pe = old.totals(c.maxPerSlice)
	}
	a, d, e := sp.totals(c.maxPerSlice)
	c.actual += a - pa
	c.desired += d - pd
	c.endpoints += e - pe
	c.byService[key] = sp
	c.publish()
}

// updateTrafficDistribution files the Service under its
// trafficDistribution, or under none when td is nil.
func (c *metricsCache) updateTrafficDistribution(key string, td *string) {
	c.mu.Lock()
	defer c.mu.Unlock()
	for _, set := range c.servicesByTrafficDistribution {
		delete(set, key)
	}
	if td != nil {
		set := c.servicesByTrafficDistribution[*td]
		if set == nil {
			set = map[string]bool{}
			c.servicesByTrafficDistribution[*td] = set
		}
		set[key] = true
	}
	c.publish()
}

// deleteService removes the Service's share.
func (c *metricsCache) deleteService(key string) {
	c.mu.Lock()
	defer c.mu.Unlock()
	for _, set := range c.servicesByTrafficDistribution {
		delete(set, key)
	}
	if sp, ok := c.byService[key]; ok {
		a, d, e := sp.totals(c.maxPerSlice)
		c.actual -= a
		c.desired -= d
		c.endpoints -= e
		delete(c.byService, key)
		c.publish()
	}
}

// publish sets the gauges from the totals; c.mu is held.
func (c *metricsCache) publish() {
	m := c.m
	if m == nil {
		return
	}
	m.numSlices.WithLabelValues().Set(float64(c.actual))
	m.desiredSlices.WithLabelValues().Set(float64(c.desired))
	m.desired.WithLabelValues().Set(float64(c.endpoints))
	m.byTrafficDist.Reset()
	for td, set := range c.servicesByTrafficDistribution {
		m.byTrafficDist.WithLabelValues(td).Set(float64(len(set)))
	}
}
