package hintdiff

import (
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"slices"

	"github.com/go-logr/logr"
	"github.com/rs/zerolog"
	discovery "k8s.io/api/discovery/v1"
	"k8s.io/endpointslice/topologycache"
	"k8s.io/endpointslice/trafficdist"

	"github.com/kcmlab/kcm/ctrl/endpointslice/topology"
	"github.com/kcmlab/kcm/kube/api"
)

// ErrDiffer is returned (wrapped, with both results) when kcm and
// Kubernetes disagree.
var ErrDiffer = errors.New("kcm and k8s.io/endpointslice differ")

// TrafficDistributions are the values CheckReconcileHints tries: none,
// the three served ones and one that is not.
var TrafficDistributions = []*string{nil, ptr("PreferClose"), ptr("PreferSameZone"), ptr("PreferSameNode"), ptr("PreferNowhere")}

func ptr(s string) *string { return &s }

// CheckReconcileHints runs c's slices through both ReconcileHints with
// trafficDistribution and compares the three lists, hints included.
func CheckReconcileHints(c Case, trafficDistribution *string) error {
	kc, ku, kn := trafficdist.ReconcileHints(trafficDistribution, k8sSlices(c.ToCreate), k8sSlices(c.ToUpdate), k8sSlices(c.Unchanged))
	ac, au, an := topology.ReconcileHints(trafficDistribution, kcmSlices(c.ToCreate), kcmSlices(c.ToUpdate), kcmSlices(c.Unchanged))
	want := render([][]hinted{fromK8s(kc), fromK8s(ku), fromK8s(kn)})
	got := render([][]hinted{fromKCM(ac), fromKCM(au), fromKCM(an)})
	if got != want {
		return fmt.Errorf("%w: ReconcileHints(%s):\n kcm %s\n k8s %s", ErrDiffer, deref(trafficDistribution), got, want)
	}
	return nil
}

// addHintsResult is what one AddHints leaves: its lists, Events and the
// cache's view of the Service.
type addHintsResult struct {
	ToCreate, ToUpdate []hinted
	Unchanged          []string
	Events             []string
	Populated          bool
	Overloaded         []string
}

// zoneCounts counts the zone hints of the slices to write.
func (r addHintsResult) zoneCounts() map[string]int {
	m := map[string]int{}
	for _, l := range [][]hinted{r.ToCreate, r.ToUpdate} {
		for _, s := range l {
			for _, e := range s.Endpoints {
				for _, z := range e.Zones {
					m[z]++
				}
			}
		}
	}
	return m
}

// CheckAddHints runs c through kcm's cache once and Kubernetes' runs
// times (its result can depend on map order) and compares: exactly when
// Kubernetes gave one result every time, else the Events, the unchanged
// slices and the hints per zone against each result it gave.
func CheckAddHints(c Case, runs int) error {
	got := kcmAddHints(c)
	seen := map[string]addHintsResult{}
	for range runs {
		r := k8sAddHints(c)
		seen[render(r)] = r
	}
	if len(seen) == 1 {
		for want := range seen {
			if render(got) != want {
				return fmt.Errorf("%w: AddHints:\n kcm %s\n k8s %s", ErrDiffer, render(got), want)
			}
		}
		return nil
	}
	for _, r := range seen {
		if render(got.Events) == render(r.Events) && slices.Equal(got.Unchanged, r.Unchanged) && maps.Equal(got.zoneCounts(), r.zoneCounts()) &&
			got.Populated == r.Populated && slices.Equal(got.Overloaded, r.Overloaded) {
			return nil
		}
	}
	return fmt.Errorf("%w: AddHints (Kubernetes varied over %d results):\n kcm %s\n k8s %s", ErrDiffer, len(seen), render(got), render(slices.Collect(maps.Values(seen))))
}

func k8sAddHints(c Case) addHintsResult {
	logger := logr.Discard()
	cache := topologycache.NewTopologyCache()
	cache.SetNodes(logger, k8sNodes(c.Nodes))
	si := &topologycache.SliceInfo{ServiceKey: "ns/svc", AddressType: discovery.AddressTypeIPv4,
		ToCreate: k8sSlices(c.ToCreate), ToUpdate: k8sSlices(c.ToUpdate), Unchanged: k8sSlices(c.Unchanged)}
	cr, up, events := cache.AddHints(logger, si)
	r := addHintsResult{ToCreate: fromK8s(cr), ToUpdate: fromK8s(up), Unchanged: []string{}, Events: []string{},
		Populated: cache.HasPopulatedHints("ns/svc"), Overloaded: cache.GetOverloadedServices()}
	for _, s := range si.Unchanged {
		r.Unchanged = append(r.Unchanged, s.Name)
	}
	for _, e := range events {
		r.Events = append(r.Events, e.EventType+" "+e.Reason+": "+e.Message)
	}
	slices.Sort(r.Overloaded)
	return r
}

func kcmAddHints(c Case) addHintsResult {
	cache := topology.NewCache()
	cache.SetNodes(zerolog.Nop(), kcmNodes(c.Nodes))
	si := &topology.SliceInfo{ServiceKey: "ns/svc", AddressType: api.AddressTypeIPv4,
		ToCreate: kcmSlices(c.ToCreate), ToUpdate: kcmSlices(c.ToUpdate), Unchanged: kcmSlices(c.Unchanged)}
	cr, up, events := cache.AddHints(zerolog.Nop(), si)
	r := addHintsResult{ToCreate: fromKCM(cr), ToUpdate: fromKCM(up), Unchanged: []string{}, Events: []string{},
		Populated: cache.HasPopulatedHints("ns/svc"), Overloaded: cache.OverloadedServices()}
	if r.Overloaded == nil {
		r.Overloaded = []string{}
	}
	for _, s := range si.Unchanged {
		r.Unchanged = append(r.Unchanged, s.Name)
	}
	for _, e := range events {
		r.Events = append(r.Events, e.Type+" "+e.Reason+": "+e.Message)
	}
	return r
}

func render(v any) string {
	b, err := json.Marshal(v)
	if err != nil {
		return fmt.Sprintf("<%v>", err)
	}
	return string(b)
}

func deref(p *string) string {
	if p == nil {
		return "<nil>"
	}
	return *p
}
