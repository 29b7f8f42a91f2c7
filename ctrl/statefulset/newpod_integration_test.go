//go:build !nocluster

package statefulset

import (
	"context"
	"encoding/json"
	"regexp"
	"slices"
	"testing"
	"time"

	"github.com/rs/zerolog"

	"github.com/kcmlab/kcm/informer"
	"github.com/kcmlab/kcm/internal/testing/resttest"
	"github.com/kcmlab/kcm/kube/api"
	"github.com/kcmlab/kcm/kube/api/decode"
	"github.com/kcmlab/kcm/kube/rest"
	"github.com/kcmlab/kcm/testenv"
)

// The differential test of the pod and claim a StatefulSet makes:
// kube-controller-manager v1.37.2 (testenv's reference binary) makes
// web-0 and data-web-0 of a set in one namespace; kcm's statefulPodControl
// makes them, from the same set read back, in another. The objects the
// apiserver stored — admission and defaulting done — must be the same
// member for member, except what differs by nature (uid,
// resourceVersion, timestamps, managedFields, namespace, the service
// account token volume's random suffix); and the events must have the
// same reasons and texts. The set's claims are deleted with it
// (whenDeleted Delete) and with their pod on a scale down (whenScaled
// Delete): once the claim is in the cache, the set becomes its
// controller, on the pod's next sync (Pending: CreateMissingPersistentVolumeClaims).
func TestPodAndClaimAsKubeControllerManagerMakesThem(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	cl := testenv.Shared(t)
	c, err := rest.NewClient(cl.ManagerConfig())
	if err != nil {
		t.Fatal(err)
	}
	theirNS, ourNS := cl.Namespace(t), cl.Namespace(t)
	rawSets := rest.NewResources(c, rest.StatefulSets, decode.Raw())
	sets := rest.NewResources(c, rest.StatefulSets, decode.Typed[api.StatefulSet]())
	pods := rest.NewResources(c, rest.Pods, decode.Raw())
	claims := rest.NewResources(c, rest.PersistentVolumeClaims, decode.Raw())
	events := rest.NewResources(c, rest.Events, decode.Typed[api.CoreEvent]())

	// pcSetJSON as a user would write it: one replica, no finalizer on
	// the pods (nothing would remove it when the namespace goes), and a
	// scheduler no one runs, so that the pods stay as made even where
	// other tests of the binary left kube-scheduler and nodes running.
	body := pcSet(t, func(m map[string]any) {
		meta := obj(m, "metadata")
		for _, k := range []string{"namespace", "uid", "resourceVersion", "generation"} {
			delete(meta, k)
		}
		delete(m, "status")
		obj(m, "spec")["replicas"] = 1
		delete(obj(m, "spec", "template", "metadata"), "finalizers")
		obj(m, "spec", "template", "spec")["schedulerName"] = "no-such-scheduler"
		withPolicy(del, del)(m)
	})
	raw, _ := body.Original()
	setObj, err := decode.Raw().Decode(raw)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := rawSets.InNamespace(theirNS).Create(ctx, setObj); err != nil {
		t.Fatalf("create the set: %v", err)
	}

	kcm, err := cl.StartKubeControllerManager(ctx, testenv.KCMOptions{Controllers: []string{"statefulset"}})
	if err != nil {
		t.Fatal(err)
	}
	waitForObject(ctx, t, pods.InNamespace(theirNS), "web-0", func(*api.RawObject) bool { return true })
	waitForObject(ctx, t, claims.InNamespace(theirNS), "data-web-0", func(o *api.RawObject) bool { return len(o.OwnerReferences) > 0 })
	theirEvents := waitForEvents(ctx, t, events.InNamespace(theirNS), 2)
	if err := kcm.Stop(); err != nil {
		t.Error(err)
	}
	set, err := sets.InNamespace(theirNS).Get(ctx, "web")
	if err != nil || set.Status.UpdateRevision == "" {
		t.Fatalf("the set as kube-controller-manager left it: %v, %+v", err, set.Status)
	}

	// kcm makes them from the same set, read back, moved to our namespace
	// (same name and uid: same owner reference).
	setJSON, _ := set.Original()
	ours := pcDecode[api.StatefulSet](t, setJSON, func(m map[string]any) { obj(m, "metadata")["namespace"] = ourNS })
	recorded := &resttest.Events{}
	pc := newPodControl(c, informer.PodLister{Lister: resttest.Lister[*api.Pod]("pods")},
		informer.PersistentVolumeClaimLister{Lister: resttest.Lister[*api.PersistentVolumeClaim]("persistentvolumeclaims")},
		recorded, zerolog.Nop())
	pod, err := newVersionedStatefulSetPod(ours, ours, set.Status.CurrentRevision, set.Status.UpdateRevision, 0)
	if err != nil {
		t.Fatal(err)
	}
	if err := pc.CreateStatefulPod(ctx, ours, pod); err != nil {
		t.Fatalf("kcm's CreateStatefulPod: %v", err)
	}
	// Each read the same way (a list's items carry no apiVersion and kind).
	theirPod, err := pods.InNamespace(theirNS).Get(ctx, "web-0")
	if err != nil {
		t.Fatal(err)
	}
	theirClaim, err := claims.InNamespace(theirNS).Get(ctx, "data-web-0")
	if err != nil {
		t.Fatal(err)
	}
	// The pod's next sync, with the claim in the cache.
	cachedPods, err := rest.NewResources(c, rest.Pods, decode.Typed[api.Pod]()).InNamespace(ourNS).List(ctx, rest.ListOptions{})
	if err != nil || len(cachedPods.Items) != 1 {
		t.Fatalf("our pods: %v", err)
	}
	cachedClaims, err := rest.NewResources(c, rest.PersistentVolumeClaims, decode.Typed[api.PersistentVolumeClaim]()).InNamespace(ourNS).List(ctx, rest.ListOptions{})
	if err != nil {
		t.Fatal(err)
	}
	pc = newPodControl(c, informer.PodLister{Lister: resttest.Lister("pods", cachedPods.Items...)},
		informer.PersistentVolumeClaimLister{Lister: resttest.Lister("persistentvolumeclaims", cachedClaims.Items...)},
		recorded, zerolog.Nop())
	if !isPending(cachedPods.Items[0]) {
		t.Fatalf("our pod is %s, want Pending", cachedPods.Items[0].Status.Phase)
	}
	if err := pc.CreateMissingPersistentVolumeClaims(ctx, ours, cachedPods.Items[0]); err != nil {
		t.Fatal(err)
	}
	ourPod, err := pods.InNamespace(ourNS).Get(ctx, "web-0")
	if err != nil {
		t.Fatal(err)
	}
	ourClaim, err := claims.InNamespace(ourNS).Get(ctx, "data-web-0")
	if err != nil {
		t.Fatal(err)
	}
	jsonEqual(t, "pod (-kube-controller-manager +kcm)", comparableJSON(t, ourPod), string(comparableJSON(t, theirPod)))
	jsonEqual(t, "claim (-kube-controller-manager +kcm)", comparableJSON(t, ourClaim), string(comparableJSON(t, theirClaim)))

	var want []string
	for _, ev := range theirEvents {
		want = append(want, ev.Type+" "+ev.Reason+" "+ev.Message)
	}
	slices.Sort(want)
	got := recorded.Lines()
	slices.Sort(got)
	if !slices.Equal(got, want) {
		t.Errorf("events differ (-kube-controller-manager +kcm):\n%s", resttest.Diff(want, got))
	}
	t.Logf("kube-controller-manager's events: %q", want)
}

// tokenVolume is the service account admission's projected volume, named
// with five random characters.
var tokenVolume = regexp.MustCompile(`^kube-api-access-[a-z0-9]{5}$`)

// comparableJSON is o's JSON without what differs between two objects made
// alike: identity, versions, timestamps, managedFields, namespace,
// status, and the token volume's suffix.
func comparableJSON(t *testing.T, o *api.RawObject) []byte {
	t.Helper()
	m, err := o.Map()
	if err != nil {
		t.Fatal(err)
	}
	meta := obj(m, "metadata")
	for _, k := range []string{"uid", "resourceVersion", "creationTimestamp", "managedFields", "namespace"} {
		delete(meta, k)
	}
	delete(m, "status")
	spec := obj(m, "spec")
	rename := func(x any) {
		if v, ok := x.(map[string]any); ok {
			if n, _ := v["name"].(string); tokenVolume.MatchString(n) {
				v["name"] = "kube-api-access"
			}
		}
	}
	if vols, ok := spec["volumes"].([]any); ok {
		for _, v := range vols {
			rename(v)
		}
	}
	if cs, ok := spec["containers"].([]any); ok {
		for _, c := range cs {
			if mounts, ok := c.(map[string]any)["volumeMounts"].([]any); ok {
				for _, mt := range mounts {
					rename(mt)
				}
			}
		}
	}
	out, err := json.Marshal(m)
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// waitForObject watches the object name until it exists and cond holds.
func waitForObject[T api.Object](ctx context.Context, t *testing.T, r *rest.Resources[T], name string, cond func(T) bool) T {
	t.Helper()
	list, err := r.List(ctx, rest.ListOptions{FieldSelector: "metadata.name=" + name})
	if err != nil {
		t.Fatal(err)
	}
	if len(list.Items) == 1 && cond(list.Items[0]) {
		return list.Items[0]
	}
	w, err := r.Watch(ctx, rest.WatchOptions{ListOptions: rest.ListOptions{ResourceVersion: list.ResourceVersion, TimeoutSeconds: 120,
		FieldSelector: "metadata.name=" + name}})
	if err != nil {
		t.Fatal(err)
	}
	defer w.Close()
	for {
		ev, err := w.Next()
		if err != nil {
			t.Fatalf("waiting for %s: %v", name, err)
		}
		if ev.Type != rest.Bookmark && ev.Type != rest.Deleted && cond(ev.Object) {
			return ev.Object
		}
	}
}

// waitForEvents watches the namespace's events until n about StatefulSet
// web exist (others, a scheduler's, are left out).
func waitForEvents(ctx context.Context, t *testing.T, r *rest.Resources[*api.CoreEvent], n int) []*api.CoreEvent {
	t.Helper()
	list, err := r.List(ctx, rest.ListOptions{})
	if err != nil {
		t.Fatal(err)
	}
	var seen []*api.CoreEvent
	for _, ev := range list.Items {
		if aboutTheSet(ev) {
			seen = append(seen, ev)
		}
	}
	if len(seen) >= n {
		return seen
	}
	w, err := r.Watch(ctx, rest.WatchOptions{ListOptions: rest.ListOptions{ResourceVersion: list.ResourceVersion, TimeoutSeconds: 120}})
	if err != nil {
		t.Fatal(err)
	}
	defer w.Close()
	for len(seen) < n {
		ev, err := w.Next()
		if err != nil {
			t.Fatalf("waiting for %d events (have %d): %v", n, len(seen), err)
		}
		if ev.Type == rest.Added && aboutTheSet(ev.Object) {
			seen = append(seen, ev.Object)
		}
	}
	return seen
}

func aboutTheSet(ev *api.CoreEvent) bool {
	return ev.InvolvedObject.Kind == "StatefulSet" && ev.InvolvedObject.Name == "web"
}
