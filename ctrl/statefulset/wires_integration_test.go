//go:build !nocluster

package statefulset

import (
	"bytes"
	"fmt"
	"maps"
	"slices"
	"strings"
	"testing"

	"github.com/kcmlab/kcm/ctrl/history"
	"github.com/kcmlab/kcm/internal/testing/ctrltest"
	"github.com/kcmlab/kcm/kube/api"
	"github.com/kcmlab/kcm/kube/api/decode"
	"github.com/kcmlab/kcm/kube/rest"
	"github.com/kcmlab/kcm/testenv"
)

// A StatefulSet handed from manager to manager across the wires: kcm reads
// ControllerRevisions as protobuf on a protobuf client (StatefulSets stay
// JSON, see ctrl/history), and a revision's data must be the same bytes
// either way, or a controller taking a set over would not find its
// revision, create another and roll every pod.
//
// One set, two replicas, a template with what kcm does not model, empty
// objects and characters encoding/json escapes, passes through
// kube-controller-manager (which makes it Ready), kcm on protobuf, kcm on
// JSON (which rolls it to a second image), kcm on protobuf again (which
// rolls it to a third), and kube-controller-manager again. At each
// takeover the new manager must create no revision, renumber none,
// replace no pod and leave the status' revisions as they were. A takeover
// is made visible by a probe: revisionHistoryLimit changes, which bumps
// the generation and rolls nothing; the manager writes
// status.observedGeneration at the end of the sync that would have made
// its changes, and the state is read after that (a quorum read: the
// manager's earlier writes are in it). After each manager, every revision
// reads the same through a JSON and a protobuf client.

// wiresTemplate is the set's pod template (image %s).
const wiresTemplate = `{"metadata":{"labels":{"app":"wires"},"annotations":{"note":"a<b && c>d"}},"spec":{` +
	`"securityContext":{},"volumes":[{"name":"scratch","emptyDir":{}}],` +
	`"affinity":{"nodeAffinity":{"preferredDuringSchedulingIgnoredDuringExecution":[{"weight":10,"preference":` +
	`{"matchExpressions":[{"key":"disktype","operator":"In","values":["ssd"]}]}}]}},` +
	`"terminationGracePeriodSeconds":0,"containers":[{"name":"c","image":"%s","resources":{},"securityContext":{},` +
	`"env":[{"name":"GREETING","value":"<hello> & \"bye\""}],"volumeMounts":[{"name":"scratch","mountPath":"/scratch"}],` +
	`"lifecycle":{"preStop":{"exec":{"command":["sh","-c","sleep 5"]}}}}]}}`

// wiresState is what a takeover must leave unchanged.
type wiresState struct {
	status string            // the set's revisions and collision count
	revs   map[string]string // revision name → number and resourceVersion
	pods   map[string]string // pod name → uid, revision label, deletion
}

func (c *stsCluster) wiresState(name string) wiresState {
	c.t.Helper()
	set, err := c.setsT.Get(c.ctx, name)
	if err != nil {
		c.t.Fatal(err)
	}
	st := wiresState{revs: map[string]string{}, pods: map[string]string{},
		status: fmt.Sprintf("current %s update %s collisionCount %v", set.Status.CurrentRevision, set.Status.UpdateRevision,
			scDeref(set.Status.CollisionCount))}
	revs, err := c.revisions.List(c.ctx, rest.ListOptions{})
	if err != nil {
		c.t.Fatal(err)
	}
	for _, r := range revs.Items {
		st.revs[r.Name] = fmt.Sprintf("#%d rv %s", r.Revision, r.ResourceVersion)
	}
	pods, err := c.pods.List(c.ctx, rest.ListOptions{})
	if err != nil {
		c.t.Fatal(err)
	}
	for _, p := range pods.Items {
		st.pods[p.Name] = fmt.Sprintf("uid %s rev %s deleting %v", p.UID, p.Labels["controller-revision-hash"], p.DeletionTimestamp != nil)
	}
	return st
}

func (s wiresState) String() string {
	var b strings.Builder
	fmt.Fprintf(&b, "status: %s", s.status)
	for _, k := range slices.Sorted(maps.Keys(s.revs)) {
		fmt.Fprintf(&b, "\n  revision %s %s", k, s.revs[k])
	}
	for _, k := range slices.Sorted(maps.Keys(s.pods)) {
		fmt.Fprintf(&b, "\n  pod %s %s", k, s.pods[k])
	}
	return b.String()
}

func (s wiresState) equal(o wiresState) bool {
	return s.status == o.status && maps.Equal(s.revs, o.revs) && maps.Equal(s.pods, o.pods)
}

// wiresClient is a client of the shared cluster on content type ct.
func wiresClient(t *testing.T, cl *testenv.Cluster, ct string) *rest.Client {
	t.Helper()
	cfg := cl.Config()
	cfg.ContentType = ct
	c, err := rest.NewClient(cfg)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(c.CloseIdleConnections)
	return c
}

// probe bumps the set's revisionHistoryLimit and waits until the running
// manager has observed the new generation.
func (c *stsCluster) probe(name string, limit int, who string) {
	c.t.Helper()
	s, err := c.sets.Patch(c.ctx, name, rest.MergePatch, fmt.Appendf(nil, `{"spec":{"revisionHistoryLimit":%d}}`, limit), rest.PatchOptions{})
	if err != nil {
		c.t.Fatal(err)
	}
	gen := s.Generation
	c.waitSet(name, who+" to observe the probe", func(s *api.StatefulSet) bool { return s.Status.ObservedGeneration >= gen })
}

// roll changes the set's image and waits until every replica runs it.
func (c *stsCluster) roll(name, image string, replicas int32) *api.StatefulSet {
	c.t.Helper()
	s, err := c.sets.Patch(c.ctx, name, rest.StrategicMergePatch,
		fmt.Appendf(nil, `{"spec":{"template":{"spec":{"containers":[{"name":"c","image":%q}]}}}}`, image), rest.PatchOptions{})
	if err != nil {
		c.t.Fatal(err)
	}
	gen := s.Generation
	ready := allReady(replicas)
	return c.waitSet(name, "the roll to "+image, func(s *api.StatefulSet) bool { return s.Generation == gen && ready(s) })
}

// revisionsAlike checks that every revision of the namespace reads the
// same through the JSON and the protobuf client (GET and LIST), and that
// the ones the set's status names are named by the hash of their data.
func (c *stsCluster) revisionsAlike(jsonC, protoC *rest.Client, set *api.StatefulSet, after string) {
	c.t.Helper()
	read := func(client *rest.Client, wantProto bool) map[string]*api.ControllerRevision {
		out := map[string]*api.ControllerRevision{}
		res := rest.NewResources(client, rest.ControllerRevisions, decode.StrippingManagedFields(decode.Compact[api.ControllerRevision]())).
			InNamespace(c.ns)
		list, err := res.List(c.ctx, rest.ListOptions{})
		if err != nil {
			c.t.Fatal(err)
		}
		get := rest.NewResources(client, rest.ControllerRevisions, decode.Typed[api.ControllerRevision]()).InNamespace(c.ns)
		for _, r := range list.Items {
			g, err := get.Get(c.ctx, r.Name)
			if err != nil {
				c.t.Fatal(err)
			}
			if r.IsProto() != wantProto || g.IsProto() != wantProto {
				c.t.Fatalf("after %s: revision %s read with IsProto %v (LIST), %v (GET); want %v", after, r.Name, r.IsProto(), g.IsProto(), wantProto)
			}
			if !bytes.Equal(g.Data.Raw, r.Data.Raw) {
				c.t.Errorf("after %s: revision %s: GET and LIST data differ:\n%s\n%s", after, r.Name, g.Data.Raw, r.Data.Raw)
			}
			out[r.Name] = r
		}
		return out
	}
	js, pb := read(jsonC, false), read(protoC, true)
	if !slices.Equal(slices.Sorted(maps.Keys(js)), slices.Sorted(maps.Keys(pb))) {
		c.t.Fatalf("after %s: revisions %v (JSON), %v (protobuf)", after, slices.Sorted(maps.Keys(js)), slices.Sorted(maps.Keys(pb)))
	}
	for name, j := range js {
		p := pb[name]
		if !bytes.Equal(j.Data.Raw, p.Data.Raw) || !history.EqualRevision(j, p) ||
			history.HashControllerRevision(j, set.Status.CollisionCount) != history.HashControllerRevision(p, set.Status.CollisionCount) {
			c.t.Errorf("after %s: revision %s reads differently:\nJSON:     %s\nprotobuf: %s", after, name, j.Data.Raw, p.Data.Raw)
		}
		if name == set.Status.UpdateRevision || name == set.Status.CurrentRevision {
			if want := history.RevisionName(set.Name, history.HashControllerRevision(p, set.Status.CollisionCount)); want != name {
				c.t.Errorf("after %s: revision %s, read as protobuf, hashes to the name %s", after, name, want)
			}
		}
	}
}

func TestTakeoverAcrossWires(t *testing.T) {
	c := startSTSCluster(t)
	cl := testenv.Shared(t)
	jsonC, protoC := wiresClient(t, cl, rest.ContentTypeJSON), wiresClient(t, cl, rest.ContentTypeProtobuf)
	obj, err := api.DecodeRawObject(fmt.Appendf(nil, `{"apiVersion":"apps/v1","kind":"StatefulSet","metadata":{"name":"wires"},`+
		`"spec":{"replicas":2,"serviceName":"wires","selector":{"matchLabels":{"app":"wires"}},"template":`+wiresTemplate+`}}`,
		"registry.example/v1"))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := c.sets.Create(c.ctx, obj); err != nil {
		t.Fatal(err)
	}

	kcm, err := cl.StartKubeControllerManager(c.ctx, testenv.KCMOptions{Controllers: []string{"statefulset"}})
	if err != nil {
		t.Fatal(err)
	}
	set := c.waitSet("wires", "kube-controller-manager to make 2 replicas Ready", allReady(2))
	if err := kcm.Stop(); err != nil {
		t.Fatal(err)
	}
	c.revisionsAlike(jsonC, protoC, set, "kube-controller-manager")

	limit := 10
	takeover := func(who string, start func() func()) {
		t.Helper()
		before := c.wiresState("wires")
		stop := start()
		limit++
		c.probe("wires", limit, who)
		after := c.wiresState("wires")
		stop()
		if !after.equal(before) {
			t.Errorf("%s took the set over and changed it:\nbefore %s\nafter  %s", who, before, after)
		}
		if len(after.pods) != 2 || len(after.revs) == 0 {
			t.Errorf("%s took over %s; want 2 pods and the revisions", who, after)
		}
	}
	kcmOn := func(client *rest.Client) func() func() {
		return func() func() {
			r := ctrltest.Start(t, c.ctx, client, Descriptor(), 2)
			return func() { r.Stop(t) }
		}
	}
	kubeControllerManager := func() func() {
		m, err := cl.StartKubeControllerManager(c.ctx, testenv.KCMOptions{Controllers: []string{"statefulset"}})
		if err != nil {
			t.Fatal(err)
		}
		return func() {
			if err := m.Stop(); err != nil {
				t.Error(err)
			}
		}
	}
	rollWith := func(who string, start func() func(), image string) {
		t.Helper()
		stop := start()
		set = c.roll("wires", image, 2)
		stop()
		c.revisionsAlike(jsonC, protoC, set, who+"'s roll to "+image)
	}

	takeover("kcm on protobuf, after kube-controller-manager", kcmOn(protoC))
	takeover("kcm on JSON, after kcm on protobuf", kcmOn(jsonC))
	rollWith("kcm on JSON", kcmOn(jsonC), "registry.example/v2")
	takeover("kcm on protobuf, after kcm on JSON", kcmOn(protoC))
	rollWith("kcm on protobuf", kcmOn(protoC), "registry.example/v3")
	takeover("kube-controller-manager, after kcm on protobuf", kubeControllerManager)
	got := c.wiresState("wires")
	if len(got.revs) != 3 {
		t.Errorf("%d revisions after three templates, want 3:\n%s", len(got.revs), got)
	}
	t.Logf("the set at the end: %s", got)
}
