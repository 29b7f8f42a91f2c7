package nodelifecycle

import (
	"testing"
	"time"

	"github.com/spf13/pflag"

	"github.com/kcmlab/kcm/ctrl"
	"github.com/kcmlab/kcm/kube/api"
	"github.com/kcmlab/kcm/queue"
)

// TestDescriptor: the name, alias and the seven flags with
// kube-controller-manager's defaults as its --help prints them.
func TestDescriptor(t *testing.T) {
	d := Descriptor()
	if d.Name != "node-lifecycle-controller" || len(d.Aliases) != 1 || d.Aliases[0] != "nodelifecycle" || d.DisabledByDefault {
		t.Fatalf("descriptor %+v", d)
	}
	r, err := ctrl.NewDescriptors(d)
	if err != nil {
		t.Fatal(err)
	}
	fs := pflag.NewFlagSet("kcm", pflag.ContinueOnError)
	o := r.NewOptions()
	r.AddFlags(fs, o)
	want := map[string]string{
		"node-monitor-period": "5s", "node-monitor-grace-period": "50s", "node-startup-grace-period": "1m0s",
		"node-eviction-rate": "0.1", "secondary-node-eviction-rate": "0.01", "large-cluster-size-threshold": "50",
		"unhealthy-zone-threshold": "0.55",
	}
	for name, def := range want {
		f := fs.Lookup(name)
		if f == nil || f.DefValue != def {
			t.Errorf("--%s: %+v, want default %s", name, f, def)
		}
	}
	if err := fs.Parse([]string{"--node-monitor-grace-period=16s", "--node-eviction-rate=0.5"}); err != nil {
		t.Fatal(err)
	}
	if v, _ := o.Duration("node-monitor-grace-period"); v != 16*time.Second {
		t.Errorf("grace %v", v)
	}
	if v, _ := o.Float32("node-eviction-rate"); v != 0.5 {
		t.Errorf("rate %v", v)
	}
}

// TestHandlers: nodes added or updated are queued by name; a pod is queued
// when it is first seen bound or its node changes (podUpdated), not on
// other updates; a deleted node loses its retry mark.
func TestHandlers(t *testing.T) {
	nodes, pods := queue.New(queue.Config[string]{}), queue.New(queue.Config[string]{})
	defer nodes.ShutDown()
	defer pods.ShutDown()
	c := newFixture(t, DefaultConfig()).c
	h := &handlers{nodes: nodes, pods: pods, c: c}
	n := testNode("n1", "a")
	h.nodeAdded(n, false)
	h.nodeUpdated(n, n)
	if nodes.Len() != 1 {
		t.Errorf("node queue %d, want n1 once", nodes.Len())
	}
	c.markRetry("n1")
	h.nodeDeleted(n, false)
	if c.needsRetry("n1") {
		t.Error("retry mark kept for a deleted node")
	}
	unbound := &api.Pod{ObjectMeta: api.ObjectMeta{Namespace: "ns", Name: "p"}}
	bound := &api.Pod{ObjectMeta: api.ObjectMeta{Namespace: "ns", Name: "p"}}
	bound.Spec.NodeName = "n1"
	h.podAdded(unbound, false)
	if pods.Len() != 0 {
		t.Error("unbound pod queued")
	}
	h.podUpdated(unbound, bound)
	h.podUpdated(bound, bound)
	if pods.Len() != 1 {
		t.Errorf("pod queue %d, want ns/p once", pods.Len())
	}
}
