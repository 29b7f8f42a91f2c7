package informer_test

import (
	"testing"

	"github.com/kcmlab/kcm/informer"
	"github.com/kcmlab/kcm/kube/labels"
	"github.com/kcmlab/kcm/kube/rest"
)

// TestNodeAndLeaseListers: the typed shortcuts the node controllers read
// (node-lifecycle-controller reads Nodes and the kube-node-lease Leases)
// pass For's kind check and start empty.
func TestNodeAndLeaseListers(t *testing.T) {
	c, err := rest.NewClient(&rest.Config{Host: "http://127.0.0.1:1", QPS: -1})
	if err != nil {
		t.Fatal(err)
	}
	f := informer.NewFactory(c, informer.FactoryOptions{})
	if got := informer.NodesLister(f).List(labels.Everything()); len(got) != 0 {
		t.Fatalf("nodes %v", got)
	}
	if _, err := informer.NodesLister(f).Get("n1"); err == nil {
		t.Fatal("Get of an absent node: no error")
	}
	leases := informer.LeasesLister(f).Leases("kube-node-lease")
	if got := leases.List(labels.Everything()); len(got) != 0 {
		t.Fatalf("leases %v", got)
	}
	if _, err := leases.Get("n1"); err == nil {
		t.Fatalf("Get of an absent lease: %v", err)
	}
}
