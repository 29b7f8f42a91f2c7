package statefulset

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/rs/zerolog"

	"github.com/kcmlab/kcm/ctrl/history"
	"github.com/kcmlab/kcm/informer"
	"github.com/kcmlab/kcm/internal/testing/resttest"
	"github.com/kcmlab/kcm/kube/api"
	"github.com/kcmlab/kcm/kube/api/decode"
	"github.com/kcmlab/kcm/kube/rest"
)

// The control loop's tests (prefix sc): sample-controller style. The set
// and its ControllerRevisions live in the recording fake apiserver
// (resttest), which answers the revision and status writes; the pods live
// in scPods, a fake podControl that records each call in order and
// simulates the pods (created Pending, deleted at once or left
// terminating). Each sync reads the set and revisions as an informer that
// has caught up would, and the pods scPods holds.

var scT0 = time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)

// scFixture is one StatefulSet ns/web under test.
type scFixture struct {
	t       *testing.T
	api     *resttest.Server
	pods    *scPods
	events  *resttest.Events
	metrics *scMetrics
	ctl     *setControl
	now     time.Time
	waits   []time.Duration // conflict backoffs the control waited
}

// newSCFixture holds set in the apiserver, with revisions.
func newSCFixture(t *testing.T, set *api.StatefulSet, revisions ...*api.ControllerRevision) *scFixture {
	t.Helper()
	f := &scFixture{t: t, api: resttest.New(t, resttest.Options{}), pods: newSCPods(), events: &resttest.Events{},
		metrics: &scMetrics{}, now: scT0}
	resttest.Add(f.api, rest.StatefulSets, set)
	resttest.Add(f.api, rest.ControllerRevisions, revisions...)
	rc := newRevisionControl(f.api.Client(), informer.ControllerRevisionLister{}, zerolog.Nop())
	rc.waitFor = f.wait
	f.ctl = newSetControl(controlConfig{Pods: f.pods, Revisions: rc,
		SetClient: rest.NewResources(f.api.Client(), rest.StatefulSets, decode.Typed[api.StatefulSet]()),
		Recorder:  f.events, Metrics: f.metrics, Log: zerolog.Nop()})
	f.ctl.waitFor = f.wait
	return f
}

func (f *scFixture) wait(_ context.Context, d time.Duration) error {
	f.waits = append(f.waits, d)
	return nil
}

// set is ns/web as the apiserver holds it.
func (f *scFixture) set() *api.StatefulSet {
	f.t.Helper()
	s, ok := resttest.Get[*api.StatefulSet](f.api, rest.StatefulSets, "ns", "web")
	if !ok {
		f.t.Fatal("StatefulSet ns/web is gone")
	}
	return s
}

// revisions are the ControllerRevisions the apiserver holds, sorted.
func (f *scFixture) revisions() []*api.ControllerRevision {
	revs := resttest.List[*api.ControllerRevision](f.api, rest.ControllerRevisions, "ns")
	history.SortControllerRevisions(revs)
	return revs
}

// sync runs UpdateStatefulSet once on the caches caught up with the
// apiserver and the pods scPods holds.
func (f *scFixture) sync() (*api.StatefulSetStatus, error) {
	f.t.Helper()
	f.ctl.revisions.lister = informer.ControllerRevisionLister{Lister: resttest.ListerFrom[*api.ControllerRevision](f.api, rest.ControllerRevisions)}
	sets := informer.StatefulSetLister{Lister: resttest.ListerFrom[*api.StatefulSet](f.api, rest.StatefulSets)}
	f.ctl.setCache = &sets
	return f.ctl.UpdateStatefulSet(context.Background(), f.set(), f.pods.list(), f.now)
}

// mustSync is sync that must succeed; it returns the pod calls it made.
func (f *scFixture) mustSync() []string {
	f.t.Helper()
	f.pods.take()
	if _, err := f.sync(); err != nil {
		f.t.Fatalf("sync: %v", err)
	}
	return f.pods.take()
}

// editSpec changes the set's spec as a user would: edit its JSON, bump
// its generation.
func (f *scFixture) editSpec(edit func(spec map[string]any)) {
	f.t.Helper()
	set := f.set()
	raw, err := set.Original()
	if err != nil {
		f.t.Fatal(err)
	}
	var obj map[string]any
	if err := json.Unmarshal(raw, &obj); err != nil {
		f.t.Fatal(err)
	}
	edit(obj["spec"].(map[string]any))
	meta := obj["metadata"].(map[string]any)
	meta["generation"] = set.Generation + 1
	resttest.Add(f.api, rest.StatefulSets, scDecode[api.StatefulSet](obj))
}

// setImage is editSpec of the container's image.
func (f *scFixture) setImage(image string) {
	f.editSpec(func(spec map[string]any) {
		c := spec["template"].(map[string]any)["spec"].(map[string]any)["containers"].([]any)[0].(map[string]any)
		c["image"] = image
	})
}

// scSet returns StatefulSet ns/web as the apiserver would serve it
// (defaults filled in, decoded from JSON), replicas pods of
// registry/app:1; edit changes its JSON spec before decoding.
func scSet(replicas int, edit ...func(spec map[string]any)) *api.StatefulSet {
	spec := map[string]any{
		"replicas":                             replicas,
		"selector":                             map[string]any{"matchLabels": map[string]any{"app": "web"}},
		"serviceName":                          "web",
		"podManagementPolicy":                  "OrderedReady",
		"updateStrategy":                       map[string]any{"type": "RollingUpdate", "rollingUpdate": map[string]any{"partition": 0}},
		"revisionHistoryLimit":                 10,
		"persistentVolumeClaimRetentionPolicy": map[string]any{"whenDeleted": "Retain", "whenScaled": "Retain"},
		"template": map[string]any{
			"metadata": map[string]any{"labels": map[string]any{"app": "web"}},
			"spec":     map[string]any{"containers": []any{map[string]any{"name": "c", "image": "registry/app:1"}}},
		},
	}
	for _, e := range edit {
		e(spec)
	}
	return scDecode[api.StatefulSet](map[string]any{"apiVersion": "apps/v1", "kind": "StatefulSet",
		"metadata": map[string]any{"name": "web", "namespace": "ns", "uid": "uid-web", "generation": 1,
			"creationTimestamp": scT0.Add(-time.Hour).Format(time.RFC3339)},
		"spec": spec})
}

func scDecode[S any, P api.TypedPtr[S]](obj map[string]any) P {
	b, err := json.Marshal(obj)
	if err != nil {
		panic(err)
	}
	out, err := decode.Typed[S, P]().Decode(b)
	if err != nil {
		panic(err)
	}
	return out
}

// Spec edits.

func scParallel(spec map[string]any) { spec["podManagementPolicy"] = "Parallel" }

func scOnDelete(spec map[string]any) { spec["updateStrategy"] = map[string]any{"type": "OnDelete"} }

func scPartition(p int) func(map[string]any) {
	return func(spec map[string]any) {
		spec["updateStrategy"].(map[string]any)["rollingUpdate"].(map[string]any)["partition"] = p
	}
}

func scMaxUnavailable(v any) func(map[string]any) {
	return func(spec map[string]any) {
		spec["updateStrategy"].(map[string]any)["rollingUpdate"].(map[string]any)["maxUnavailable"] = v
	}
}

func scStart(start int) func(map[string]any) {
	return func(spec map[string]any) { spec["ordinals"] = map[string]any{"start": start} }
}

func scMinReady(s int) func(map[string]any) {
	return func(spec map[string]any) { spec["minReadySeconds"] = s }
}

func scHistoryLimit(n int) func(map[string]any) {
	return func(spec map[string]any) { spec["revisionHistoryLimit"] = n }
}

// scPods is the fake podControl: the pods of ns/web, by name, and the
// calls made, in order ("create web-0", "delete web-2", "update web-1",
// "claims web-0" for CreateMissingPersistentVolumeClaims, "retention
// web-3" for UpdatePodClaimForRetentionPolicy). Safe for concurrent use.
type scPods struct {
	mu    sync.Mutex
	pods  map[string]*api.Pod
	calls []string
	// graceful: a deleted pod stays, terminating, until gone() removes it.
	graceful bool
	// fail answers a call ("create web-1") with an error.
	fail map[string]error
	// stale are the pods whose claims PodClaimIsStale reports stale;
	// unretained those whose claims do not match the retention policy.
	stale, unretained map[string]bool
}

func newSCPods() *scPods {
	return &scPods{pods: map[string]*api.Pod{}, fail: map[string]error{}, stale: map[string]bool{}, unretained: map[string]bool{}}
}

func (p *scPods) record(call string) error {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.calls = append(p.calls, call)
	return p.fail[call]
}

// take returns and forgets the calls so far.
func (p *scPods) take() []string {
	p.mu.Lock()
	defer p.mu.Unlock()
	out := p.calls
	p.calls = nil
	return out
}

// list returns the pods, by name.
func (p *scPods) list() []*api.Pod {
	p.mu.Lock()
	defer p.mu.Unlock()
	out := make([]*api.Pod, 0, len(p.pods))
	for _, pod := range p.pods {
		out = append(out, pod)
	}
	slices.SortFunc(out, func(a, b *api.Pod) int { return strings.Compare(a.Name, b.Name) })
	return out
}

func (p *scPods) get(name string) *api.Pod {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.pods[name]
}

// put stores pod as the apiserver now holds it.
func (p *scPods) put(pod *api.Pod) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.pods[pod.Name] = pod
}

// edit changes the stored pod name.
func (p *scPods) edit(name string, fn func(*api.Pod)) {
	p.mu.Lock()
	defer p.mu.Unlock()
	pod := p.pods[name]
	cp, err := api.DeepCopy(pod)
	if err != nil {
		panic(err)
	}
	fn(cp)
	p.pods[name] = cp
}

// gone removes a terminating pod, as the kubelet and apiserver finally do.
func (p *scPods) gone(name string) {
	p.mu.Lock()
	defer p.mu.Unlock()
	delete(p.pods, name)
}

func (p *scPods) CreateStatefulPod(_ context.Context, _ *api.StatefulSet, pod *api.Pod) error {
	if err := p.record("create " + pod.Name); err != nil {
		return err
	}
	cp, err := api.DeepCopy(pod)
	if err != nil {
		return err
	}
	cp.UID = "uid-" + pod.Name
	cp.Status.Phase = api.PodPending
	p.mu.Lock()
	defer p.mu.Unlock()
	if _, ok := p.pods[pod.Name]; ok {
		return fmt.Errorf("pod %s exists", pod.Name)
	}
	p.pods[pod.Name] = cp
	return nil
}

func (p *scPods) UpdateStatefulPod(_ context.Context, _ *api.StatefulSet, pod *api.Pod) error {
	if err := p.record("update " + pod.Name); err != nil {
		return err
	}
	return nil
}

func (p *scPods) DeleteStatefulPod(_ context.Context, _ *api.StatefulSet, pod *api.Pod) error {
	if err := p.record("delete " + pod.Name); err != nil {
		return err
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.graceful {
		cp, err := api.DeepCopy(p.pods[pod.Name])
		if err != nil {
			return err
		}
		cp.DeletionTimestamp = &api.Time{Time: scT0}
		p.pods[pod.Name] = cp
		return nil
	}
	delete(p.pods, pod.Name)
	return nil
}

func (p *scPods) ClaimsMatchRetentionPolicy(_ context.Context, _ *api.StatefulSet, pod *api.Pod) (bool, error) {
	p.mu.Lock()
	defer p.mu.Unlock()
	return !p.unretained[pod.Name], nil
}

func (p *scPods) UpdatePodClaimForRetentionPolicy(_ context.Context, _ *api.StatefulSet, pod *api.Pod) error {
	return p.record("retention " + pod.Name)
}

func (p *scPods) PodClaimIsStale(_ *api.StatefulSet, pod *api.Pod) (bool, error) {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.stale[pod.Name], nil
}

func (p *scPods) CreateMissingPersistentVolumeClaims(_ context.Context, _ *api.StatefulSet, pod *api.Pod) error {
	return p.record("claims " + pod.Name)
}

// Pod states.

// running makes pod name Running and Ready since at.
func (p *scPods) running(name string, at time.Time) {
	p.edit(name, func(pod *api.Pod) {
		pod.Status.Phase = api.PodRunning
		pod.Status.Conditions = []api.PodCondition{{Type: api.PodReady, Status: api.ConditionTrue, LastTransitionTime: api.Time{Time: at}}}
	})
}

// runningNotReady makes pod name Running without Ready.
func (p *scPods) runningNotReady(name string) {
	p.edit(name, func(pod *api.Pod) {
		pod.Status.Phase = api.PodRunning
		pod.Status.Conditions = []api.PodCondition{{Type: api.PodReady, Status: api.ConditionFalse}}
	})
}

func (p *scPods) phase(name string, ph api.PodPhase) {
	p.edit(name, func(pod *api.Pod) { pod.Status.Phase = ph })
}

// scPod is pod web-<ordinal> of revision rev, Running and Ready since an
// hour before scT0, as the set's pod would be.
func scPod(ordinal int, rev string) *api.Pod {
	name := fmt.Sprintf("web-%d", ordinal)
	return &api.Pod{ObjectMeta: api.ObjectMeta{Name: name, Namespace: "ns", UID: "uid-" + name,
		Labels: map[string]string{"app": "web", "statefulset.kubernetes.io/pod-name": name,
			"apps.kubernetes.io/pod-index": fmt.Sprint(ordinal), "controller-revision-hash": rev}},
		Spec: api.PodSpec{Hostname: name, Subdomain: "web"},
		Status: api.PodStatus{Phase: api.PodRunning, Conditions: []api.PodCondition{{Type: api.PodReady, Status: api.ConditionTrue,
			LastTransitionTime: api.Time{Time: scT0.Add(-time.Hour)}}}}}
}

// runAll makes every pod Running and Ready since at.
func (f *scFixture) runAll(at time.Time) {
	for _, p := range f.pods.list() {
		if p.DeletionTimestamp == nil && p.Status.Phase != api.PodRunning {
			f.pods.running(p.Name, at)
		}
	}
}

// scMetrics records the gauges set last.
type scMetrics struct {
	mu                          sync.Mutex
	maxUnavailable, unavailable map[string]int // "ns/name policy" -> value
}

func (m *scMetrics) SetMaxUnavailable(ns, name, policy string, v int) {
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.maxUnavailable == nil {
		m.maxUnavailable = map[string]int{}
	}
	m.maxUnavailable[ns+"/"+name+" "+policy] = v
}

func (m *scMetrics) SetUnavailableReplicas(ns, name, policy string, v int) {
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.unavailable == nil {
		m.unavailable = map[string]int{}
	}
	m.unavailable[ns+"/"+name+" "+policy] = v
}

func (m *scMetrics) Forget(string, string) {}

// scRevisionOf is the revision of set's template now, numbered n, as
// kube-controller-manager would have created it (collision count 0).
func scRevisionOf(t *testing.T, set *api.StatefulSet, n int64) *api.ControllerRevision {
	t.Helper()
	zero := int32(0)
	rev, err := history.NewStatefulSetRevision(set, n, &zero)
	if err != nil {
		t.Fatal(err)
	}
	rev.UID = "uid-" + rev.Name
	rev.CreationTimestamp = api.Time{Time: scT0.Add(time.Duration(n-100) * time.Minute)}
	return rev
}

// scImage is the set with its container's image changed.
func scImage(image string) func(map[string]any) {
	return func(spec map[string]any) {
		c := spec["template"].(map[string]any)["spec"].(map[string]any)["containers"].([]any)[0].(map[string]any)
		c["image"] = image
	}
}
