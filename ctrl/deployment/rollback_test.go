package deployment

import (
	"encoding/json"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/kcmlab/kcm/kube/api"
	"github.com/kcmlab/kcm/kube/api/decode"
)

// TestAnnotationRollback follows rollback.go: the
// deprecated.deployment.rollback.to annotation copies that revision's
// template (without the hash label, with fields kcm does not model) and
// annotations into the Deployment and removes itself; 0 means the
// previous revision; a missing revision or an unchanged template only
// clears the request, with kube-controller-manager's Warning events.
func TestAnnotationRollback(t *testing.T) {
	v1d := newDeployment("web", 3, "v1")
	v1d.Annotations = map[string]string{"note": "one"}
	v1 := withRawField(t, newRS(v1d, "web-v1", 1, 0, -2*time.Hour))
	v1.Annotations["note"] = "one"
	d := newDeployment("web", 3, "v2")
	v2 := newRS(d, "web-v2", 2, 3, -time.Hour)
	for _, tc := range []struct {
		to        string
		wantEvent string
		wantImage string
	}{
		{"1", "Normal DeploymentRollback Rolled back deployment \"web\" to revision 1", "v1"},
		{"0", "Normal DeploymentRollback Rolled back deployment \"web\" to revision 1", "v1"},
		{"2", "Warning DeploymentRollbackTemplateUnchanged The rollback revision contains the same template as current deployment \"web\"", ""},
		{"7", "Warning DeploymentRollbackRevisionNotFound Unable to find the revision to rollback to.", ""},
	} {
		dd := roundTrip(t, d)
		dd.Annotations = map[string]string{RollbackToAnnotation: tc.to, RevisionAnnotation: "2", "note": "two"}
		f := newFixture(t)
		f.load([]*api.Deployment{dd}, v2)
		f.replicaSets = append(f.replicaSets, v1) // as is: load would drop its raw JSON
		if _, err := f.run("ns/web"); err != nil {
			t.Fatal(err)
		}
		if ev := f.eventList(); !slices.Equal(ev, []string{tc.wantEvent}) {
			t.Errorf("to %s: events %q", tc.to, ev)
		}
		a, ok := f.find("update deployments ns/web")
		if !ok {
			t.Fatalf("to %s: no update: %q", tc.to, f.writes())
		}
		got, _ := decode.Typed[api.Deployment]().Decode(a.Body)
		if _, still := got.Annotations[RollbackToAnnotation]; still || got.Annotations[RevisionAnnotation] != "2" {
			t.Errorf("to %s: annotations %v", tc.to, got.Annotations)
		}
		if tc.wantImage == "" {
			continue
		}
		if img := got.Spec.Template.Spec.Containers[0].Image; img != tc.wantImage || got.Annotations["note"] != "one" {
			t.Errorf("to %s: image %s annotations %v", tc.to, img, got.Annotations)
		}
		if _, hashed := got.Spec.Template.Labels[PodTemplateHashLabel]; hashed {
			t.Errorf("to %s: hash label copied", tc.to)
		}
		if !strings.Contains(string(a.Body), `"dnsConfig"`) {
			t.Errorf("to %s: unmodelled template field lost: %s", tc.to, a.Body)
		}
	}
	// Revision 0 with no earlier revision.
	dd := roundTrip(t, d)
	dd.Annotations = map[string]string{RollbackToAnnotation: "0"}
	f := newFixture(t)
	f.load([]*api.Deployment{dd})
	if _, err := f.run("ns/web"); err != nil {
		t.Fatal(err)
	}
	if ev := f.eventList(); len(ev) < 1 || ev[len(ev)-1] != "Warning DeploymentRollbackRevisionNotFound Unable to find last revision." {
		t.Errorf("events %q", ev)
	}
	// Unreadable requests are no requests.
	for _, v := range []string{"", "x"} {
		if rollbackTo(&api.Deployment{ObjectMeta: api.ObjectMeta{Annotations: map[string]string{RollbackToAnnotation: v}}}) != nil {
			t.Errorf("%q read as a request", v)
		}
	}
}

// withRawField gives a ReplicaSet's template an unmodelled dnsConfig.
func withRawField(t *testing.T, rs *api.ReplicaSet) *api.ReplicaSet {
	t.Helper()
	rs = roundTrip(t, rs)
	s := strings.Replace(string(rs.Raw()), `"containers":`, `"dnsConfig":{"options":[{"name":"ndots"}]},"containers":`, 1)
	out, err := decode.Typed[api.ReplicaSet]().Decode([]byte(s))
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// TestRollbackKeepsDeploymentFields: the rollback write edits the
// Deployment's own JSON, so its fields kcm does not model survive.
func TestRollbackKeepsDeploymentFields(t *testing.T) {
	d := withUnmodelled(t, newDeployment("web", 3, "v2"))
	d.Annotations = map[string]string{RollbackToAnnotation: "7"}
	b, _ := json.Marshal(d)
	s := strings.Replace(string(b), `"containers":`, `"schedulingGates":[{"name":"gate"}],"containers":`, 1)
	dd, err := decode.Typed[api.Deployment]().Decode([]byte(s))
	if err != nil {
		t.Fatal(err)
	}
	f := newFixture(t)
	f.deployments = []*api.Deployment{dd}
	if _, err := f.run("ns/web"); err != nil {
		t.Fatal(err)
	}
	a, ok := f.find("update deployments ns/web")
	if !ok || !strings.Contains(string(a.Body), `"schedulingGates"`) || strings.Contains(string(a.Body), RollbackToAnnotation) {
		t.Fatalf("rollback write %s", a.Body)
	}
}

// lastRSWrite decodes the last write of the named ReplicaSet.
func (f *fixture) lastRSWrite(name string) *api.ReplicaSet {
	f.t.Helper()
	a, ok := f.find("update replicasets ns/" + name)
	if !ok {
		f.t.Fatalf("no write of %s: %q", name, f.writes())
	}
	rs, err := decode.Typed[api.ReplicaSet]().Decode(a.Body)
	if err != nil {
		f.t.Fatal(err)
	}
	return rs
}

// TestRollbackByTemplate: putting an old template back makes the old
// ReplicaSet the new one (FindNewReplicaSet): it gets the next revision
// and the old number in revision-history, is scaled up by the rollout,
// and no ReplicaSet is created.
func TestRollbackByTemplate(t *testing.T) {
	d := newDeployment("web", 3, "v1")
	d.Spec.Strategy.RollingUpdate = &api.RollingUpdateDeployment{MaxSurge: intstr("1"), MaxUnavailable: intstr("0")}
	v1 := newRS(d, "web-v1", 1, 0, -2*time.Hour)
	v2d := newDeployment("web", 3, "v2")
	v2 := newRS(v2d, "web-v2", 2, 3, -time.Hour)
	d.Annotations = map[string]string{RevisionAnnotation: "2"}
	f := newFixture(t)
	f.load([]*api.Deployment{d}, v1, v2)
	doubleWrite(t, f)
	if _, ok := f.find("create replicasets"); ok {
		t.Fatal("created a ReplicaSet")
	}
	ann := f.lastRSWrite("web-v1").Annotations
	if ann[RevisionAnnotation] != "3" || ann[RevisionHistoryAnnotation] != "1" {
		t.Fatalf("web-v1 annotations %v", ann)
	}
	f.apply(true)
	if f.deployments[0].Annotations[RevisionAnnotation] != "3" {
		// the revision write comes with the next sync when the RS was updated
		if _, err := f.run("ns/web"); err != nil {
			t.Fatal(err)
		}
		f.apply(true)
	}
	if got := f.deployments[0].Annotations[RevisionAnnotation]; got != "3" {
		t.Fatalf("deployment revision %q", got)
	}
	if got := specReplicas(f.rsNamed("web-v1")); got == 0 {
		t.Fatalf("web-v1 not scaled up: %v", f.sizes())
	}
}
