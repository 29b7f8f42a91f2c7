package replicaset

import (
	"encoding/json"
	"errors"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/kcmlab/kcm/ctrl"
	"github.com/kcmlab/kcm/ctrl/controllerref"
	"github.com/kcmlab/kcm/internal/testing/resttest"
	"github.com/kcmlab/kcm/kube/api"
	"github.com/kcmlab/kcm/kube/rest"
)

const key = "ns/web"

func repeat(s string, n int) []string {
	out := make([]string, n)
	for i := range out {
		out[i] = s
	}
	return out
}

// manageReplicas, creation side: slow-start batches of 1, 2, 4; the batch
// with a failure is finished, later ones are skipped, and the expectations
// are lowered by the creations that will never be observed.
func TestSyncSlowStartStopsAtTheFailingBatch(t *testing.T) {
	f := newFixture(t)
	f.rss = []*api.ReplicaSet{newRS("web", 10, "")}
	f.api.Fail(resttest.On("create", "pods").Nth(4), resttest.Failure(422, "Invalid", `Pod "web-" is invalid: spec.containers[0].image: Required value`))
	_, err := f.sync(key)
	if err == nil || err.Error() != `Pod "web-" is invalid: spec.containers[0].image: Required value` {
		t.Fatalf("err %v", err)
	}
	if !rest.IsInvalid(err) {
		t.Fatalf("err %v does not wrap the apiserver's error", err)
	}
	if n := f.count("create pods"); n != 7 {
		t.Fatalf("%d creates, want 1+2+4 = 7", n)
	}
	if add, del, _ := f.c.expectations.GetExpectations(key); add != 6 || del != 0 {
		t.Fatalf("expectations add %d del %d, want the 6 created pods", add, del)
	}
	ev := f.events.Lines()
	if got := len(slices.DeleteFunc(slices.Clone(ev), func(s string) bool { return !strings.HasPrefix(s, "Normal SuccessfulCreate Created pod: web-") })); got != 6 {
		t.Fatalf("events %q: want 6 SuccessfulCreate", ev)
	}
	want := `Warning FailedCreate Error creating: Pod "web-" is invalid: spec.containers[0].image: Required value`
	if !slices.Contains(ev, want) {
		t.Fatalf("events %q lack %q", ev, want)
	}
	st := f.lastStatus()
	c := getCondition(st, api.ReplicaSetReplicaFailure)
	if c == nil || c.Status != api.ConditionTrue || c.Reason != ReasonFailedCreate || c.Message != err.Error() ||
		!c.LastTransitionTime.Equal(t0) {
		t.Fatalf("condition %+v", c)
	}
}

// Every batch succeeding: 1+2+4+3 for 10, each pod stamped from the
// template (Kubernetes' GetPodFromTemplate) with its raw spec, so a field
// kcm does not model reaches the pod.
func TestSyncCreatesPodsFromTheTemplate(t *testing.T) {
	f := newFixture(t)
	rs := newRS("web", 10, "")
	rs.Spec.Template.Annotations = map[string]string{"a": "b"}
	rs.Spec.Template.Finalizers = []string{"example.com/f"}
	f.rss = []*api.ReplicaSet{reread(rs, `"shareProcessNamespace":true,"affinity":{"nodeAffinity":{"x":1}}`)}
	res, err := f.sync(key)
	if err != nil || res != (ctrl.Result{}) {
		t.Fatalf("result %+v err %v", res, err)
	}
	if got := f.count("create pods"); got != 10 {
		t.Fatalf("%d creates", got)
	}
	var pod struct {
		APIVersion, Kind string
		Metadata         map[string]any  `json:"metadata"`
		Spec             json.RawMessage `json:"spec"`
	}
	if err := json.Unmarshal(f.body("create pods", 0), &pod); err != nil {
		t.Fatal(err)
	}
	meta, _ := json.Marshal(pod.Metadata)
	wantMeta := `{"annotations":{"a":"b"},"finalizers":["example.com/f"],"generateName":"web-","labels":{"app":"web","tier":"front"},"namespace":"ns",` +
		`"ownerReferences":[{"apiVersion":"apps/v1","blockOwnerDeletion":true,"controller":true,"kind":"ReplicaSet","name":"web","uid":"uid-web"}]}`
	if pod.APIVersion != "v1" || pod.Kind != "Pod" || string(meta) != wantMeta {
		t.Fatalf("pod %s %s metadata\n%s\nwant\n%s", pod.APIVersion, pod.Kind, meta, wantMeta)
	}
	wantSpec := `{"shareProcessNamespace":true,"affinity":{"nodeAffinity":{"x":1}},"containers":[{"name":"c","image":"nginx","resources":{}}]}`
	if string(pod.Spec) != wantSpec {
		t.Fatalf("spec\n%s\nwant\n%s", pod.Spec, wantSpec)
	}
	if add, _, _ := f.c.expectations.GetExpectations(key); add != 10 {
		t.Fatalf("expecting %d creations, want 10", add)
	}
	if ref := f.events.List()[0].Ref; ref.Kind != "ReplicaSet" || ref.APIVersion != "apps/v1" || ref.Name != "web" || ref.Namespace != "ns" || ref.UID != "uid-web" {
		t.Fatalf("event about %+v", ref)
	}
}

// Expectations: a second sync before the informer shows the new pods
// creates nothing; once they are observed (or the expectations expire)
// the ReplicaSet is managed again.
func TestExpectationsHoldBackASecondCreate(t *testing.T) {
	f := newFixture(t)
	f.rss = []*api.ReplicaSet{newRS("web", 3, "")}
	if _, err := f.sync(key); err != nil {
		t.Fatal(err)
	}
	f.take()
	if _, err := f.sync(key); err != nil {
		t.Fatal(err)
	}
	if got := f.count("create pods"); got != 0 {
		t.Fatalf("%d creates while 3 are expected", got)
	}
	for range 3 {
		f.c.expectations.CreationObserved(key)
	}
	if _, err := f.sync(key); err != nil {
		t.Fatal(err)
	}
	if got := f.count("create pods"); got != 3 {
		t.Fatalf("%d creates after the expectations were met, want 3 (the cache is still empty)", got)
	}
	f.take()
	f.clock.Step(ctrl.ExpectationsTimeout + time.Second)
	if _, err := f.sync(key); err != nil {
		t.Fatal(err)
	}
	if got := f.count("create pods"); got != 3 {
		t.Fatalf("%d creates after the expectations expired, want 3", got)
	}
}

// At most burstReplicas writes per sync, in slow-start batches capped by
// what is left (1, 2, 2 for 5).
func TestBurstReplicasBoundsOneSync(t *testing.T) {
	f := newFixture(t)
	f.rss = []*api.ReplicaSet{newRS("web", 8, "")}
	c := f.controller()
	c.burstReplicas = 5
	if _, err := f.sync(key); err != nil {
		t.Fatal(err)
	}
	if got := f.count("create pods"); got != 5 {
		t.Fatalf("%d creates, want 5", got)
	}
	f2 := newFixture(t)
	rs := newRS("web", 1, "")
	f2.rss = []*api.ReplicaSet{rs}
	f2.pods = ownedPods(rs, 8)
	f2.controller().burstReplicas = 5
	if _, err := f2.sync(key); err != nil {
		t.Fatal(err)
	}
	if got := len(f2.take()) - 1; got != 5 { // less the status update
		t.Fatalf("%d deletes, want 5", got)
	}
	if NewController(c.rsLister, c.podLister, f.api.Client(), Config{}).burstReplicas != 500 {
		t.Fatal("default burst is not 500")
	}
}

// manageReplicas, deletion side: the surplus is deleted in Kubernetes'
// order (here: unscheduled, then pending, then not ready, then the newest
// ready), and exactly those deletions are expected.
func TestSyncDeletesSurplusInRankOrder(t *testing.T) {
	f := newFixture(t)
	rs := newRS("web", 2, "")
	f.rss = []*api.ReplicaSet{rs}
	old := t0.Add(-time.Hour)
	f.pods = []*api.Pod{
		newPod("ready-old", ownedBy(rs), onNode("n1"), ready(old), created(old)),
		newPod("ready-new", ownedBy(rs), onNode("n1"), ready(t0.Add(-time.Minute)), created(old)),
		newPod("unscheduled", ownedBy(rs), phase(api.PodPending)),
		newPod("pending", ownedBy(rs), onNode("n1"), phase(api.PodPending)),
		newPod("not-ready", ownedBy(rs), onNode("n1")),
	}
	if _, err := f.sync(key); err != nil {
		t.Fatal(err)
	}
	if !resttest.ExpectUnordered(t, f.take(), "delete pods ns/not-ready", "delete pods ns/pending", "delete pods ns/unscheduled",
		"update replicasets/status ns/web") {
		t.FailNow()
	}
	if _, del, _ := f.c.expectations.GetExpectations(key); del != 3 {
		t.Fatalf("expecting %d deletions, want 3", del)
	}
	uids := f.c.expectations.GetUIDs(key)
	slices.Sort(uids)
	if !slices.Equal(uids, []string{"ns/not-ready", "ns/pending", "ns/unscheduled"}) {
		t.Fatalf("expected deletions %q", uids)
	}
	ev := f.events.Lines()
	slices.Sort(ev)
	if !slices.Equal(ev, []string{"Normal SuccessfulDelete Deleted pod: not-ready", "Normal SuccessfulDelete Deleted pod: pending", "Normal SuccessfulDelete Deleted pod: unscheduled"}) {
		t.Fatalf("events %q", ev)
	}
	// Scaling to 1 from the two ready pods: the one ready for less time goes.
	f2 := newFixture(t)
	rs1 := newRS("web", 1, "")
	f2.rss = []*api.ReplicaSet{rs1}
	f2.pods = []*api.Pod{f.pods[0], f.pods[1]}
	for _, p := range f2.pods {
		p.OwnerReferences = nil
		ownedBy(rs1)(p)
	}
	if _, err := f2.sync(key); err != nil {
		t.Fatal(err)
	}
	if got := resttest.Lines(f2.take()); got[0] != "delete pods ns/ready-new" {
		t.Fatalf("actions %q: want ready-new deleted", got)
	}
}

// A pod already gone (404) counts as observed and is no error; any other
// failure lowers the expectation too, records FailedDelete and sets the
// ReplicaFailure condition with Kubernetes' message.
func TestSyncDeleteFailures(t *testing.T) {
	f := newFixture(t)
	rs := newRS("web", 0, "")
	f.rss = []*api.ReplicaSet{rs}
	f.pods = ownedPods(rs, 3)
	f.api.Fail(resttest.On("delete", "pods").Named("ns/web-p0"), resttest.Failure(404, "NotFound", `pods "web-p0" not found`))
	f.api.Fail(resttest.On("delete", "pods").Named("ns/web-p1"), resttest.Failure(500, "InternalError", "etcd is sad"))
	_, err := f.sync(key)
	if err == nil || err.Error() != "unable to delete pods: etcd is sad" {
		t.Fatalf("err %v", err)
	}
	if _, del, _ := f.c.expectations.GetExpectations(key); del != 1 {
		t.Fatalf("expecting %d deletions, want 1 (web-p2's)", del)
	}
	if uids := f.c.expectations.GetUIDs(key); !slices.Equal(uids, []string{"ns/web-p2"}) {
		t.Fatalf("still expected %q", uids)
	}
	ev := f.events.Lines()
	slices.Sort(ev)
	if !slices.Equal(ev, []string{"Normal SuccessfulDelete Deleted pod: web-p2", "Warning FailedDelete Error deleting: etcd is sad"}) {
		t.Fatalf("events %q", ev)
	}
	c := getCondition(f.lastStatus(), api.ReplicaSetReplicaFailure)
	if c == nil || c.Reason != ReasonFailedDelete || c.Message != "unable to delete pods: etcd is sad" {
		t.Fatalf("condition %+v", c)
	}
	// Only the 404: no error.
	f2 := newFixture(t)
	f2.rss = []*api.ReplicaSet{newRS("web", 2, "")}
	f2.pods = ownedPods(f2.rss[0], 3)
	for _, p := range []string{"ns/web-p0", "ns/web-p1", "ns/web-p2"} {
		f2.api.Fail(resttest.On("delete", "pods").Named(p), resttest.Failure(404, "NotFound", "gone"))
	}
	if _, err := f2.sync(key); err != nil {
		t.Fatalf("a pod already gone is an error: %v", err)
	}
	if _, del, _ := f2.c.expectations.GetExpectations(key); del != 0 || len(f2.events.Lines()) != 0 {
		t.Fatalf("expecting %d deletions, events %q", del, f2.events.Lines())
	}
}

// Claiming (controllerref): a matching orphan is adopted after a fresh
// read of the ReplicaSet; an owned pod that stopped matching is released;
// another controller's pod and inactive pods are left alone. Only claimed
// active pods count.
func TestSyncAdoptsAndReleases(t *testing.T) {
	f := newFixture(t)
	rs := newRS("web", 2, "")
	other := newRS("other", 1, "")
	f.rss = []*api.ReplicaSet{rs, other}
	f.pods = []*api.Pod{
		newPod("orphan"),
		newPod("mine-relabelled", ownedBy(rs), withLabels(map[string]string{"app": "db"})),
		newPod("theirs", ownedBy(other)),
		newPod("orphan-done", phase(api.PodSucceeded)),
		newPod("orphan-deleting", deleting()),
	}
	if _, err := f.sync(key); err != nil {
		t.Fatal(err)
	}
	// Adoption re-reads the ReplicaSet first; then the create for the
	// missing replica (2 wanted, only the orphan claimed); then status.
	if !resttest.Expect(t, f.api.Actions(), "patch pods ns/mine-relabelled", "get replicasets ns/web", "patch pods ns/orphan",
		"create pods ns/web-*", "update replicasets/status ns/web") {
		t.FailNow()
	}
	if release := f.body("patch pods ns/mine-relabelled", 0); !strings.Contains(string(release), `"$patch":"delete"`) {
		t.Fatalf("release patch %s", release)
	}
	if st := f.lastStatus(); st.Replicas != 1 {
		t.Fatalf("status replicas %d, want 1 (the adopted orphan)", st.Replicas)
	}
	// A ReplicaSet being deleted since the cache saw it adopts nothing,
	// and the sync fails so that it is retried (RecheckDeletionTimestamp).
	f2 := newFixture(t)
	f2.rss = []*api.ReplicaSet{newRS("web", 1, "")}
	f2.pods = []*api.Pod{newPod("orphan")}
	fresh := newRS("web", 1, "")
	fresh.DeletionTimestamp = &api.Time{Time: t0}
	f2.getRS = fresh
	if _, err := f2.sync(key); !errors.Is(err, controllerref.ErrCannotAdopt) {
		t.Fatalf("err %v, want ErrCannotAdopt", err)
	}
	if !resttest.Expect(t, f2.take(), "get replicasets ns/web") {
		t.FailNow()
	}
	// One that is gone altogether: the 404 of the owner's fresh read fails
	// the sync (Kubernetes' RecheckDeletionTimestamp formats the read
	// error with %v, so it is not mistaken for a dependent that is gone);
	// the retry finds the ReplicaSet gone from the cache.
	f3 := newFixture(t)
	f3.rss = []*api.ReplicaSet{newRS("web", 0, "")}
	f3.pods = []*api.Pod{newPod("orphan")}
	f3.api.Fail(resttest.On("get", "replicasets"), resttest.Failure(404, "NotFound", "gone"))
	if _, err := f3.sync(key); !errors.Is(err, controllerref.ErrCannotAdopt) {
		t.Fatalf("err %v, want ErrCannotAdopt", err)
	}
	if !resttest.Expect(t, f3.take(), "get replicasets ns/web") {
		t.FailNow()
	}
}

// Inactive pods — terminal, or being deleted — are not replicas
// (Kubernetes' FilterActivePods): they are replaced, not counted.
func TestSyncIgnoresInactivePods(t *testing.T) {
	f := newFixture(t)
	rs := newRS("web", 3, "")
	f.rss = []*api.ReplicaSet{rs}
	f.pods = []*api.Pod{
		newPod("running", ownedBy(rs)),
		newPod("succeeded", ownedBy(rs), phase(api.PodSucceeded)),
		newPod("failed", ownedBy(rs), phase(api.PodFailed)),
		newPod("deleting", ownedBy(rs), deleting()),
	}
	if _, err := f.sync(key); err != nil {
		t.Fatal(err)
	}
	if got := f.count("create pods"); got != 2 {
		t.Fatalf("%d creates, want 2", got)
	}
	if st := f.lastStatus(); st.Replicas != 1 || st.TerminatingReplicas == nil || *st.TerminatingReplicas != 1 {
		t.Fatalf("status %+v: want 1 replica and terminatingReplicas 1 (the deleting pod; gate on since 1.35)", st)
	}
}

func TestSyncSkips(t *testing.T) {
	t.Run("ReplicaSet gone: expectations forgotten, nothing written", func(t *testing.T) {
		f := newFixture(t)
		f.controller().expectations.ExpectCreations(key, 3)
		if _, err := f.sync(key); err != nil {
			t.Fatal(err)
		}
		if _, _, ok := f.c.expectations.GetExpectations(key); ok || len(f.take()) != 0 {
			t.Fatal("expectations kept or requests made")
		}
	})
	t.Run("invalid selector: logged, no retry", func(t *testing.T) {
		f := newFixture(t)
		rs := newRS("web", 3, "")
		rs.Spec.Selector = &api.LabelSelector{MatchExpressions: []api.LabelSelectorRequirement{{Key: "app", Operator: "Bogus"}}}
		f.rss = []*api.ReplicaSet{rs}
		if _, err := f.sync(key); err != nil || len(f.take()) != 0 {
			t.Fatalf("err %v, requests made", err)
		}
		rs.Spec.Selector = nil
		f2 := newFixture(t)
		f2.rss = []*api.ReplicaSet{rs}
		if _, err := f2.sync(key); err != nil || len(f2.take()) != 0 {
			t.Fatalf("nil selector: err %v, requests made", err)
		}
	})
	t.Run("malformed key", func(t *testing.T) {
		f := newFixture(t)
		if _, err := f.sync("web"); err != nil || len(f.take()) != 0 {
			t.Fatal("a key without namespace was acted on")
		}
	})
	t.Run("being deleted: no pods written, status still is", func(t *testing.T) {
		f := newFixture(t)
		rs := newRS("web", 3, "")
		rs.DeletionTimestamp = &api.Time{Time: t0}
		rs.Status.Replicas = 5
		f.rss = []*api.ReplicaSet{rs}
		if _, err := f.sync(key); err != nil {
			t.Fatal(err)
		}
		if !resttest.Expect(t, f.take(), "update replicasets/status ns/web") {
			t.FailNow()
		}
	})
	t.Run("namespace terminating: no event, no error", func(t *testing.T) {
		f := newFixture(t)
		f.rss = []*api.ReplicaSet{newRS("web", 2, "")}
		st := resttest.Failure(403, "Forbidden", "unable to create new content in namespace ns because it is being terminated")
		st.Details = &rest.StatusDetails{Causes: []rest.StatusCause{{Type: "NamespaceTerminating"}}}
		f.api.Fail(resttest.On("create", "pods"), st)
		if _, err := f.sync(key); err != nil || len(f.events.Lines()) != 0 {
			t.Fatalf("err %v events %q", err, f.events.Lines())
		}
	})
	t.Run("template without labels", func(t *testing.T) {
		f := newFixture(t)
		rs := newRS("web", 2, "")
		rs.Spec.Template.Labels = nil
		f.rss = []*api.ReplicaSet{rs}
		_, err := f.sync(key)
		if !errors.Is(err, ErrNoLabels) || f.count("create pods") != 0 {
			t.Fatalf("err %v", err)
		}
		if add, _, _ := f.c.expectations.GetExpectations(key); add != 0 {
			t.Fatalf("expecting %d creations", add)
		}
	})
	t.Run("forbidden: the sync fails with the apiserver's reason", func(t *testing.T) {
		f := newFixture(t)
		f.rss = []*api.ReplicaSet{newRS("web", 2, "")}
		f.api.Fail(resttest.On("create", "pods"), resttest.Failure(403, "Forbidden", `pods is forbidden: User "kcm" cannot create resource "pods"`))
		_, err := f.sync(key)
		if !rest.IsForbidden(err) || f.count("create pods") != 1 {
			t.Fatalf("err %v", err)
		}
		var me *manageError
		if !errors.As(err, &me) || !strings.Contains(me.err.Error(), "creating a pod for ReplicaSet ns/web") {
			t.Fatalf("err %v does not say what failed", err)
		}
	})
}

func TestDescriptor(t *testing.T) {
	d := Descriptor()
	if d.Name != "replicaset-controller" || !slices.Equal(d.Aliases, []string{"replicaset"}) || d.DisabledByDefault ||
		d.Concurrency == nil || d.Concurrency.Name != "concurrent-replicaset-syncs" || d.Concurrency.Default != 5 ||
		d.Concurrency.Usage == "" || d.Constructor == nil {
		t.Fatalf("descriptor %+v", d)
	}
}

// getIndirectlyRelatedPods: pods are ranked by how many active pods of
// every ReplicaSet with the same controller share their node, each pod
// counted once; ReplicaSets of other controllers, invalid selectors and
// inactive pods do not count.
func TestSyncRanksByColocationWithSiblings(t *testing.T) {
	f := newFixture(t)
	t1 := true
	deploy := api.OwnerReference{APIVersion: "apps/v1", Kind: "Deployment", Name: "d", UID: "uid-d", Controller: &t1}
	withOwner := func(rs *api.ReplicaSet, sel map[string]string) *api.ReplicaSet {
		rs.OwnerReferences = []api.OwnerReference{deploy}
		if sel != nil {
			rs.Spec.Selector = &api.LabelSelector{MatchLabels: sel}
		}
		return reread(rs, "")
	}
	web := withOwner(newRS("web", 1, ""), nil)
	old1 := withOwner(newRS("old1", 0, ""), map[string]string{"app": "old"})
	old2 := withOwner(newRS("old2", 0, ""), map[string]string{"app": "old"})
	bad := withOwner(newRS("bad", 0, ""), nil)
	bad.Spec.Selector = &api.LabelSelector{MatchExpressions: []api.LabelSelectorRequirement{{Key: "app", Operator: "In"}}}
	stranger := newRS("stranger", 0, "")
	stranger.Spec.Selector = &api.LabelSelector{MatchLabels: map[string]string{"app": "stranger"}}
	f.rss = []*api.ReplicaSet{web, old1, old2, bad, stranger}
	oldLabels := withLabels(map[string]string{"app": "old"})
	f.pods = []*api.Pod{
		newPod("a", ownedBy(web), onNode("n1"), created(t0.Add(-time.Minute))), // newer
		newPod("b", ownedBy(web), onNode("n2"), created(t0.Add(-time.Hour))),
		newPod("z", oldLabels, ownedBy(old1), onNode("n1")), // matched by old1 and old2: counts once
		newPod("x", oldLabels, ownedBy(old1), onNode("n2")),
		newPod("y", oldLabels, ownedBy(old1), onNode("n2")),
		newPod("x-done", oldLabels, ownedBy(old1), onNode("n1"), phase(api.PodSucceeded)),
		newPod("s1", withLabels(map[string]string{"app": "stranger"}), onNode("n1")),
		newPod("s2", withLabels(map[string]string{"app": "stranger"}), onNode("n1")),
	}
	f.getRS = web
	if _, err := f.sync(key); err != nil {
		t.Fatal(err)
	}
	if n := f.count("delete pods ns/b"); n != 1 {
		t.Fatalf("actions %q: want b deleted (3 related pods on n2, 2 on n1)", resttest.Lines(f.take()))
	}
}

func TestNew(t *testing.T) {
	f := newFixture(t)
	cc, err := ctrl.CreateControllerContext(f.api.Client(), ctrl.Config{})
	if err != nil {
		t.Fatal(err)
	}
	c, err := Descriptor().Constructor(t.Context(), cc, Name)
	if err != nil || c == nil || c.Name() != Name {
		t.Fatalf("controller %v err %v", c, err)
	}
	c.(*ctrl.Loop).Queue().ShutDown()
	cc.InformerFactory.Shutdown()
}

func TestErrorHelpers(t *testing.T) {
	plain := errors.New("dial tcp: refused")
	if apiMessage(plain) != "dial tcp: refused" || rest.IsNamespaceTerminating(plain) {
		t.Fatal("plain error")
	}
	se := rest.StatusErrorFrom("POST", "/p", rest.Status{Code: 500})
	if apiMessage(se) != se.Error() {
		t.Fatalf("status without message: %q", apiMessage(se))
	}
	other := rest.StatusErrorFrom("POST", "/p", rest.Status{Code: 403, Message: "no",
		Details: &rest.StatusDetails{Causes: []rest.StatusCause{{Type: "Other"}, {Type: "NamespaceTerminating"}}}})
	if !rest.IsNamespaceTerminating(other) || apiMessage(other) != "no" {
		t.Fatal("terminating cause not found among several")
	}
	if rest.IsNamespaceTerminating(rest.StatusErrorFrom("POST", "/p", rest.Status{Code: 403, Details: &rest.StatusDetails{Causes: []rest.StatusCause{{Type: "Other"}}}})) {
		t.Fatal("another cause taken for NamespaceTerminating")
	}
	if desiredReplicas(&api.ReplicaSet{}) != 1 {
		t.Fatal("unset replicas is not 1")
	}
	ctrl.NopRecorder{}.Eventf(api.ObjectReference{}, "", "", "")
}
