package statefulset

import (
	"bytes"
	"context"
	"errors"
	"slices"
	"testing"
	"time"

	"github.com/rs/zerolog"

	"github.com/kcmlab/kcm/ctrl/history"
	"github.com/kcmlab/kcm/informer"
	"github.com/kcmlab/kcm/internal/testing/resttest"
	"github.com/kcmlab/kcm/kube/api"
	"github.com/kcmlab/kcm/kube/rest"
)

// scRevisionActions are the apiserver's ControllerRevision actions so far.
func (f *scFixture) scRevisionActions() []string {
	var out []string
	for _, a := range f.api.Actions() {
		if a.Resource == "controllerrevisions" {
			out = append(out, a.String())
		}
	}
	return out
}

func scExpectActions(t *testing.T, step string, got []string, want ...string) {
	t.Helper()
	if !slices.Equal(got, want) {
		t.Errorf("%s: revision actions\n got  %q\n want %q", step, got, want)
	}
}

// A set's first revision (getStatefulSetRevisions, newRevision): the
// patch of its template, numbered 1, named <set>-<hash> with the
// collision count 0 hashed in (nil is read as 0), labelled with the
// template's labels and the hash, controlled by the set; the status
// records it as current and update revision and collisionCount 0.
func TestFirstRevision(t *testing.T) {
	set := scSet(1)
	f := newSCFixture(t, set)
	f.mustSync()
	want := scRevisionOf(t, set, 1)
	scExpectActions(t, "first sync", f.scRevisionActions(), "create controllerrevisions ns/"+want.Name)
	revs := f.revisions()
	if len(revs) != 1 {
		t.Fatalf("%d revisions, want 1", len(revs))
	}
	got := revs[0]
	if got.Name != want.Name || got.Revision != 1 || !bytes.Equal(got.Data.Raw, want.Data.Raw) ||
		got.Labels["app"] != "web" || got.Labels[history.HashLabel] != want.Labels[history.HashLabel] {
		t.Errorf("revision %s #%d labels %v data %s\nwant %s #1 labels %v data %s", got.Name, got.Revision, got.Labels, got.Data.Raw,
			want.Name, want.Labels, want.Data.Raw)
	}
	if ref := got.ControllerRef(); ref == nil || ref.UID != "uid-web" || ref.Kind != "StatefulSet" || ref.BlockOwnerDeletion == nil || !*ref.BlockOwnerDeletion {
		t.Errorf("controller reference %+v, want StatefulSet web blocking deletion", ref)
	}
	st := f.set().Status
	if st.CurrentRevision != want.Name || st.UpdateRevision != want.Name || st.CollisionCount == nil || *st.CollisionCount != 0 {
		t.Errorf("status %+v, want both revisions %s and collisionCount 0", st, want.Name)
	}
	f.api.Take()
	f.mustSync()
	scExpectActions(t, "second sync", f.scRevisionActions())
}

// The collision loop (history's CreateControllerRevision): the name is
// taken by a revision with other data, so the collision count goes to 1
// and the revision is created under the name hashed with 1 — keeping the
// hash label of the first try, as kube-controller-manager does (ctrl/history
// pin test, collide-77cbc489c labelled 77cbc489b). The status records
// collisionCount 1, and the next sync finds the revision.
func TestRevisionNameCollision(t *testing.T) {
	set := scSet(1)
	first := scRevisionOf(t, set, 1)
	taken := &api.ControllerRevision{ObjectMeta: api.ObjectMeta{Name: first.Name, Namespace: "ns", UID: "uid-taken",
		Labels: map[string]string{"app": "other"}},
		Data: api.RawExtension{Raw: []byte(`{"spec":{"template":{"$patch":"replace","metadata":{"labels":{"other":"data"}}}}}`)}, Revision: 1}
	f := newSCFixture(t, set, taken)
	f.mustSync()
	one := int32(1)
	second := history.RevisionName("web", history.Hash(first.Data.Raw, &one))
	scExpectActions(t, "first sync", f.scRevisionActions(), "create controllerrevisions ns/"+first.Name,
		"get controllerrevisions ns/"+first.Name, "create controllerrevisions ns/"+second)
	rev, ok := resttest.Get[*api.ControllerRevision](f.api, rest.ControllerRevisions, "ns", second)
	if !ok {
		t.Fatalf("no revision %s", second)
	}
	if got, want := rev.Labels[history.HashLabel], first.Labels[history.HashLabel]; got != want {
		t.Errorf("hash label %s, want the first try's %s", got, want)
	}
	st := f.set().Status
	if st.CollisionCount == nil || *st.CollisionCount != 1 || st.UpdateRevision != second {
		t.Errorf("status %+v, want collisionCount 1 and updateRevision %s", st, second)
	}
	f.api.Take()
	f.mustSync()
	scExpectActions(t, "second sync", f.scRevisionActions())
}

// A name taken by a revision with the same data (created meanwhile,
// not yet in the cache) is the revision wanted: reused, count unchanged.
func TestRevisionNameTakenBySameData(t *testing.T) {
	set := scSet(1)
	first := scRevisionOf(t, set, 1)
	f := newSCFixture(t, set)
	f.api.Intercept(resttest.On("create", "controllerrevisions").Nth(1), func(resttest.Action) error {
		resttest.Add(f.api, rest.ControllerRevisions, first)
		return rest.StatusErrorFrom("", "", resttest.Failure(409, "AlreadyExists", "already exists"))
	})
	f.mustSync()
	scExpectActions(t, "sync", f.scRevisionActions(), "create controllerrevisions ns/"+first.Name, "get controllerrevisions ns/"+first.Name)
	st := f.set().Status
	if st.CollisionCount == nil || *st.CollisionCount != 0 || st.UpdateRevision != first.Name {
		t.Errorf("status %+v, want collisionCount 0 and updateRevision %s", st, first.Name)
	}
}

// scRollbackFixture: revisions A (#1, app:1) and B (#2, app:2), pods of
// B, and the set's template back at A.
func scRollbackFixture(t *testing.T) (f *scFixture, revA, revB *api.ControllerRevision) {
	setA := scSet(3)
	revA = scRevisionOf(t, setA, 1)
	revB = scRevisionOf(t, scSet(3, scImage("registry/app:2")), 2)
	setA.Status.CurrentRevision, setA.Status.UpdateRevision = revB.Name, revB.Name
	f = newSCFixture(t, setA, revA, revB)
	for i := range 3 {
		f.pods.put(scPod(i, revB.Name))
	}
	return f, revA, revB
}

// A rollback (getStatefulSetRevisions): the template equals an older
// revision, which is renumbered to the next number instead of a new
// revision being created; the rollout then proceeds towards it.
func TestRollbackRenumbers(t *testing.T) {
	f, revA, revB := scRollbackFixture(t)
	scExpect(t, "rollback", f.mustSync(), "delete web-2")
	scExpectActions(t, "rollback", f.scRevisionActions(), "update controllerrevisions ns/"+revA.Name)
	if rev, _ := resttest.Get[*api.ControllerRevision](f.api, rest.ControllerRevisions, "ns", revA.Name); rev.Revision != 3 {
		t.Errorf("revision %s is #%d, want #3", revA.Name, rev.Revision)
	}
	if st := f.set().Status; st.UpdateRevision != revA.Name || st.CurrentRevision != revB.Name {
		t.Errorf("status %+v, want updateRevision %s, currentRevision %s", st, revA.Name, revB.Name)
	}
}

// Renumbering retries a conflict (retry.RetryOnConflict with
// DefaultBackoff: 10 ms first, on the cache's copy).
func TestRollbackRenumberConflict(t *testing.T) {
	f, revA, _ := scRollbackFixture(t)
	f.api.Fail(resttest.On("update", "controllerrevisions").Nth(1), resttest.Failure(409, "Conflict", "modified"))
	f.mustSync()
	scExpectActions(t, "rollback", f.scRevisionActions(), "update controllerrevisions ns/"+revA.Name, "update controllerrevisions ns/"+revA.Name)
	if len(f.waits) != 1 || f.waits[0] < 10*time.Millisecond || f.waits[0] > 11*time.Millisecond {
		t.Errorf("waits %v, want one of 10-11 ms", f.waits)
	}
}

// truncateHistory: revisions no one uses — not the current or update
// revision, not a pod's — are deleted oldest first down to
// revisionHistoryLimit.
func TestTruncateHistory(t *testing.T) {
	for _, tc := range []struct {
		name       string
		podOnFirst bool
		want       []int // revision numbers deleted
	}{
		{"unused", false, []int{1, 2}},
		{"a pod on #1", true, []int{2}},
		{"after a failed pod call", false, []int{1, 2}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var revs []*api.ControllerRevision
			for i := 1; i <= 5; i++ {
				revs = append(revs, scRevisionOf(t, scSet(2, scOnDelete, scImage("registry/app:"+string(rune('0'+i)))), int64(i)))
			}
			set := scSet(2, scOnDelete, scHistoryLimit(2), scImage("registry/app:5"))
			set.Status.CurrentRevision, set.Status.UpdateRevision = revs[4].Name, revs[4].Name
			f := newSCFixture(t, set, revs...)
			f.pods.put(scPod(0, revs[4].Name))
			f.pods.put(scPod(1, revs[4].Name))
			if tc.podOnFirst {
				f.pods.put(scPod(0, revs[0].Name))
			}
			if tc.name == "after a failed pod call" {
				f.pods.gone("web-1")
				f.pods.fail["create web-1"] = errors.New("boom")
				if _, err := f.sync(); err == nil {
					t.Fatal("sync succeeded, want the pod error")
				}
			} else {
				f.mustSync()
			}
			var want []string
			for _, n := range tc.want {
				want = append(want, "delete controllerrevisions ns/"+revs[n-1].Name)
			}
			scExpectActions(t, "sync", f.scRevisionActions(), want...)
		})
	}
}

// setMatchesLatestExistingRevision (StatefulSetSemanticRevisionComparison,
// on): a latest revision written before Kubernetes 1.34, whose template
// still has "creationTimestamp": null, is the set's template: no revision
// is created and no pod rolls; the match is cached.
func TestSemanticRevisionComparison(t *testing.T) {
	old := func(set *api.StatefulSet) *api.ControllerRevision {
		rev := scRevisionOf(t, set, 1)
		rev.Data.Raw = bytes.Replace(rev.Data.Raw, []byte(`"metadata":{`), []byte(`"metadata":{"creationTimestamp":null,`), 1)
		zero := int32(0)
		hash := history.Hash(rev.Data.Raw, &zero)
		rev.Name, rev.Labels[history.HashLabel] = history.RevisionName("web", hash), hash
		return rev
	}
	t.Run("same template", func(t *testing.T) {
		// Escaped HTML characters, non-ASCII and numbers re-encode alike.
		set := scSet(2, func(spec map[string]any) {
			pod := spec["template"].(map[string]any)["spec"].(map[string]any)
			pod["terminationGracePeriodSeconds"] = 45
			c := pod["containers"].([]any)[0].(map[string]any)
			c["env"] = []any{map[string]any{"name": "X", "value": "<a&b> café"}}
			c["ports"] = []any{map[string]any{"containerPort": 8080}}
		})
		rev := old(set)
		set.Status.CurrentRevision, set.Status.UpdateRevision = rev.Name, rev.Name
		f := newSCFixture(t, set, rev)
		f.pods.put(scPod(0, rev.Name))
		f.pods.put(scPod(1, rev.Name))
		scExpect(t, "sync", f.mustSync())
		scExpectActions(t, "sync", f.scRevisionActions())
		if st := f.set().Status; st.UpdateRevision != rev.Name {
			t.Errorf("updateRevision %s, want %s", st.UpdateRevision, rev.Name)
		}
		if n := f.ctl.equality.len(); n != 1 {
			t.Errorf("%d cached matches, want 1", n)
		}
		f.mustSync()
		if n := f.ctl.equality.len(); n != 1 {
			t.Errorf("%d cached matches after a second sync, want 1", n)
		}
	})
	t.Run("other template", func(t *testing.T) {
		set := scSet(2, scImage("registry/app:2"))
		rev := old(scSet(2))
		f := newSCFixture(t, set, rev)
		f.mustSync()
		want := scRevisionOf(t, set, 2)
		scExpectActions(t, "sync", f.scRevisionActions(), "create controllerrevisions ns/"+want.Name)
		if n := f.ctl.equality.len(); n != 0 {
			t.Errorf("%d cached matches, want 0", n)
		}
	})
}

// The cache of matches is keyed by set uid, set generation and revision
// resourceVersion, and holds at most its size, least recently used out.
func TestRevisionEqualityCache(t *testing.T) {
	c := newRevisionEqualityCache(2)
	k := func(gen int64) revisionEqualityKey { return revisionEqualityKey{"uid", gen, "7"} }
	c.add(k(1))
	c.add(k(2))
	c.has(k(1))
	c.add(k(3))
	if !c.has(k(1)) || c.has(k(2)) || !c.has(k(3)) || c.len() != 2 {
		t.Errorf("after adding 1, 2, using 1, adding 3 to a cache of 2: 1 %t 2 %t 3 %t len %d; want 1 and 3", c.has(k(1)), c.has(k(2)), c.has(k(3)), c.len())
	}
}

// scRevisionControl is a revisionControl on a fake apiserver holding revs.
func scRevisionControl(t *testing.T, revs ...*api.ControllerRevision) (*revisionControl, *resttest.Server) {
	s := resttest.New(t, resttest.Options{})
	resttest.Add(s, rest.ControllerRevisions, revs...)
	rc := newRevisionControl(s.Client(), informer.ControllerRevisionLister{Lister: resttest.ListerFrom[*api.ControllerRevision](s, rest.ControllerRevisions)},
		zerolog.Nop())
	return rc, s
}

// Adopting and releasing (history's AdoptControllerRevision and
// ReleaseControllerRevision): strategic-merge patches of ownerReferences
// with the revision's uid as precondition; a revision with a controller
// is not adopted; releasing one that is gone is no error.
func TestAdoptRelease(t *testing.T) {
	set := scSet(1)
	orphan := &api.ControllerRevision{ObjectMeta: api.ObjectMeta{Name: "web-orphan", Namespace: "ns", UID: "uid-rev",
		Labels: map[string]string{"app": "web"}}, Data: api.RawExtension{Raw: []byte(`{}`)}, Revision: 1}
	rc, s := scRevisionControl(t, orphan)
	ctx := context.Background()
	adopted, err := rc.adopt(ctx, set, orphan)
	if err != nil {
		t.Fatal(err)
	}
	if ref := adopted.ControllerRef(); ref == nil || ref.UID != "uid-web" {
		t.Errorf("adopted revision's controller %+v, want web", ref)
	}
	if _, err := rc.adopt(ctx, set, adopted); !errors.Is(err, ErrRevisionOwned) {
		t.Errorf("adopting an owned revision: %v, want ErrRevisionOwned", err)
	}
	released, err := rc.release(ctx, set, adopted)
	if err != nil || released == nil || released.ControllerRef() != nil {
		t.Errorf("release: %+v, %v; want a revision without controller", released, err)
	}
	gone := &api.ControllerRevision{ObjectMeta: api.ObjectMeta{Name: "web-gone", Namespace: "ns", UID: "uid-gone"}}
	if r, err := rc.release(ctx, set, gone); r != nil || err != nil {
		t.Errorf("releasing a gone revision: %v, %v; want nil, nil", r, err)
	}
	resttest.Expect(t, s.Actions(),
		`patch controllerrevisions ns/web-orphan strategic {"metadata":{"ownerReferences":[{"apiVersion":"apps/v1","kind":"StatefulSet","name":"web","uid":"uid-web","controller":true,"blockOwnerDeletion":true}],"uid":"uid-rev"}}`,
		`patch controllerrevisions ns/web-orphan strategic {"metadata":{"uid":"uid-rev","ownerReferences":[{"$patch":"delete","uid":"uid-web"}]}}`,
		`patch controllerrevisions ns/web-gone strategic`)
}

// ListRevisions: the revisions matching the selector that the set
// controls or that have no controller.
func TestListRevisions(t *testing.T) {
	yes := true
	rev := func(name string, labels map[string]string, owner string) *api.ControllerRevision {
		r := &api.ControllerRevision{ObjectMeta: api.ObjectMeta{Name: name, Namespace: "ns", UID: "uid-" + name, Labels: labels},
			Data: api.RawExtension{Raw: []byte(`{}`)}, Revision: 1}
		if owner != "" {
			r.OwnerReferences = []api.OwnerReference{{APIVersion: "apps/v1", Kind: "StatefulSet", Name: owner, UID: "uid-" + owner, Controller: &yes}}
		}
		return r
	}
	web := map[string]string{"app": "web"}
	rc, _ := scRevisionControl(t, rev("mine", web, "web"), rev("orphan", web, ""), rev("theirs", web, "other"),
		rev("unselected", map[string]string{"app": "db"}, "web"))
	got, err := rc.list(scSet(1))
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, r := range got {
		names = append(names, r.Name)
	}
	if slices.Sort(names); !slices.Equal(names, []string{"mine", "orphan"}) {
		t.Errorf("listed %v, want mine and orphan", names)
	}
}

// The collision count is read from the status: a set that met a
// collision before names its next revision with its count hashed in.
func TestCollisionCountFromStatus(t *testing.T) {
	set := scSet(1)
	two := int32(2)
	set.Status.CollisionCount = &two
	f := newSCFixture(t, set)
	f.mustSync()
	rev := scRevisionOf(t, set, 1)
	want := history.RevisionName("web", history.Hash(rev.Data.Raw, &two))
	scExpectActions(t, "sync", f.scRevisionActions(), "create controllerrevisions ns/"+want)
	if st := f.set().Status; st.CollisionCount == nil || *st.CollisionCount != 2 {
		t.Errorf("collisionCount %v, want 2", scDeref(st.CollisionCount))
	}
}

// scDeref prints an optional count.
func scDeref(p *int32) any {
	if p == nil {
		return nil
	}
	return *p
}

// AdoptOrphanRevisions adopts each revision and puts the adopted one in
// its place; the first failure ends it.
func TestAdoptOrphanRevisions(t *testing.T) {
	orphan := &api.ControllerRevision{ObjectMeta: api.ObjectMeta{Name: "web-a", Namespace: "ns", UID: "uid-a",
		Labels: map[string]string{"app": "web"}}, Data: api.RawExtension{Raw: []byte(`{}`)}, Revision: 1}
	f := newSCFixture(t, scSet(1), orphan)
	revs := []*api.ControllerRevision{orphan}
	if err := f.ctl.AdoptOrphanRevisions(context.Background(), f.set(), revs); err != nil {
		t.Fatal(err)
	}
	if ref := revs[0].ControllerRef(); ref == nil || ref.UID != "uid-web" {
		t.Errorf("revs[0] controller %+v, want web", ref)
	}
	if err := f.ctl.AdoptOrphanRevisions(context.Background(), f.set(), revs); !errors.Is(err, ErrRevisionOwned) {
		t.Errorf("adopting again: %v, want ErrRevisionOwned", err)
	}
}
