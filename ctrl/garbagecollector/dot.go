package garbagecollector

import (
	"bufio"
	"fmt"
	"io"
	"slices"
	"strconv"
	"strings"
)

// vertex is one node of the graph as the debug endpoint draws it
// (Kubernetes' dotVertex): a node of the graph, or a "missing" owner that
// a dependent names but the graph has no node for.
type vertex struct {
	identity                                           objectRef
	missing, beingDeleted, deletingDependents, virtual bool
	// owners are the vertices this one's ownerReferences point to.
	owners []*vertex
}

// Vertices copies the part of the graph the debug endpoint shows: every
// node that owns or is owned, or — given uids — only the nodes connected
// to those, through owners and dependents, transitively. Nodes with
// neither owners nor dependents are left out, as Kubernetes does.
func (g *Graph) vertices(uids ...string) []*vertex {
	g.mu.RLock()
	defer g.mu.RUnlock()
	nodes := g.nodes
	if len(uids) > 0 {
		nodes = map[string]*node{}
		todo := slices.Clone(uids)
		for len(todo) > 0 {
			uid := todo[len(todo)-1]
			todo = todo[:len(todo)-1]
			n, ok := g.nodes[uid]
			if _, done := nodes[uid]; done || !ok {
				continue
			}
			nodes[uid] = n
			for _, o := range n.owners {
				todo = append(todo, o.UID)
			}
			for d := range n.dependents {
				todo = append(todo, d.identity.UID)
			}
		}
	}
	byUID := map[string]*vertex{}
	for uid, n := range nodes {
		if len(n.owners) == 0 && len(n.dependents) == 0 {
			continue
		}
		byUID[uid] = &vertex{identity: n.identity, beingDeleted: n.beingDeleted,
			deletingDependents: n.deletingDependents, virtual: n.virtual}
	}
	for uid, n := range nodes {
		v := byUID[uid]
		if v == nil {
			continue
		}
		for _, o := range n.owners {
			ov, ok := byUID[o.UID]
			if !ok {
				ov = &vertex{identity: refFromOwner(o, ""), missing: true}
				byUID[o.UID] = ov
			}
			v.owners = append(v.owners, ov)
		}
	}
	out := make([]*vertex, 0, len(byUID))
	for _, v := range byUID {
		out = append(out, v)
	}
	sortVertices(out)
	for _, v := range out {
		sortVertices(v.owners)
		v.owners = slices.Compact(v.owners)
	}
	return out
}

func sortVertices(vs []*vertex) {
	slices.SortFunc(vs, func(a, b *vertex) int {
		switch {
		case a.identity.less(b.identity):
			return -1
		case b.identity.less(a.identity):
			return 1
		}
		return 0
	})
}

// WriteDOT writes the graph, or the part connected to uids, in Graphviz
// DOT, the format of kube-controller-manager's
// /debug/controllers/<gc>/graph: a strict digraph named "full", one
// vertex per object with its coordinates and state as attributes, and an
// edge from each dependent to each of its owners. `dot -Tsvg` draws it.
func (g *Graph) WriteDOT(w io.Writer, uids ...string) error {
	vs := g.vertices(uids...)
	b := bufio.NewWriter(w)
	b.WriteString("strict digraph full {\n")
	if len(vs) > 0 {
		b.WriteString("  // Node definitions.\n")
		for _, v := range vs {
			writeVertex(b, v)
		}
		edges := false
		for _, v := range vs {
			for _, o := range v.owners {
				if !edges {
					b.WriteString("  // Edge definitions.\n")
					edges = true
				}
				fmt.Fprintf(b, "  %s -> %s;\n", strconv.Quote(v.identity.UID), strconv.Quote(o.identity.UID))
			}
		}
	}
	b.WriteString("}\n")
	return b.Flush()
}

// writeVertex writes one vertex with Kubernetes' attributes: a label for
// people (uid, namespace, kind.version.group/name and the state flags)
// and the same facts one per attribute for tools.
func writeVertex(b *bufio.Writer, v *vertex) {
	id := v.identity
	kind := id.Kind + "." + id.version()
	if g := id.group(); g != "" {
		kind += "." + g
	}
	label := fmt.Sprintf("uid=%s\nnamespace=%s\n%s/%s\n", id.UID, id.Namespace, kind, id.Name)
	var state []string
	for _, f := range []struct {
		on   bool
		name string
	}{{v.beingDeleted, "beingDeleted"}, {v.deletingDependents, "deletingDependents"}, {v.virtual, "virtual"}, {v.missing, "missingFromGraph"}} {
		if f.on {
			state = append(state, f.name)
		}
	}
	if len(state) > 0 {
		label += strings.Join(state, ",") + "\n"
	}
	fmt.Fprintf(b, "  %s [\n", strconv.Quote(id.UID))
	for _, a := range [][2]string{
		{"label", label}, {"group", id.group()}, {"version", id.version()}, {"kind", id.Kind},
		{"namespace", id.Namespace}, {"name", id.Name}, {"uid", id.UID},
		{"missing", strconv.FormatBool(v.missing)}, {"beingDeleted", strconv.FormatBool(v.beingDeleted)},
		{"deletingDependents", strconv.FormatBool(v.deletingDependents)}, {"virtual", strconv.FormatBool(v.virtual)},
	} {
		fmt.Fprintf(b, "    %s=%s\n", a[0], strconv.Quote(a[1]))
	}
	b.WriteString("  ];\n")
}
