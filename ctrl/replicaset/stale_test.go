package replicaset

// The stale-controller check (Kubernetes' KEP-5647, the
// StaleControllerConsistencyReplicaSet gate, on by default since 1.36),
// in the sample-controller shape: listers loaded by the test, a fake
// apiserver answering the writes with resourceVersions, Sync called
// directly. Self-contained: it shares no helper with the other tests.

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/testutil"
	"github.com/rs/zerolog"

	"github.com/kcmlab/kcm/ctrl"
	"github.com/kcmlab/kcm/informer"
	"github.com/kcmlab/kcm/kube/api"
	"github.com/kcmlab/kcm/kube/rest"
	"github.com/kcmlab/kcm/store"
)

// staleWorld is a controller over two stores whose resourceVersions the
// test moves, and a fake apiserver that gives every write the next
// resourceVersion from 1000 on.
type staleWorld struct {
	t        *testing.T
	rsStore  *store.Store[*api.ReplicaSet]
	podStore *store.Store[*api.Pod]
	reg      *prometheus.Registry
	c        *Controller

	mu      sync.Mutex
	rv      int
	writes  []string
	patched map[string]*api.Pod // what PATCH pods/<name> answers
}

func newStaleWorld(t *testing.T, cfg Config, rs *api.ReplicaSet, pods ...*api.Pod) *staleWorld {
	w := &staleWorld{t: t, rv: 999, reg: prometheus.NewRegistry(), patched: map[string]*api.Pod{}}
	srv := httptest.NewServer(http.HandlerFunc(func(rw http.ResponseWriter, r *http.Request) { w.serve(rw, r, rs) }))
	t.Cleanup(srv.Close)
	client, err := rest.NewClient(&rest.Config{Host: srv.URL, QPS: -1}, rest.WithRetryPolicy(rest.RetryPolicy{MaxAttempts: 1}))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(client.CloseIdleConnections)
	w.rsStore = store.New(store.Options[*api.ReplicaSet]{Indexers: store.BuiltinIndexers[*api.ReplicaSet]()})
	w.rsStore.Replace([]*api.ReplicaSet{rs})
	w.podStore = store.New(store.Options[*api.Pod]{Indexers: store.BuiltinIndexers[*api.Pod]()})
	w.podStore.Replace(pods)
	w.caches("900", "900")
	m, err := ctrl.NewMetrics(w.reg)
	if err != nil {
		t.Fatal(err)
	}
	if cfg.StaleSkips, err = m.StaleSyncSkips("replicaset_controller", "ReplicaSet"); err != nil {
		t.Fatal(err)
	}
	cfg.Logger = zerolog.Nop()
	w.c = NewController(informer.ReplicaSetLister{Lister: informer.NewLister(w.rsStore.View(), "replicasets")},
		informer.PodLister{Lister: informer.NewLister(w.podStore.View(), "pods")}, client, cfg)
	return w
}

// caches sets the resourceVersions the ReplicaSet and pod caches are at.
func (w *staleWorld) caches(rsRV, podRV string) {
	w.rsStore.Bookmark(rsRV)
	w.podStore.Bookmark(podRV)
}

func (w *staleWorld) nextRV() string {
	w.rv++
	return fmt.Sprint(w.rv)
}

// serve answers pod creates, pod patches, ReplicaSet reads and status
// updates, recording each write as "VERB path@rv".
func (w *staleWorld) serve(rw http.ResponseWriter, r *http.Request, rs *api.ReplicaSet) {
	body, _ := io.ReadAll(r.Body)
	_, rel, _ := strings.Cut(r.URL.Path, "/namespaces/ns/")
	w.mu.Lock()
	defer w.mu.Unlock()
	var out any
	switch {
	case r.Method == http.MethodPost && rel == "pods":
		var pod map[string]any
		_ = json.Unmarshal(body, &pod)
		meta := pod["metadata"].(map[string]any)
		meta["name"], meta["resourceVersion"] = fmt.Sprintf("%s%d", meta["generateName"], w.rv+1), w.nextRV()
		out = pod
		rw.WriteHeader(http.StatusCreated)
	case r.Method == http.MethodPatch && strings.HasPrefix(rel, "pods/"):
		pod := *w.patched[strings.TrimPrefix(rel, "pods/")]
		pod.ResourceVersion = w.nextRV()
		out = &pod
	case r.Method == http.MethodGet && rel == "replicasets/"+rs.Name:
		out = rs
	case r.Method == http.MethodPut && rel == "replicasets/"+rs.Name+"/status":
		var got map[string]any
		_ = json.Unmarshal(body, &got)
		got["metadata"].(map[string]any)["resourceVersion"] = w.nextRV()
		out = got
	default:
		rw.WriteHeader(http.StatusNotFound)
		_, _ = rw.Write([]byte(`{"kind":"Status","apiVersion":"v1","status":"Failure","code":404,"reason":"NotFound"}`))
		return
	}
	if r.Method != http.MethodGet {
		w.writes = append(w.writes, fmt.Sprintf("%s %s@%d", r.Method, rel, w.rv))
	}
	_ = json.NewEncoder(rw).Encode(out)
}

// takeWrites returns the writes since the last call.
func (w *staleWorld) takeWrites() []string {
	w.mu.Lock()
	defer w.mu.Unlock()
	out := w.writes
	w.writes = nil
	return out
}

func (w *staleWorld) sync(key string) ctrl.Result {
	w.t.Helper()
	res, err := w.c.Sync(context.Background(), key)
	if err != nil {
		w.t.Fatalf("Sync(%s): %v", key, err)
	}
	return res
}

// skips is replicaset_controller_stale_sync_skips_total{group, resource}.
func (w *staleWorld) skips(group, resource string) float64 {
	w.t.Helper()
	fams, err := w.reg.Gather()
	if err != nil {
		w.t.Fatal(err)
	}
	for _, f := range fams {
		if f.GetName() != "replicaset_controller_stale_sync_skips_total" {
			continue
		}
		for _, m := range f.GetMetric() {
			labels := map[string]string{}
			for _, l := range m.GetLabel() {
				labels[l.GetName()] = l.GetValue()
			}
			if labels["group"] == group && labels["resource"] == resource {
				return m.GetCounter().GetValue()
			}
		}
	}
	return 0
}

func staleRS(name string, replicas int32) *api.ReplicaSet {
	return &api.ReplicaSet{
		TypeMeta:   api.TypeMeta{APIVersion: "apps/v1", Kind: "ReplicaSet"},
		ObjectMeta: api.ObjectMeta{Name: name, Namespace: "ns", UID: "uid-" + name, ResourceVersion: "800", Generation: 1},
		Spec: api.ReplicaSetSpec{
			Replicas: &replicas,
			Selector: &api.LabelSelector{MatchLabels: map[string]string{"app": name}},
			Template: api.PodTemplateSpec{
				ObjectMeta: api.ObjectMeta{Labels: map[string]string{"app": name}},
				Spec:       api.PodSpec{Containers: []api.Container{{Name: "c", Image: "nginx"}}},
			},
		},
	}
}

func stalePod(name string, labels map[string]string, owner *api.ReplicaSet) *api.Pod {
	p := &api.Pod{ObjectMeta: api.ObjectMeta{Name: name, Namespace: "ns", UID: "uid-" + name, Labels: labels,
		ResourceVersion: "850"}, Status: api.PodStatus{Phase: api.PodRunning}}
	if owner != nil {
		yes := true
		p.OwnerReferences = []api.OwnerReference{{APIVersion: "apps/v1", Kind: "ReplicaSet", Name: owner.Name,
			UID: owner.UID, Controller: &yes, BlockOwnerDeletion: &yes}}
	}
	return p
}

// The ReplicaSet creates its pods (resourceVersions 1000, 1001) and writes
// its status (1002). Until the pod cache reaches 1001 its next sync is
// skipped: no request, Requeue (the loop's backoff, without counting a
// failure), one count per skip under the cache that was behind. Once both
// caches have caught up the sync runs and the writes are forgotten.
func TestSyncSkippedWhileThePodCacheIsOlderThanItsCreates(t *testing.T) {
	rs := staleRS("web", 2)
	w := newStaleWorld(t, Config{}, rs)
	if res := w.sync("ns/web"); res.Requeue {
		t.Fatal("the first sync was skipped")
	}
	if got := strings.Join(w.takeWrites(), ", "); got != "POST pods@1000, POST pods@1001, PUT replicasets/web/status@1002" {
		t.Fatalf("writes: %s", got)
	}
	w.caches("1002", "1000") // the status update seen, the second pod not yet
	for i := 1; i <= 2; i++ {
		if res := w.sync("ns/web"); !res.Requeue || res.RequeueAfter != 0 {
			t.Fatalf("sync %d with the pod cache at 1000: %+v, want Requeue", i, res)
		}
		if got := w.takeWrites(); len(got) != 0 {
			t.Fatalf("a skipped sync wrote %q", got)
		}
		if n := w.skips("", "pods"); n != float64(i) {
			t.Fatalf("stale_sync_skips_total{pods} = %v, want %d", n, i)
		}
	}
	w.caches("1002", "1001")
	if res := w.sync("ns/web"); res.Requeue {
		t.Fatal("skipped once the caches caught up")
	}
	if n := w.skips("apps", "replicasets"); n != 0 {
		t.Fatalf("stale_sync_skips_total{replicasets} = %v, want 0", n)
	}
}

// A status write holds the ReplicaSet back until the ReplicaSet cache has
// seen it, and is counted under replicasets.
func TestSyncSkippedWhileTheReplicaSetCacheIsOlderThanItsStatus(t *testing.T) {
	rs := staleRS("web", 1)
	w := newStaleWorld(t, Config{}, rs, stalePod("web-a", map[string]string{"app": "web"}, rs))
	w.sync("ns/web")
	if got := strings.Join(w.takeWrites(), ", "); got != "PUT replicasets/web/status@1000" {
		t.Fatalf("writes: %s", got)
	}
	w.caches("999", "1000")
	if res := w.sync("ns/web"); !res.Requeue {
		t.Fatal("not skipped with the ReplicaSet cache at 999")
	}
	if n := w.skips("apps", "replicasets"); n != 1 {
		t.Fatalf("stale_sync_skips_total{apps, replicasets} = %v, want 1", n)
	}
	w.caches("1000", "1000")
	if res := w.sync("ns/web"); res.Requeue {
		t.Fatal("skipped with the ReplicaSet cache at its write")
	}
}

// Adopting an orphan is a write of the adopting ReplicaSet's (the patched
// pod's controller); releasing a pod is nobody's (it has no controller
// afterwards). Other ReplicaSets are never held back by this one's writes.
func TestAdoptionIsAWriteReleaseIsNot(t *testing.T) {
	rs := staleRS("web", 1)
	orphan := stalePod("web-a", map[string]string{"app": "web"}, nil)
	w := newStaleWorld(t, Config{}, rs, orphan)
	w.patched["web-a"] = stalePod("web-a", map[string]string{"app": "web"}, rs)
	w.sync("ns/web")
	if got := strings.Join(w.takeWrites(), ", "); !strings.HasPrefix(got, "PATCH pods/web-a@1000") {
		t.Fatalf("writes: %s, want the adoption first", got)
	}
	w.caches("2000", "999")
	if res := w.sync("ns/web"); !res.Requeue {
		t.Fatal("not skipped with the pod cache older than the adoption")
	}
	if res := w.sync("ns/other"); res.Requeue {
		t.Fatal("another ReplicaSet was held back")
	}

	rs2 := staleRS("api", 0)
	stray := stalePod("api-a", map[string]string{"app": "other"}, rs2) // owned, no longer matching
	w2 := newStaleWorld(t, Config{}, rs2, stray)
	w2.patched["api-a"] = stalePod("api-a", map[string]string{"app": "other"}, nil)
	w2.sync("ns/api")
	if got := strings.Join(w2.takeWrites(), ", "); !strings.HasPrefix(got, "PATCH pods/api-a@1000") {
		t.Fatalf("writes: %s, want the release first", got)
	}
	w2.caches("2000", "999")
	if res := w2.sync("ns/api"); res.Requeue {
		t.Fatal("a release held its former owner back")
	}
}

// A deleted ReplicaSet's writes are forgotten by the delete handler, for
// its UID only: the sync that follows the delete finds it gone instead of
// waiting for caches that will never show its last writes (the pods it
// created may be gone with it). A delete of another incarnation of the
// name (another UID) forgets nothing.
func TestDeletedReplicaSetForgetsItsWrites(t *testing.T) {
	rs := staleRS("web", 1)
	w := newStaleWorld(t, Config{}, rs)
	w.sync("ns/web") // creates a pod at 1000
	w.caches("2000", "999")
	h := handlers{c: w.c, q: nopQueue{}}
	older := staleRS("web", 1)
	older.UID = "uid-older"
	h.deleteRS(older, false)
	if res := w.sync("ns/web"); !res.Requeue {
		t.Fatal("the delete of another UID forgot this one's writes")
	}
	w.rsStore.Delete("ns/web")
	h.deleteRS(rs, false)
	if res := w.sync("ns/web"); res.Requeue {
		t.Fatal("held back after the delete handler forgot the writes")
	}
	if got := strings.Join(w.takeWrites(), ", "); got != "POST pods@1000, PUT replicasets/web/status@1001" {
		t.Fatalf("writes %s, want only the first sync's", got)
	}
}

// Config.NoStaleCheck (the gate turned off) never skips.
func TestNoStaleCheck(t *testing.T) {
	rs := staleRS("web", 2)
	w := newStaleWorld(t, Config{NoStaleCheck: true}, rs)
	w.sync("ns/web")
	if res := w.sync("ns/web"); res.Requeue {
		t.Fatal("skipped with the check off")
	}
	if err := testutil.GatherAndCompare(w.reg, strings.NewReader(""), "replicaset_controller_stale_sync_skips_total"); err != nil {
		t.Fatal(err)
	}
}

type nopQueue struct{}

func (nopQueue) Add(string)                     {}
func (nopQueue) AddAfter(string, time.Duration) {}
