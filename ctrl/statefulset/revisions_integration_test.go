//go:build !nocluster

package statefulset

import (
	"bytes"
	"context"
	"testing"
	"time"

	"github.com/rs/zerolog"

	"github.com/kcmlab/kcm/ctrl/history"
	"github.com/kcmlab/kcm/informer"
	"github.com/kcmlab/kcm/internal/testing/resttest"
	"github.com/kcmlab/kcm/kube/api"
	"github.com/kcmlab/kcm/kube/api/decode"
	"github.com/kcmlab/kcm/kube/rest"
	"github.com/kcmlab/kcm/testenv"
)

// The revision and status writes on a real kube-apiserver (testenv's
// reference release): what the apiserver decides — AlreadyExists for a
// taken name, the data bytes kept as sent, strategic merge of
// ownerReferences with the uid precondition (422 on a mismatch), the
// status subresource — with the pods faked (scPods), no controller
// running.
func TestControlOnRealAPIServer(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	cl := testenv.Shared(t)
	c, err := rest.NewClient(cl.ManagerConfig())
	if err != nil {
		t.Fatal(err)
	}
	ns := cl.Namespace(t)
	sets := rest.NewResources(c, rest.StatefulSets, decode.Typed[api.StatefulSet]())
	revs := rest.NewResources(c, rest.ControllerRevisions, decode.Typed[api.ControllerRevision]()).InNamespace(ns)
	obj, err := decode.Raw().Decode([]byte(`{"apiVersion":"apps/v1","kind":"StatefulSet","metadata":{"name":"web"},` +
		`"spec":{"replicas":1,"serviceName":"web","selector":{"matchLabels":{"app":"web"}},"template":{"metadata":{"labels":{"app":"web"}},` +
		`"spec":{"securityContext":{},"containers":[{"name":"c","image":"registry.k8s.io/pause:3.10","resources":{},` +
		`"env":[{"name":"X","value":"<a&b>"}]}]}}}}`))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := rest.NewResources(c, rest.StatefulSets, decode.Raw()).InNamespace(ns).Create(ctx, obj); err != nil {
		t.Fatal(err)
	}
	get := func() *api.StatefulSet {
		t.Helper()
		s, err := sets.InNamespace(ns).Get(ctx, "web")
		if err != nil {
			t.Fatal(err)
		}
		return s
	}
	set := get()
	patch, err := history.StatefulSetPatch(set)
	if err != nil {
		t.Fatal(err)
	}
	zero, one := int32(0), int32(1)
	firstHash := history.Hash(patch, &zero)
	taken := &api.ControllerRevision{ObjectMeta: api.ObjectMeta{Name: history.RevisionName("web", firstHash), Labels: map[string]string{"other": "x"}},
		Data: api.RawExtension{Raw: []byte(`{"spec":{"template":{"$patch":"replace","metadata":{"labels":{"other":"data"}}}}}`)}, Revision: 1}
	if _, err := revs.Create(ctx, taken); err != nil {
		t.Fatal(err)
	}

	pods := newSCPods()
	rc := newRevisionControl(c, informer.ControllerRevisionLister{}, zerolog.Nop())
	ctl := newSetControl(controlConfig{Pods: pods, Revisions: rc, SetClient: sets, Log: zerolog.Nop()})
	sync := func() {
		t.Helper()
		list, err := revs.List(ctx, rest.ListOptions{})
		if err != nil {
			t.Fatal(err)
		}
		rc.lister = informer.ControllerRevisionLister{Lister: resttest.Lister("controllerrevisions", list.Items...)}
		if _, err := ctl.UpdateStatefulSet(ctx, get(), pods.list(), time.Now()); err != nil {
			t.Fatal(err)
		}
	}

	// The first name is taken by other data: the revision is created
	// under the name hashed with 1, labelled with the first hash.
	sync()
	scExpect(t, "first sync", pods.take(), "create web-0")
	set = get()
	wantName := history.RevisionName("web", history.Hash(patch, &one))
	if set.Status.UpdateRevision != wantName || set.Status.CurrentRevision != wantName || scDeref(set.Status.CollisionCount) != int32(1) ||
		set.Status.ObservedGeneration != set.Generation {
		t.Fatalf("status %+v, want revisions %s, collisionCount 1, generation observed", set.Status, wantName)
	}
	rev1, err := revs.Get(ctx, wantName)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(rev1.Data.Raw, patch) || rev1.Labels[history.HashLabel] != firstHash || rev1.Revision != 1 || !rev1.IsControlledBy(set.UID) {
		t.Errorf("revision %s: #%d labels %v data %s; want #1, hash label %s, controlled by web, data %s", rev1.Name, rev1.Revision,
			rev1.Labels, rev1.Data.Raw, firstHash, patch)
	}
	sync() // web-0 now Pending: replicas 1
	pods.take()
	rv := get().ResourceVersion
	sync()
	if set = get(); set.ResourceVersion != rv {
		t.Errorf("a sync that changes nothing wrote the set (resourceVersion %s, was %s)", set.ResourceVersion, rv)
	}

	// A template change and back: revision #2, then #1 renumbered #3.
	setImage := func(image string) {
		t.Helper()
		s := get()
		s.Spec.Template.Spec.Containers[0].Image = image
		if _, err := sets.InNamespace(ns).Update(ctx, s); err != nil {
			t.Fatal(err)
		}
	}
	setImage("registry.k8s.io/pause:3.9")
	sync()
	if set = get(); set.Status.UpdateRevision == wantName || set.Status.CurrentRevision != wantName {
		t.Fatalf("after the image change: status %+v, want a new update revision, current %s", set.Status, wantName)
	}
	setImage("registry.k8s.io/pause:3.10")
	sync()
	if set = get(); set.Status.UpdateRevision != wantName {
		t.Errorf("after the image change back: updateRevision %s, want %s", set.Status.UpdateRevision, wantName)
	}
	if back, err := revs.Get(ctx, wantName); err != nil || back.Revision != 3 {
		t.Errorf("revision %s after the rollback: %v, %v; want #3", wantName, back, err)
	}

	// Adopt and release an orphan; a release on the wrong uid is Invalid,
	// which is no error.
	orphan, err := revs.Create(ctx, &api.ControllerRevision{ObjectMeta: api.ObjectMeta{Name: "web-orphan", Labels: map[string]string{"app": "web"}},
		Data: api.RawExtension{Raw: []byte(`{}`)}, Revision: 9})
	if err != nil {
		t.Fatal(err)
	}
	adopted, err := rc.adopt(ctx, set, orphan)
	if err != nil || !adopted.IsControlledBy(set.UID) {
		t.Fatalf("adopt: %v, %v; want controlled by web", adopted, err)
	}
	wrong := *adopted
	wrong.UID = "00000000-0000-0000-0000-000000000000"
	if r, err := rc.release(ctx, set, &wrong); r != nil || err != nil {
		t.Errorf("release with another uid: %v, %v; want nil, nil (Invalid ignored)", r, err)
	}
	released, err := rc.release(ctx, set, adopted)
	if err != nil || released == nil || released.ControllerRef() != nil {
		t.Errorf("release: %v, %v; want no controller", released, err)
	}
}
