package deployment

import (
	"strings"
	"testing"
	"time"

	"github.com/kcmlab/kcm/kube/api"
)

// TestReplicaSetName: <deployment>-<hash>, the deployment's name cut so
// that the whole is at most 253 characters (generateReplicaSetName).
func TestReplicaSetName(t *testing.T) {
	if got := replicaSetName("web", "abc"); got != "web-abc" {
		t.Fatal(got)
	}
	long := strings.Repeat("x", 260)
	if got := replicaSetName(long, "abcd"); len(got) != 253 || !strings.HasSuffix(got, "x-abcd") {
		t.Fatalf("%d %s", len(got), got[240:])
	}
	exact := strings.Repeat("y", 248)
	if got := replicaSetName(exact, "abcd"); got != exact+"-abcd" {
		t.Fatal("cut a name that fits")
	}
}

// TestCreateAtZeroRecordsNoEvent: a new ReplicaSet created with 0
// replicas (no surge room) records no "Scaled up … from 0 to 0" event.
func TestCreateAtZeroRecordsNoEvent(t *testing.T) {
	d := newDeployment("web", 3, "v1")
	d.Spec.Strategy.RollingUpdate = &api.RollingUpdateDeployment{MaxSurge: intstr("0"), MaxUnavailable: intstr("1")}
	old := newRS(d, "web-old", 1, 3, -time.Hour)
	d.Spec.Template.Spec.Containers = []api.Container{{Name: "c", Image: "v2"}}
	f := newFixture(t)
	f.load([]*api.Deployment{d}, old)
	if _, err := f.run("ns/web"); err != nil {
		t.Fatal(err)
	}
	if _, ok := f.find("create replicasets"); !ok {
		t.Fatal("nothing created")
	}
	for _, e := range f.eventList() {
		if e != "Normal ScalingReplicaSet Scaled down replica set web-old from 3 to 2" {
			t.Errorf("event %q", e)
		}
	}
}
