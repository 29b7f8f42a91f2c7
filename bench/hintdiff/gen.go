package hintdiff

import (
	"fmt"
	"math/rand"
)

// Case is one random input: nodes, and the slices of one Service that a
// reconcile would create, update and leave unchanged.
type Case struct {
	Nodes                         []Node
	ToCreate, ToUpdate, Unchanged []Slice
}

// Node is a node as the topology cache reads it.
type Node struct {
	Zone         string // "": no zone label
	CPU          string // allocatable CPU, a quantity
	Ready        bool
	ControlPlane bool
}

// Slice is an EndpointSlice reduced to what hints depend on.
type Slice struct {
	Name      string
	Endpoints []Endpoint
}

// Endpoint is one endpoint: its zone and node ("" = unset), its ready
// condition (nil = unset) and the hints it already has.
type Endpoint struct {
	Zone, Node string
	Ready      *bool
	HasHints   bool
	HintZones  []string
	HintNodes  []string
}

var zones = []string{"za", "zb", "zc", "zd"}

// Generate returns the random case of seed: up to 8 nodes in up to 4
// zones (some not Ready, some control-plane, rarely one without a zone),
// and up to 2 slices of up to 6 endpoints in each list, with endpoints in
// zones with and without nodes, rarely without a zone, ready, not ready
// or unknown, and about half with hints already (right, wrong or empty).
func Generate(seed int64) Case {
	r := rand.New(rand.NewSource(seed))
	var c Case
	nz := 1 + r.Intn(4)
	for i := 0; i < 1+r.Intn(8); i++ {
		n := Node{Zone: zones[r.Intn(nz)], CPU: pick(r, []string{"1", "2", "4", "500m", "1500m", "8", "2000m", "0.5"}),
			Ready: r.Intn(8) != 0, ControlPlane: r.Intn(10) == 0}
		if r.Intn(40) == 0 {
			n.Zone = ""
		}
		c.Nodes = append(c.Nodes, n)
	}
	ez := 1 + r.Intn(4)
	c.ToCreate = genSlices(r, "c", ez)
	c.ToUpdate = genSlices(r, "u", ez)
	c.Unchanged = genSlices(r, "s", ez)
	return c
}

func pick[T any](r *rand.Rand, xs []T) T { return xs[r.Intn(len(xs))] }

func genSlices(r *rand.Rand, prefix string, nz int) []Slice {
	var out []Slice
	for i := 0; i < r.Intn(3); i++ {
		s := Slice{Name: fmt.Sprintf("%s%d", prefix, i)}
		for j := 0; j < r.Intn(7); j++ {
			s.Endpoints = append(s.Endpoints, endpoint(r, nz))
		}
		out = append(out, s)
	}
	return out
}

func endpoint(r *rand.Rand, nz int) Endpoint {
	e := Endpoint{}
	if r.Intn(30) != 0 {
		e.Zone = zones[r.Intn(min(nz+1, len(zones)))]
	}
	if r.Intn(5) != 0 {
		e.Node = pick(r, []string{"n1", "n2", "n3"})
	}
	switch r.Intn(8) {
	case 0:
	case 1:
		e.Ready = new(bool)
	default:
		t := true
		e.Ready = &t
	}
	if r.Intn(2) == 0 {
		e.HasHints = true
		for i := 0; i < r.Intn(3); i++ {
			e.HintZones = append(e.HintZones, zones[r.Intn(len(zones))])
		}
		for i := 0; i < r.Intn(2); i++ {
			e.HintNodes = append(e.HintNodes, pick(r, []string{"n1", "n2", "n3"}))
		}
		if r.Intn(2) == 0 && e.Zone != "" {
			e.HintZones = []string{e.Zone}
		}
	}
	return e
}
