package main

import (
	"fmt"
	"io"
	"strings"

	"github.com/rs/zerolog"

	"github.com/kcmlab/kcm/testenv"
)

// devZones are the zones `kcm dev` spreads its nodes over, round-robin.
var devZones = []string{"zone-a", "zone-b", "zone-c"}

// maxDevNodes bounds --nodes (testenv gives each node a /24 of pod IPs,
// at most 255 of them).
const maxDevNodes = 100

// devNodes are the kwok nodes of `kcm dev`: node-1..node-n, in devZones
// round-robin, with testenv's default capacity.
func devNodes(n int) []testenv.NodeSpec {
	nodes := make([]testenv.NodeSpec, n)
	for i := range nodes {
		nodes[i] = testenv.NodeSpec{Name: fmt.Sprintf("node-%d", i+1), Zone: devZones[i%len(devZones)]}
	}
	return nodes
}

// devClusterOptions is the cluster `kcm dev` starts: etcd and
// kube-apiserver, and with nodes > 0 also kube-scheduler and kwok playing
// that many nodes, so that the pods of a Deployment get scheduled, an IP,
// and become Running and Ready.
func devClusterOptions(nodes int, log zerolog.Logger, progress io.Writer) testenv.Options {
	return testenv.Options{Logger: log, Progress: progress, Nodes: devNodes(nodes)}
}

// describeNodes is the nodes' line of `kcm dev`'s greeting.
func describeNodes(nodes []testenv.NodeSpec) string {
	if len(nodes) == 0 {
		return "  nodes          none (--nodes=0): no kube-scheduler, pods stay Pending\n"
	}
	names := make([]string, len(nodes))
	for i, n := range nodes {
		names[i] = n.Name + " (" + n.Zone + ")"
	}
	return fmt.Sprintf("  kube-scheduler %s\n  nodes          %s, played by kwok %s\n",
		testenv.KubernetesVersion, strings.Join(names, ", "), testenv.KwokVersion)
}
