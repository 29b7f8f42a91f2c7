package deployment

import (
	"errors"
	"slices"
	"strings"
	"testing"

	"github.com/kcmlab/kcm/internal/testing/resttest"
	"github.com/kcmlab/kcm/kube/api"
	"github.com/kcmlab/kcm/kube/rest"
)

// TestClaimReplicaSets: an orphan matching the selector is adopted with a
// patch carrying the controller ref (and is then the Deployment's), an
// owned ReplicaSet that no longer matches is released, another
// controller's is left alone (getReplicaSetsForDeployment,
// ClaimReplicaSets).
func TestClaimReplicaSets(t *testing.T) {
	d := newDeployment("web", 3, "v1")
	orphan := newRS(d, "web-orphan", 1, 3, 0)
	orphan.OwnerReferences = nil
	gone := newRS(d, "web-gone", 1, 0, 0)
	gone.Labels = map[string]string{"app": "other"}
	theirs := newRS(d, "web-theirs", 1, 0, 0)
	theirs.OwnerReferences[0].UID = "x"
	f := newFixture(t)
	f.load([]*api.Deployment{d}, orphan, gone, theirs)
	var names []string
	f.with(func(s *syncer) {
		list, err := s.claimReplicaSets(t.Context(), f.deployments[0])
		if err != nil {
			t.Fatal(err)
		}
		for _, o := range list {
			names = append(names, o.rs.Name)
		}
	})
	if !slices.Equal(names, []string{"web-orphan"}) {
		t.Fatalf("claimed %q", names)
	}
	if !resttest.ExpectUnordered(t, f.api.Actions(), "get deployments ns/web", "patch replicasets ns/web-orphan", "patch replicasets ns/web-gone") {
		t.FailNow()
	}
	a, _ := f.find("patch replicasets ns/web-orphan")
	if !strings.Contains(string(a.Body), `"uid":"uid-web"`) || !strings.Contains(string(a.Body), `"controller":true`) {
		t.Fatalf("adoption patch %s", a.Body)
	}
}

// TestClaimRefusedForAGoneDeployment: before adopting, the Deployment is
// read fresh; when it is gone, nothing is adopted and the sync fails
// (RecheckDeletionTimestamp).
func TestClaimRefusedForAGoneDeployment(t *testing.T) {
	d := newDeployment("web", 3, "v1")
	orphan := newRS(d, "web-orphan", 1, 3, 0)
	orphan.OwnerReferences = nil
	f := newFixture(t)
	f.load([]*api.Deployment{d}, orphan)
	f.api.Fail(resttest.On("get", "deployments"), rest.Status{Code: 404, Reason: "NotFound"})
	if _, err := f.run("ns/web"); !errors.Is(err, ErrDeploymentGone) {
		t.Fatalf("adopted for a deployment that is gone: %q", f.writes())
	}
	if !resttest.Expect(t, f.api.Actions(), "get deployments ns/web") {
		t.FailNow()
	}
}
