//go:build !nocluster

package deployment

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/kcmlab/kcm/informer"
	"github.com/kcmlab/kcm/internal/testing/ctrltest"
	"github.com/kcmlab/kcm/kube/api"
	"github.com/kcmlab/kcm/kube/api/decode"
	"github.com/kcmlab/kcm/kube/rest"
	"github.com/kcmlab/kcm/processor"
)

// rsStatusFaker stands in for the ReplicaSet controller and the kubelet:
// it watches the namespace's ReplicaSets and sets each one's status to
// its spec (every replica ready and available) through the status
// subresource. It also records, per Deployment, the largest sum of
// spec.replicas and the largest number of ReplicaSets with replicas seen
// at any event, so that a test can check the rollout's bounds at every
// observed step.
type rsStatusFaker struct {
	mu        sync.Mutex
	state     map[string]*api.ReplicaSet
	maxTotal  map[string]int32
	maxActive map[string]int
}

func (f *rsStatusFaker) run(ctx context.Context, t *testing.T, rss *rest.Resources[*api.ReplicaSet]) {
	w, err := rss.Watch(ctx, rest.WatchOptions{ListOptions: rest.ListOptions{TimeoutSeconds: 290}})
	if err != nil {
		t.Errorf("watch: %v", err)
		return
	}
	defer w.Close()
	for {
		ev, err := w.Next()
		if err != nil {
			return
		}
		rs := ev.Object
		f.observe(ev.Type, rs)
		if ev.Type == rest.Deleted {
			continue
		}
		n := specReplicas(rs)
		if rs.Status.Replicas == n && rs.Status.AvailableReplicas == n && rs.Status.ObservedGeneration >= rs.Generation {
			continue
		}
		cp, err := api.DeepCopy(rs)
		if err != nil {
			t.Errorf("copy: %v", err)
			return
		}
		cp.Status.Replicas, cp.Status.ReadyReplicas, cp.Status.AvailableReplicas, cp.Status.FullyLabeledReplicas = n, n, n, n
		cp.Status.ObservedGeneration = rs.Generation
		if _, err := rss.UpdateStatus(ctx, cp); err != nil && !rest.IsConflict(err) && !rest.IsNotFound(err) && ctx.Err() == nil {
			t.Errorf("status of %s: %v", rs.Name, err)
		}
	}
}

func (f *rsStatusFaker) observe(typ rest.EventType, rs *api.ReplicaSet) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if typ == rest.Deleted {
		delete(f.state, rs.Name)
	} else {
		f.state[rs.Name] = rs
	}
	totals, active := map[string]int32{}, map[string]int{}
	for _, r := range f.state {
		if ref := r.ControllerRef(); ref != nil {
			totals[ref.Name] += specReplicas(r)
			if specReplicas(r) > 0 {
				active[ref.Name]++
			}
		}
	}
	for d, n := range totals {
		f.maxTotal[d] = max(f.maxTotal[d], n)
		f.maxActive[d] = max(f.maxActive[d], active[d])
	}
}

func (f *rsStatusFaker) reset(d string) {
	f.mu.Lock()
	defer f.mu.Unlock()
	delete(f.maxTotal, d)
	delete(f.maxActive, d)
}

func (f *rsStatusFaker) bounds(d string) (int32, int) {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.maxTotal[d], f.maxActive[d]
}

// waitFor watches the Deployment until cond holds.
func waitFor(ctx context.Context, t *testing.T, ds *rest.Resources[*api.Deployment], name, what string, cond func(*api.Deployment) bool) *api.Deployment {
	t.Helper()
	d, err := ds.Get(ctx, name)
	if err != nil {
		t.Fatal(err)
	}
	if cond(d) {
		return d
	}
	w, err := ds.Watch(ctx, rest.WatchOptions{ListOptions: rest.ListOptions{ResourceVersion: d.ResourceVersion, TimeoutSeconds: 120,
		FieldSelector: "metadata.name=" + name}})
	if err != nil {
		t.Fatal(err)
	}
	defer w.Close()
	for {
		ev, err := w.Next()
		if err != nil {
			t.Fatalf("waiting for %s %s: %v (last status %+v)", name, what, err, d.Status)
		}
		if ev.Type == rest.Bookmark {
			continue
		}
		d = ev.Object
		if cond(d) {
			return d
		}
	}
}

// complete: the controller has seen the current generation and every
// replica is updated and available.
func complete(replicas int32) func(*api.Deployment) bool {
	return func(d *api.Deployment) bool {
		st := d.Status
		c := api.GetDeploymentCondition(&st, api.DeploymentProgressing)
		return st.ObservedGeneration >= d.Generation && st.Replicas == replicas && st.UpdatedReplicas == replicas &&
			st.AvailableReplicas == replicas && (replicas == 0 || c != nil && c.Reason == ReasonNewReplicaSetAvailable)
	}
}

// TestOnRealAPIServer runs the controller as the manager will (built by
// its descriptor, factory started, loop run) against kube-apiserver, with
// rsStatusFaker standing in for the ReplicaSet controller, and walks a
// Deployment through creation, a rolling update, scaling, a rollback,
// pause and resume; then a Recreate Deployment; then the takeover of a
// ReplicaSet made as kube-controller-manager makes them.
func TestOnRealAPIServer(t *testing.T) {
	ns, base, ctx := onRealAPIServer(t, 4*time.Minute)

	run := ctrltest.Start(t, ctx, base, Descriptor(), 2)
	runCtx := run.Ctx
	rss := rest.NewResources(base, rest.ReplicaSets, decode.Typed[api.ReplicaSet]()).InNamespace(ns)
	faker := &rsStatusFaker{state: map[string]*api.ReplicaSet{}, maxTotal: map[string]int32{}, maxActive: map[string]int{}}
	fakerDone := make(chan struct{})
	go func() { defer close(fakerDone); faker.run(runCtx, t, rss) }()
	defer func() {
		run.Stop(t)
		<-fakerDone
	}()

	ds := rest.NewResources(base, rest.Deployments, decode.Typed[api.Deployment]()).InNamespace(ns)
	raw := rest.NewResources(base, rest.Deployments, decode.Raw()).InNamespace(ns)
	mkDeployment := func(name, strategy string, replicas int) {
		t.Helper()
		strat := `{"type":"Recreate"}`
		if strategy == "RollingUpdate" {
			strat = `{"type":"RollingUpdate","rollingUpdate":{"maxSurge":1,"maxUnavailable":0}}`
		}
		body := fmt.Sprintf(`{"apiVersion":"apps/v1","kind":"Deployment","metadata":{"name":%q,"annotations":{"team":"a"}},
			"spec":{"replicas":%d,"selector":{"matchLabels":{"app":%q}},"strategy":%s,
			"template":{"metadata":{"labels":{"app":%q}},"spec":{"dnsConfig":{"options":[{"name":"ndots","value":"2"}]},
			"containers":[{"name":"c","image":"nginx:1"}]}}}}`, name, replicas, name, strat, name)
		obj, err := api.DecodeRawObject([]byte(body))
		if err != nil {
			t.Fatal(err)
		}
		if _, err := raw.Create(ctx, obj); err != nil {
			t.Fatal(err)
		}
	}
	// update is a read-modify-write retried on conflicts: the controller
	// writes the Deployment's status concurrently, as in any cluster.
	update := func(name string, fn func(d *api.Deployment)) {
		t.Helper()
		for try := 0; ; try++ {
			d, err := ds.Get(ctx, name)
			if err != nil {
				t.Fatal(err)
			}
			fn(d)
			_, err = ds.Update(ctx, d)
			if err == nil {
				return
			}
			if !rest.IsConflict(err) || try == 20 {
				t.Fatal(err)
			}
		}
	}
	setImage := func(image string) func(*api.Deployment) {
		return func(d *api.Deployment) {
			d.Spec.Template.Spec.Containers = []api.Container{{Name: "c", Image: image}}
		}
	}
	owned := func(name string) []*api.ReplicaSet {
		t.Helper()
		list, err := rss.List(ctx, rest.ListOptions{})
		if err != nil {
			t.Fatal(err)
		}
		var out []*api.ReplicaSet
		for _, rs := range list.Items {
			if ref := rs.ControllerRef(); ref != nil && ref.Name == name {
				out = append(out, rs)
			}
		}
		return out
	}

	// 1. Creation: one ReplicaSet as kube-controller-manager makes it.
	mkDeployment("web", "RollingUpdate", 3)
	d := waitFor(ctx, t, ds, "web", "to be complete", complete(3))
	list := owned("web")
	if len(list) != 1 {
		t.Fatalf("%d ReplicaSets", len(list))
	}
	first := list[0]
	hash := first.Labels[PodTemplateHashLabel]
	if hash == "" || first.Name != "web-"+hash || first.Spec.Selector.MatchLabels[PodTemplateHashLabel] != hash ||
		first.Spec.Template.Labels[PodTemplateHashLabel] != hash {
		t.Fatalf("ReplicaSet %s labels %v selector %v", first.Name, first.Labels, first.Spec.Selector)
	}
	if a := first.Annotations; a[RevisionAnnotation] != "1" || a[DesiredReplicasAnnotation] != "3" || a[MaxReplicasAnnotation] != "4" || a["team"] != "a" {
		t.Fatalf("annotations %v", a)
	}
	if ref := first.ControllerRef(); ref == nil || ref.UID != d.UID || ref.Kind != "Deployment" || ref.APIVersion != "apps/v1" {
		t.Fatalf("ownerReferences %+v", first.OwnerReferences)
	}
	// The ReplicaSet as JSON (decode.Raw reads JSON whatever the
	// client's content type; one read as protobuf has no JSON).
	firstJSON, err := rest.NewResources(base, rest.ReplicaSets, decode.Raw()).InNamespace(ns).Get(ctx, first.Name)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(firstJSON.Raw()), `"dnsConfig":{"options":[{"name":"ndots","value":"2"}]}`) {
		t.Fatalf("unmodelled template field lost: %s", firstJSON.Raw())
	}
	if d.Annotations[RevisionAnnotation] != "1" {
		t.Fatalf("deployment annotations %v", d.Annotations)
	}
	if a := api.GetDeploymentCondition(&d.Status, api.DeploymentAvailable); a == nil || a.Status != api.ConditionTrue || a.Reason != ReasonMinimumReplicasAvailable {
		t.Fatalf("Available %+v", a)
	}

	// 2. Rolling update within maxSurge 1 (total ≤ 4) at every observed step.
	faker.reset("web")
	update("web", setImage("nginx:2"))
	d = waitFor(ctx, t, ds, "web", "to roll out nginx:2", func(d *api.Deployment) bool {
		return complete(3)(d) && d.Annotations[RevisionAnnotation] == "2"
	})
	if total, _ := faker.bounds("web"); total > 4 {
		t.Fatalf("rolling update reached %d replicas, above 3+maxSurge", total)
	}
	list = owned("web")
	if len(list) != 2 {
		t.Fatalf("%d ReplicaSets after the update", len(list))
	}
	for _, rs := range list {
		if rs.Name == first.Name && (specReplicas(rs) != 0 || rs.Annotations[RevisionAnnotation] != "1") {
			t.Fatalf("old ReplicaSet %d replicas, revision %s", specReplicas(rs), rs.Annotations[RevisionAnnotation])
		}
	}

	// 3. Scale to 5, to 0, back to 3.
	for _, n := range []int32{5, 0, 3} {
		update("web", func(d *api.Deployment) { d.Spec.Replicas = &n })
		waitFor(ctx, t, ds, "web", fmt.Sprintf("to scale to %d", n), complete(n))
	}

	// 4. Rollback by restoring the old template: the first ReplicaSet is
	// reused with revision 3; nothing is created.
	update("web", setImage("nginx:1"))
	waitFor(ctx, t, ds, "web", "to roll back", func(d *api.Deployment) bool {
		return complete(3)(d) && d.Annotations[RevisionAnnotation] == "3"
	})
	list = owned("web")
	if len(list) != 2 {
		t.Fatalf("%d ReplicaSets after the rollback", len(list))
	}
	for _, rs := range list {
		if rs.Name == first.Name && (specReplicas(rs) != 3 || rs.Annotations[RevisionAnnotation] != "3" || rs.Annotations[RevisionHistoryAnnotation] != "1") {
			t.Fatalf("rolled-back ReplicaSet: %d replicas, annotations %v", specReplicas(rs), rs.Annotations)
		}
	}

	// 5. Pause: a template change creates nothing; resume rolls it out.
	update("web", func(d *api.Deployment) { d.Spec.Paused = true })
	waitFor(ctx, t, ds, "web", "to be paused", func(d *api.Deployment) bool {
		c := api.GetDeploymentCondition(&d.Status, api.DeploymentProgressing)
		return c != nil && c.Reason == ReasonDeploymentPaused && c.Status == api.ConditionUnknown
	})
	update("web", setImage("nginx:3"))
	waitFor(ctx, t, ds, "web", "to observe the paused change", func(d *api.Deployment) bool { return d.Status.ObservedGeneration >= d.Generation })
	if n := len(owned("web")); n != 2 {
		t.Fatalf("paused Deployment has %d ReplicaSets", n)
	}
	update("web", func(d *api.Deployment) { d.Spec.Paused = false })
	waitFor(ctx, t, ds, "web", "to roll out after resuming", func(d *api.Deployment) bool {
		return complete(3)(d) && d.Annotations[RevisionAnnotation] == "4"
	})
	if n := len(owned("web")); n != 3 {
		t.Fatalf("%d ReplicaSets after resuming", n)
	}

	// 6. Recreate: old and new never have replicas at once.
	mkDeployment("rec", "Recreate", 2)
	waitFor(ctx, t, ds, "rec", "to be complete", complete(2))
	faker.reset("rec")
	update("rec", setImage("nginx:2"))
	waitFor(ctx, t, ds, "rec", "to recreate", func(d *api.Deployment) bool {
		return complete(2)(d) && d.Annotations[RevisionAnnotation] == "2"
	})
	if _, active := faker.bounds("rec"); active > 1 {
		t.Fatalf("Recreate ran %d ReplicaSets at once", active)
	}

	// 7. Takeover: an orphan ReplicaSet made as kube-controller-manager
	// makes them (its own hash value) is adopted as the current one.
	rsBody := `{"apiVersion":"apps/v1","kind":"ReplicaSet","metadata":{"name":"take-5d8f9c7b6","labels":{"app":"take","pod-template-hash":"5d8f9c7b6"},
		"annotations":{"deployment.kubernetes.io/revision":"1","deployment.kubernetes.io/desired-replicas":"2","deployment.kubernetes.io/max-replicas":"3"}},
		"spec":{"replicas":2,"selector":{"matchLabels":{"app":"take","pod-template-hash":"5d8f9c7b6"}},
		"template":{"metadata":{"labels":{"app":"take","pod-template-hash":"5d8f9c7b6"}},"spec":{"dnsConfig":{"options":[{"name":"ndots","value":"2"}]},"containers":[{"name":"c","image":"nginx:1"}]}}}}`
	var m map[string]any
	_ = json.Unmarshal([]byte(rsBody), &m)
	obj, err := api.NewRawObject(m)
	if err != nil {
		t.Fatal(err)
	}
	// The orphan must be in the controller's ReplicaSet cache before the
	// Deployment exists. The two arrive on separate watches; if the
	// Deployment's came first, its sync would find no ReplicaSet and
	// create one — as kube-controller-manager would — and the takeover
	// would not be tested. A handler on the controller's own (shared)
	// informer runs only after its store holds the object.
	cached := make(chan struct{})
	var cachedOnce sync.Once
	if _, err := informer.For[api.ReplicaSet](run.Context.InformerFactory, rest.ReplicaSets).AddEventHandler(
		processor.HandlerFuncs[*api.ReplicaSet]{AddFunc: func(rs *api.ReplicaSet, _ bool) {
			if rs.Namespace == ns && rs.Name == "take-5d8f9c7b6" {
				cachedOnce.Do(func() { close(cached) })
			}
		}}, processor.HandlerOptions{Name: "takeover-test"}); err != nil {
		t.Fatal(err)
	}
	if _, err := rest.NewResources(base, rest.ReplicaSets, decode.Raw()).InNamespace(ns).Create(ctx, obj); err != nil {
		t.Fatal(err)
	}
	select {
	case <-cached:
	case <-ctx.Done():
		t.Fatal("the orphan ReplicaSet never reached the controller's cache")
	}
	mkDeployment("take", "RollingUpdate", 2)
	d = waitFor(ctx, t, ds, "take", "to take over", complete(2))
	list = owned("take")
	if len(list) != 1 || list[0].Name != "take-5d8f9c7b6" || list[0].ControllerRef().UID != d.UID {
		names := []string{}
		for _, rs := range list {
			names = append(names, rs.Name)
		}
		t.Fatalf("after takeover: ReplicaSets %v", names)
	}
	if d.Annotations[RevisionAnnotation] != "1" {
		t.Fatalf("takeover revision %v", d.Annotations)
	}
}
