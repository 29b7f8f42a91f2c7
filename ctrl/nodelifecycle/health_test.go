package nodelifecycle

import (
	"testing"
	"time"

	"github.com/kcmlab/kcm/kube/api"
)

var t0 = time.Date(2026, 12, 6, 10, 0, 0, 0, time.UTC)

func at(d time.Duration) api.Time { return api.NewTime(t0.Add(d)) }

func readyCond(status api.ConditionStatus, heartbeat, transition time.Duration) api.NodeCondition {
	return api.NodeCondition{Type: ConditionReady, Status: status, LastHeartbeatTime: at(heartbeat), LastTransitionTime: at(transition)}
}

func testNode(name, zone string, conds ...api.NodeCondition) *api.Node {
	n := &api.Node{ObjectMeta: api.ObjectMeta{Name: name, UID: "uid-" + name, CreationTimestamp: at(0)}}
	if zone != "" {
		n.Labels = map[string]string{LabelTopologyZone: zone, LabelTopologyRegion: "r"}
	}
	n.Status.Conditions = conds
	return n
}

func testLease(name string, renew time.Duration) *api.Lease {
	rt := api.NewMicroTime(t0.Add(renew))
	return &api.Lease{ObjectMeta: api.ObjectMeta{Name: name, Namespace: NamespaceNodeLease, ResourceVersion: "7"},
		Spec: api.LeaseSpec{RenewTime: &rt}}
}

var testGraces = graces{startup: time.Minute, monitor: 40 * time.Second}

// TestObserve follows upstream's tryUpdateNodeHealth case list: the probe
// timestamp is the controller's clock at the last sign of life (a new
// Ready heartbeat or a renewed Lease), never the node's own timestamps,
// and the grace period is the startup one until the node posts Ready.
func TestObserve(t *testing.T) {
	ready := readyCond(api.ConditionTrue, 0, 0)
	now := t0.Add(time.Hour)
	saved := &health{probe: t0, readyTransition: t0, status: &api.NodeStatus{Conditions: []api.NodeCondition{ready}},
		lease: testLease("n", 0)}
	cases := []struct {
		name                  string
		node                  *api.Node
		lease                 *api.Lease
		saved                 *health
		probe, transition     time.Time
		grace                 time.Duration
		hasReady, expiredNow  bool
		leaseKept, leaseIsNew bool
	}{
		{name: "never posted status, first seen: stamped with the creation time, startup grace",
			node: testNode("n", ""), probe: t0, transition: t0, grace: time.Minute, expiredNow: true},
		{name: "first seen with Ready: probe now (Missing timestamp for Node)",
			node: testNode("n", "", ready), probe: now, transition: now, grace: 40 * time.Second, hasReady: true},
		{name: "same heartbeat, same lease: nothing new, expired",
			node: testNode("n", "", ready), lease: testLease("n", 0), saved: saved,
			probe: t0, transition: t0, grace: 40 * time.Second, hasReady: true, expiredNow: true, leaseKept: true},
		{name: "new Ready heartbeat: probe now, transition kept",
			node: testNode("n", "", readyCond(api.ConditionTrue, 10*time.Second, 0)), saved: saved,
			probe: now, transition: t0, grace: 40 * time.Second, hasReady: true},
		{name: "new heartbeat with a new transition: both now",
			node: testNode("n", "", readyCond(api.ConditionFalse, 10*time.Second, 10*time.Second)), saved: saved,
			probe: now, transition: now, grace: 40 * time.Second, hasReady: true},
		{name: "renewed Lease, same heartbeat: probe now",
			node: testNode("n", "", ready), lease: testLease("n", 30*time.Second), saved: saved,
			probe: now, transition: t0, grace: 40 * time.Second, hasReady: true, leaseIsNew: true},
		// Upstream replaces the record's status before it looks at the
		// saved Ready condition, so its "Ready removed" case never runs:
		// the record keeps its times and the startup grace applies.
		{name: "Ready removed: record kept, startup grace",
			node: testNode("n", ""), saved: saved, probe: t0, transition: t0, grace: time.Minute, expiredNow: true},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			o := observe(tc.node, tc.lease, tc.saved, now, testGraces)
			if !o.rec.probe.Equal(tc.probe) || !o.rec.readyTransition.Equal(tc.transition) {
				t.Errorf("probe %v transition %v, want %v %v", o.rec.probe, o.rec.readyTransition, tc.probe, tc.transition)
			}
			if o.grace != tc.grace || o.hasReady != tc.hasReady {
				t.Errorf("grace %v hasReady %v, want %v %v", o.grace, o.hasReady, tc.grace, tc.hasReady)
			}
			if got := o.expired(now); got != tc.expiredNow {
				t.Errorf("expired = %v, want %v", got, tc.expiredNow)
			}
			if tc.leaseIsNew && o.rec.lease != tc.lease {
				t.Error("the renewed lease is not the record's")
			}
			if tc.leaseKept && o.rec.lease != saved.lease {
				t.Error("the saved lease was not kept")
			}
		})
	}
	if saved.probe != t0 {
		t.Fatal("observe changed the saved record")
	}
}

// TestGracePeriods: a node is healthy until --node-monitor-grace-period
// has passed since the last sign of life (now.After(probe + grace), so
// exactly at the grace period it is not yet expired), and a node that
// never posted Ready gets --node-startup-grace-period from its creation.
func TestGracePeriods(t *testing.T) {
	o := observe(testNode("n", "", readyCond(api.ConditionTrue, 0, 0)), nil, nil, t0, testGraces)
	if o.expired(t0.Add(40*time.Second)) || !o.expired(t0.Add(40*time.Second+time.Nanosecond)) {
		t.Error("monitor grace: expiry is not strictly after probe+40s")
	}
	o = observe(testNode("n", ""), nil, nil, t0.Add(50*time.Second), testGraces)
	if o.expired(t0.Add(time.Minute)) || !o.expired(t0.Add(time.Minute+time.Nanosecond)) {
		t.Error("startup grace: expiry is not strictly after creation+1m")
	}
	// A Lease renewed keeps the node alive although Ready's heartbeat is old.
	saved := observe(testNode("n", "", readyCond(api.ConditionTrue, 0, 0)), testLease("n", 0), nil, t0, testGraces).rec
	later := t0.Add(35 * time.Second)
	o = observe(testNode("n", "", readyCond(api.ConditionTrue, 0, 0)), testLease("n", 35*time.Second), saved, later, testGraces)
	if o.expired(t0.Add(70 * time.Second)) {
		t.Error("a renewed Lease did not move the probe time")
	}
}

// TestMarkUnknown: past the grace period Ready, MemoryPressure,
// DiskPressure and PIDPressure become Unknown with upstream's reason and
// message; a condition never posted is added (NodeStatusNeverUpdated);
// NetworkUnavailable and an Unknown condition are left alone.
func TestMarkUnknown(t *testing.T) {
	n := testNode("n", "", readyCond(api.ConditionTrue, 0, 0),
		api.NodeCondition{Type: ConditionMemoryPressure, Status: api.ConditionFalse},
		api.NodeCondition{Type: ConditionDiskPressure, Status: api.ConditionUnknown, Reason: "Old"},
		api.NodeCondition{Type: ConditionNetworkUnavailable, Status: api.ConditionFalse})
	now := t0.Add(time.Minute)
	ready := markUnknown(n, now)
	if ready.Status != api.ConditionUnknown || ready.Reason != "NodeStatusUnknown" ||
		ready.Message != "Kubelet stopped posting node status." || !ready.LastTransitionTime.Equal(now) ||
		!ready.LastHeartbeatTime.Equal(t0) {
		t.Errorf("Ready = %+v", ready)
	}
	if c := getCondition(&n.Status, ConditionMemoryPressure); c.Status != api.ConditionUnknown || c.Reason != ReasonNodeStatusUnknown {
		t.Errorf("MemoryPressure = %+v", c)
	}
	if c := getCondition(&n.Status, ConditionDiskPressure); c.Reason != "Old" {
		t.Errorf("an Unknown condition was rewritten: %+v", c)
	}
	if c := getCondition(&n.Status, ConditionNetworkUnavailable); c.Status != api.ConditionFalse {
		t.Errorf("NetworkUnavailable changed: %+v", c)
	}
	if c := getCondition(&n.Status, ConditionPIDPressure); c == nil || c.Reason != "NodeStatusNeverUpdated" ||
		c.Message != "Kubelet never posted node status." || !c.LastHeartbeatTime.Equal(t0) {
		t.Errorf("PIDPressure (never posted) = %+v", c)
	}
	if !sameCondition(ready, ready) || sameCondition(ready, &api.NodeCondition{Type: ConditionReady}) || sameCondition(nil, ready) {
		t.Error("sameCondition")
	}
}
