package main

import (
	"strings"
	"testing"

	"github.com/rs/zerolog"
)

func TestDevNodes(t *testing.T) {
	for _, tt := range []struct {
		n     int
		names []string
		zones []string
		line  string
	}{
		{0, nil, nil, "nodes          none (--nodes=0): no kube-scheduler, pods stay Pending"},
		{3, []string{"node-1", "node-2", "node-3"}, []string{"zone-a", "zone-b", "zone-c"},
			"nodes          node-1 (zone-a), node-2 (zone-b), node-3 (zone-c), played by kwok v0.8.0"},
		{4, []string{"node-1", "node-2", "node-3", "node-4"}, []string{"zone-a", "zone-b", "zone-c", "zone-a"}, "node-4 (zone-a)"},
	} {
		nodes := devNodes(tt.n)
		if len(nodes) != tt.n {
			t.Fatalf("devNodes(%d) = %d nodes", tt.n, len(nodes))
		}
		for i, n := range nodes {
			if n.Name != tt.names[i] || n.Zone != tt.zones[i] {
				t.Errorf("devNodes(%d)[%d] = %s in %s, want %s in %s", tt.n, i, n.Name, n.Zone, tt.names[i], tt.zones[i])
			}
		}
		opts := devClusterOptions(tt.n, zerolog.Nop(), nil)
		if len(opts.Nodes) != tt.n {
			t.Errorf("devClusterOptions(%d) asks for %d nodes", tt.n, len(opts.Nodes))
		}
		if got := describeNodes(nodes); !strings.Contains(got, tt.line) {
			t.Errorf("describeNodes(%d) = %q, want it to contain %q", tt.n, got, tt.line)
		}
	}
}
