//go:build !nocluster

package statefulset

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/kcmlab/kcm/internal/testing/ctrltest"
	"github.com/kcmlab/kcm/kube/api"
	"github.com/kcmlab/kcm/kube/api/decode"
	"github.com/kcmlab/kcm/kube/rest"
	"github.com/kcmlab/kcm/testenv"
)

// The controller on a real kube-apiserver, built from its descriptor as
// the manager builds it (ctrltest.Start), with kube-scheduler and a kwok
// node playing the kubelet: pods are scheduled, become Running and Ready,
// and go when deleted, with nothing written by the test.

// stsNodes starts kube-scheduler and adds the package's kwok node to the
// shared cluster, once.
var stsNodes struct {
	once sync.Once
	err  error
}

type stsCluster struct {
	t         *testing.T
	ctx       context.Context
	ns        string
	admin     *rest.Client
	sets      *rest.Resources[*api.RawObject]
	setsT     *rest.Resources[*api.StatefulSet]
	pods      *rest.Resources[*api.Pod]
	claims    *rest.Resources[*api.PersistentVolumeClaim]
	revisions *rest.Resources[*api.ControllerRevision]

	mu sync.Mutex
	// claimAdded is the resourceVersion of each claim's ADDED event, as
	// bindClaims saw it.
	claimAdded map[string]string
}

func startSTS(t *testing.T) *stsCluster {
	c := startSTSCluster(t)
	ctrltest.Start(t, c.ctx, c.admin, Descriptor(), 2)
	return c
}

// startSTSCluster is startSTS without the controller: the test starts
// whichever controllers it wants.
func startSTSCluster(t *testing.T) *stsCluster {
	cl := testenv.Shared(t)
	ctx, cancel := context.WithTimeout(context.Background(), 4*time.Minute)
	t.Cleanup(cancel)
	stsNodes.once.Do(func() {
		if stsNodes.err = cl.StartScheduler(ctx); stsNodes.err == nil {
			stsNodes.err = cl.AddNodes(ctx, testenv.NodeSpec{Name: "sts-node-1"})
		}
	})
	if stsNodes.err != nil {
		t.Fatalf("kwok node: %v", stsNodes.err)
	}
	admin, err := rest.NewClient(cl.ManagerConfig())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(admin.CloseIdleConnections)
	ns := cl.Namespace(t)
	return &stsCluster{t: t, ctx: ctx, ns: ns, admin: admin,
		sets:      rest.NewResources(admin, rest.StatefulSets, decode.Raw()).InNamespace(ns),
		setsT:     rest.NewResources(admin, rest.StatefulSets, decode.Typed[api.StatefulSet]()).InNamespace(ns),
		pods:      rest.NewResources(admin, rest.Pods, decode.Typed[api.Pod]()).InNamespace(ns),
		claims:    rest.NewResources(admin, rest.PersistentVolumeClaims, decode.Typed[api.PersistentVolumeClaim]()).InNamespace(ns),
		revisions: rest.NewResources(admin, rest.ControllerRevisions, decode.Typed[api.ControllerRevision]()).InNamespace(ns),
	}
}

// createSet creates StatefulSet <name> selecting app=<name> from JSON;
// claims, when not empty, is its volumeClaimTemplates array.
func (c *stsCluster) createSet(name string, replicas int, claims string) {
	c.t.Helper()
	volumes := ""
	if claims != "" {
		volumes = `,"volumeClaimTemplates":` + claims
	}
	obj, err := api.DecodeRawObject(fmt.Appendf(nil, `{"apiVersion":"apps/v1","kind":"StatefulSet","metadata":{"name":%q},
	"spec":{"replicas":%d,"serviceName":%q,"selector":{"matchLabels":{"app":%q}},
	"template":{"metadata":{"labels":{"app":%q}},"spec":{"containers":[{"name":"c","image":"registry.example/never-pulled"}]}}%s}}`,
		name, replicas, name, name, name, volumes))
	if err != nil {
		c.t.Fatal(err)
	}
	if _, err := c.sets.Create(c.ctx, obj); err != nil {
		c.t.Fatal(err)
	}
}

func (c *stsCluster) scale(name string, replicas int) {
	c.t.Helper()
	if _, err := c.sets.Patch(c.ctx, name, rest.MergePatch, fmt.Appendf(nil, `{"spec":{"replicas":%d}}`, replicas), rest.PatchOptions{}); err != nil {
		c.t.Fatal(err)
	}
}

// waitSet watches the set until check holds.
func (c *stsCluster) waitSet(name, what string, check func(*api.StatefulSet) bool) *api.StatefulSet {
	c.t.Helper()
	l, err := c.setsT.List(c.ctx, rest.ListOptions{FieldSelector: "metadata.name=" + name})
	if err != nil {
		c.t.Fatal(err)
	}
	if len(l.Items) == 1 && check(l.Items[0]) {
		return l.Items[0]
	}
	w, err := c.setsT.Watch(c.ctx, rest.WatchOptions{ListOptions: rest.ListOptions{FieldSelector: "metadata.name=" + name,
		ResourceVersion: l.ResourceVersion, TimeoutSeconds: 180}})
	if err != nil {
		c.t.Fatal(err)
	}
	defer w.Close()
	var last *api.StatefulSet
	for {
		ev, err := w.Next()
		if err != nil {
			c.t.Fatalf("waiting for %s: %v (last status %+v)", what, err, last)
		}
		if ev.Object != nil && ev.Object.Name == name {
			last = ev.Object
			if check(last) {
				return last
			}
		}
	}
}

// podEvent is one pod watch event, as the order checks read it.
type podEvent struct {
	typ   rest.EventType
	name  string
	ready bool // Running and Ready
	gone  bool // deletionTimestamp set
	rv    string
}

// recordPods watches the namespace's pods from now on until stop returns
// true for the events so far, and returns them.
func (c *stsCluster) recordPods(from string, stop func([]podEvent) bool) []podEvent {
	c.t.Helper()
	w, err := c.pods.Watch(c.ctx, rest.WatchOptions{ListOptions: rest.ListOptions{ResourceVersion: from, TimeoutSeconds: 180}})
	if err != nil {
		c.t.Fatal(err)
	}
	defer w.Close()
	var evs []podEvent
	for !stop(evs) {
		ev, err := w.Next()
		if err != nil {
			c.t.Fatalf("pod watch: %v (events so far: %v)", err, evs)
		}
		if ev.Object == nil || ev.Type == rest.Bookmark {
			continue
		}
		p := ev.Object
		evs = append(evs, podEvent{typ: ev.Type, name: p.Name,
			ready: p.Status.Phase == api.PodRunning && api.IsPodReady(p), gone: p.DeletionTimestamp != nil, rv: p.ResourceVersion})
	}
	return evs
}

// currentRV is the namespace's pod list resourceVersion: a watch from it
// sees everything after.
func (c *stsCluster) currentRV() string {
	c.t.Helper()
	l, err := c.pods.List(c.ctx, rest.ListOptions{})
	if err != nil {
		c.t.Fatal(err)
	}
	return l.ResourceVersion
}

// readyPods are the pods the events leave Running and Ready.
func readyPods(evs []podEvent) map[string]bool {
	ready := map[string]bool{}
	for _, e := range evs {
		ready[e.name] = e.typ != rest.Deleted && e.ready && !e.gone
	}
	return ready
}

// checkOrderedCreation: each pod web-n is created only once web-0 …
// web-(n-1) are Running and Ready (OrderedReady, upstream's monotonic
// creation), in ordinal order.
func checkOrderedCreation(t *testing.T, set string, n int, evs []podEvent) {
	t.Helper()
	var created []string
	for i, e := range evs {
		if e.typ != rest.Added {
			continue
		}
		created = append(created, e.name)
		ready := readyPods(evs[:i])
		for k := range ordinalOf(e.name) {
			if lower := fmt.Sprintf("%s-%d", set, k); !ready[lower] {
				t.Errorf("%s was created before %s was Running and Ready", e.name, lower)
			}
		}
	}
	var want []string
	for k := range n {
		want = append(want, fmt.Sprintf("%s-%d", set, k))
	}
	if !slices.Equal(created, want) {
		t.Errorf("pods created in the order %q, want %q", created, want)
	}
}

func ordinalOf(name string) int {
	var n int
	_, _ = fmt.Sscanf(name[strings.LastIndex(name, "-")+1:], "%d", &n)
	return n
}

// allReady: the set's status says every replica is ready, available,
// current and updated, for its current generation.
func allReady(n int32) func(*api.StatefulSet) bool {
	return func(s *api.StatefulSet) bool {
		st := s.Status
		return st.ObservedGeneration == s.Generation && st.Replicas == n && st.ReadyReplicas == n &&
			st.AvailableReplicas == n && st.CurrentReplicas == n && st.UpdatedReplicas == n &&
			st.CurrentRevision != "" && st.CurrentRevision == st.UpdateRevision
	}
}

// A 3-replica OrderedReady set: web-0, web-1, web-2 created one at a
// time, each after the one below is Running and Ready; the pods carry
// their identity (pod-name and pod-index labels, hostname, subdomain) and
// the revision's name in controller-revision-hash; one
// ControllerRevision, owned by the set, revision 1, named in the status;
// then scaled to 1, web-2 goes first and web-1 is deleted only once web-2
// is gone.
func TestOnRealAPIServer(t *testing.T) {
	c := startSTS(t)
	from := c.currentRV()
	c.createSet("web", 3, "")
	evs := c.recordPods(from, func(evs []podEvent) bool {
		r := readyPods(evs)
		return r["web-0"] && r["web-1"] && r["web-2"]
	})
	checkOrderedCreation(t, "web", 3, evs)
	set := c.waitSet("web", "3 replicas ready, current and updated", allReady(3))

	revs, err := c.revisions.List(c.ctx, rest.ListOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if len(revs.Items) != 1 {
		t.Fatalf("%d ControllerRevisions, want 1", len(revs.Items))
	}
	rev := revs.Items[0]
	if rev.Name != set.Status.CurrentRevision || rev.Revision != 1 {
		t.Errorf("revision %s (number %d), status names %s; want it, number 1", rev.Name, rev.Revision, set.Status.CurrentRevision)
	}
	if ref := rev.ControllerRef(); ref == nil || ref.UID != set.UID || ref.Kind != "StatefulSet" {
		t.Errorf("the revision's controller is %+v, want the set", ref)
	}
	for k := range 3 {
		name := fmt.Sprintf("web-%d", k)
		p, err := c.pods.Get(c.ctx, name)
		if err != nil {
			t.Fatal(err)
		}
		if p.Labels["controller-revision-hash"] != rev.Name || p.Labels["statefulset.kubernetes.io/pod-name"] != name ||
			p.Labels["apps.kubernetes.io/pod-index"] != fmt.Sprint(k) {
			t.Errorf("%s labels %v", name, p.Labels)
		}
		if ref := p.ControllerRef(); ref == nil || ref.UID != set.UID {
			t.Errorf("%s controller %+v, want the set", name, ref)
		}
		if p.Spec.Hostname != name || p.Spec.Subdomain != "web" {
			t.Errorf("%s hostname %q subdomain %q", name, p.Spec.Hostname, p.Spec.Subdomain)
		}
	}

	// Scale down: highest ordinal first, one at a time.
	from = c.currentRV()
	c.scale("web", 1)
	evs = c.recordPods(from, func(evs []podEvent) bool {
		return slices.ContainsFunc(evs, func(e podEvent) bool { return e.typ == rest.Deleted && e.name == "web-1" })
	})
	web2Gone := slices.IndexFunc(evs, func(e podEvent) bool { return e.typ == rest.Deleted && e.name == "web-2" })
	web1Deleting := slices.IndexFunc(evs, func(e podEvent) bool { return e.name == "web-1" && e.gone })
	if web2Gone < 0 || web1Deleting < web2Gone {
		t.Errorf("web-1 was deleted before web-2 was gone: %v", evs)
	}
	if slices.ContainsFunc(evs, func(e podEvent) bool { return e.name == "web-0" && (e.gone || e.typ == rest.Deleted) }) {
		t.Errorf("web-0 was deleted: %v", evs)
	}
	c.waitSet("web", "1 replica", allReady(1))
}

// A set with a volumeClaimTemplate: each pod's claim data-<pod> is
// created before the pod, labelled with the selector's labels, and
// mounted by the pod as volume "data"; with the test binding each claim to
// a volume (no PV controller runs), the pods are scheduled and become
// Ready. Scaled down, the claim of the removed pod stays (the default
// retention policy, Retain).
func TestClaimsOnRealAPIServer(t *testing.T) {
	c := startSTS(t)
	bindCtx, stopBinding := context.WithCancel(c.ctx)
	bound := make(chan struct{})
	go func() { defer close(bound); c.bindClaims(bindCtx) }()
	t.Cleanup(func() { stopBinding(); <-bound })
	from := c.currentRV()
	c.createSet("db", 2, `[{"metadata":{"name":"data"},"spec":{"accessModes":["ReadWriteOnce"],"resources":{"requests":{"storage":"1Gi"}}}}]`)
	evs := c.recordPods(from, func(evs []podEvent) bool {
		r := readyPods(evs)
		return r["db-0"] && r["db-1"]
	})
	checkOrderedCreation(t, "db", 2, evs)
	c.waitSet("db", "2 replicas ready", allReady(2))
	for k := range 2 {
		pod, err := c.pods.Get(c.ctx, fmt.Sprintf("db-%d", k))
		if err != nil {
			t.Fatal(err)
		}
		claimName := "data-" + pod.Name
		claim, err := c.claims.Get(c.ctx, claimName)
		if err != nil {
			t.Fatal(err)
		}
		added := evs[slices.IndexFunc(evs, func(e podEvent) bool { return e.typ == rest.Added && e.name == pod.Name })].rv
		c.mu.Lock()
		claimAdded := c.claimAdded[claimName]
		c.mu.Unlock()
		if cmp, err := api.CompareResourceVersion(claimAdded, added); err != nil || cmp >= 0 {
			t.Errorf("%s (created at %q) was not created before %s (at %s)", claimName, claimAdded, pod.Name, added)
		}
		if claim.Labels["app"] != "db" {
			t.Errorf("%s labels %v, want app=db", claimName, claim.Labels)
		}
		if !slices.ContainsFunc(pod.Spec.Volumes, func(v api.Volume) bool {
			return v.Name == "data" && v.PersistentVolumeClaim != nil && v.PersistentVolumeClaim.ClaimName == claimName
		}) {
			t.Errorf("%s does not mount %s as data: %+v", pod.Name, claimName, pod.Spec.Volumes)
		}
	}
	c.scale("db", 1)
	c.waitSet("db", "1 replica", allReady(1))
	if _, err := c.claims.Get(c.ctx, "data-db-1"); err != nil {
		t.Errorf("data-db-1 after scaling down (Retain): %v", err)
	}
}

// persistentVolumes is the core/v1 resource the test binds claims to (kcm
// has no controller of its own that reads it).
var persistentVolumes = rest.Resource{Version: "v1", Resource: "persistentvolumes", Kind: "PersistentVolume"}

// bindClaims plays the PersistentVolume controller for the namespace's
// claims until the test's context ends: each new claim gets a volume made
// for it (claimRef to its UID) and is bound the way the PV controller
// binds one — spec.volumeName, the bind-completed annotation, phase Bound
// — so that kube-scheduler's volume binding accepts its pod. It records
// the resourceVersion each claim was created at, and returns when ctx
// ends.
func (c *stsCluster) bindClaims(ctx context.Context) {
	volumes := rest.NewResources(c.admin, persistentVolumes, decode.Raw())
	raw := rest.NewResources(c.admin, rest.PersistentVolumeClaims, decode.Raw()).InNamespace(c.ns)
	w, err := c.claims.Watch(ctx, rest.WatchOptions{ListOptions: rest.ListOptions{ResourceVersion: "0", TimeoutSeconds: 240}})
	if err != nil {
		c.t.Errorf("claim watch: %v", err)
		return
	}
	defer w.Close()
	for {
		ev, err := w.Next()
		if err != nil {
			return // the test is over (its context ended) or the watch timed out
		}
		if ev.Type != rest.Added || ev.Object == nil {
			continue
		}
		claim := ev.Object
		c.mu.Lock()
		if c.claimAdded == nil {
			c.claimAdded = map[string]string{}
		}
		c.claimAdded[claim.Name] = claim.ResourceVersion
		c.mu.Unlock()
		if claim.Spec.VolumeName != "" {
			continue
		}
		pvName := c.ns + "-" + claim.Name
		pv, err := api.DecodeRawObject(fmt.Appendf(nil, `{"apiVersion":"v1","kind":"PersistentVolume","metadata":{"name":%q},
		"spec":{"capacity":{"storage":"1Gi"},"accessModes":["ReadWriteOnce"],"hostPath":{"path":"/tmp/%s"},
		"persistentVolumeReclaimPolicy":"Retain",
		"claimRef":{"apiVersion":"v1","kind":"PersistentVolumeClaim","namespace":%q,"name":%q,"uid":%q}}}`,
			pvName, pvName, c.ns, claim.Name, claim.UID))
		if err == nil {
			_, err = volumes.Create(ctx, pv)
		}
		if err == nil {
			_, err = volumes.Patch(ctx, pvName, rest.MergePatch, []byte(`{"status":{"phase":"Bound"}}`), rest.PatchOptions{}, "status")
		}
		if err == nil {
			_, err = raw.Patch(ctx, claim.Name, rest.MergePatch, fmt.Appendf(nil,
				`{"metadata":{"annotations":{"pv.kubernetes.io/bind-completed":"yes"}},"spec":{"volumeName":%q}}`, pvName), rest.PatchOptions{})
		}
		if err == nil {
			_, err = raw.Patch(ctx, claim.Name, rest.MergePatch,
				[]byte(`{"status":{"phase":"Bound","accessModes":["ReadWriteOnce"],"capacity":{"storage":"1Gi"}}}`), rest.PatchOptions{}, "status")
		}
		if err != nil && ctx.Err() == nil {
			c.t.Errorf("binding %s: %v", claim.Name, err)
		}
	}
}
