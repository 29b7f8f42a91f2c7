package topology

import "github.com/kcmlab/kcm/kube/api"

// The node labels the cache reads.
const (
	// LabelTopologyZone is the zone of a node, and so of its endpoints.
	LabelTopologyZone = "topology.kubernetes.io/zone"
	// Nodes with either role label carry no workload CPU for the cache.
	labelNodeRoleControlPlane = "node-role.kubernetes.io/control-plane"
	labelNodeRoleMaster       = "node-role.kubernetes.io/master"
)

// NodeReady reports whether the node's Ready condition is True.
func NodeReady(n *api.Node) bool {
	for _, c := range n.Status.Conditions {
		if c.Type == "Ready" {
			return c.Status == api.ConditionTrue
		}
	}
	return false
}

// NodeTopologyChanged reports whether a node update matters to the
// cache: its readiness or its zone label changed (upstream's updateNode;
// the zone may be labelled by a cloud provider after the node is created).
// Added and deleted nodes always matter.
func NodeTopologyChanged(old, cur *api.Node) bool {
	return NodeReady(old) != NodeReady(cur) || old.Labels[LabelTopologyZone] != cur.Labels[LabelTopologyZone]
}

// excludedNode reports whether labels mark a control-plane node, which
// the cache leaves out of the CPU shares whatever the value.
func excludedNode(labels map[string]string) bool {
	_, cp := labels[labelNodeRoleControlPlane]
	_, master := labels[labelNodeRoleMaster]
	return cp || master
}
