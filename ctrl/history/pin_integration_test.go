//go:build !nocluster

package history_test

import (
	"bytes"
	"context"
	"maps"
	"testing"
	"time"

	"github.com/kcmlab/kcm/ctrl/history"
	"github.com/kcmlab/kcm/kube/api"
	"github.com/kcmlab/kcm/kube/api/decode"
	"github.com/kcmlab/kcm/kube/rest"
	"github.com/kcmlab/kcm/testenv"
)

// The pin: kube-controller-manager at the reference release, on a real
// cluster, records the StatefulSets below; kcm computes the revision of
// each from the set as it reads it and must find the very revision
// kube-controller-manager wrote — name, hash label and data bytes — and
// the name in the set's status.updateRevision and in its pod's
// controller-revision-hash label. If kcm computed another name, taking a
// StatefulSet over from kube-controller-manager would roll its pods.

// pinSets are the templates pinned (each set's name is its key; its pod
// labels are app=<name>):
//
//   - plain: a container with a command.
//   - empty: empty objects, which kcm's PodSpec does not model or models
//     as pointers — the pod's and the container's securityContext {}, an
//     emptyDir {}, resources {} — and "ports": [], which the apiserver
//     stores as nothing.
//   - unmodelled: fields kcm does not model (affinity, topology spread,
//     lifecycle, dnsConfig, a container securityContext with a value),
//     strings with characters encoding/json escapes (<, >, &) and one
//     beyond ASCII, and numbers.
//   - collide: plain's container under other labels, whose first name is
//     taken (by a revision created before kube-controller-manager starts)
//     by other data: kube-controller-manager bumps status.collisionCount
//     to 1 and hashes "1" into the name, while the hash label keeps the
//     hash with "0".
var pinSets = map[string]string{
	"plain": `{"metadata":{"labels":{"app":"plain"}},"spec":{"containers":[{"name":"c","image":"registry.k8s.io/pause:3.10",` +
		`"command":["/pause"]}]}}`,
	"empty": `{"metadata":{"labels":{"app":"empty"}},"spec":{"securityContext":{},"volumes":[{"name":"scratch","emptyDir":{}}],` +
		`"containers":[{"name":"c","image":"registry.k8s.io/pause:3.10","securityContext":{},"resources":{},"ports":[],` +
		`"volumeMounts":[{"name":"scratch","mountPath":"/scratch"}]}]}}`,
	"unmodelled": `{"metadata":{"labels":{"app":"unmodelled"},"annotations":{"note":"a<b && c>d, café"}},"spec":{` +
		`"affinity":{"nodeAffinity":{"preferredDuringSchedulingIgnoredDuringExecution":[{"weight":10,"preference":` +
		`{"matchExpressions":[{"key":"disktype","operator":"In","values":["ssd"]}]}}]}},` +
		`"topologySpreadConstraints":[{"maxSkew":1,"topologyKey":"kubernetes.io/hostname","whenUnsatisfiable":"ScheduleAnyway",` +
		`"labelSelector":{"matchLabels":{"app":"unmodelled"}}}],"dnsConfig":{"options":[{"name":"ndots","value":"2"}]},` +
		`"terminationGracePeriodSeconds":45,"containers":[{"name":"c","image":"registry.k8s.io/pause:3.10",` +
		`"env":[{"name":"GREETING","value":"<hello> & \"bye\""}],"ports":[{"containerPort":8080,"name":"http"}],` +
		`"securityContext":{"runAsNonRoot":true,"runAsUser":1000},` +
		`"lifecycle":{"preStop":{"exec":{"command":["sh","-c","sleep 5"]}}}}]}}`,
	"collide": `{"metadata":{"labels":{"app":"collide"}},"spec":{"containers":[{"name":"c","image":"registry.k8s.io/pause:3.10",` +
		`"command":["/pause"]}]}}`,
}

// pinRecorded are the revision names kube-controller-manager v1.37.2
// (testenv's reference binary, on testenv's kube-apiserver v1.37.2) gave
// these sets when this test was written (its first run, 2026-12-06, read
// from the sets' status.updateRevision); kcm's computation agreed with
// each. The test also compares live, so a different apiserver release
// (KCM_KUBE_VERSION, whose defaults may change a template) is checked
// against kube-controller-manager but not against these.
var pinRecorded = map[string]string{
	"plain":      "plain-7df855c66",
	"empty":      "empty-669b8f8c94",
	"unmodelled": "unmodelled-c6dbdbbd9",
	"collide":    "collide-77cbc489c",
}

// pinRecordedCollideLabel is the hash label of collide's revision, recorded
// with pinRecorded: the hash its first name had.
const pinRecordedCollideLabel = "77cbc489b"

// pinSetJSON is the StatefulSet <name> with template, one replica.
func pinSetJSON(name, template string) string {
	return `{"apiVersion":"apps/v1","kind":"StatefulSet","metadata":{"name":"` + name + `","annotations":{"pinned":"yes"}},` +
		`"spec":{"replicas":1,"serviceName":"` + name + `","selector":{"matchLabels":{"app":"` + name + `"}},` +
		`"template":` + template + `}}`
}

func TestRevisionsPinnedToKubeControllerManager(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	cl := testenv.Shared(t)
	cfg := cl.ManagerConfig()
	c, err := rest.NewClient(cfg)
	if err != nil {
		t.Fatal(err)
	}
	ns := cl.Namespace(t)
	raw := rest.NewResources(c, rest.StatefulSets, decode.Raw()).InNamespace(ns)
	sets := rest.NewResources(c, rest.StatefulSets, decode.Typed[api.StatefulSet]()).InNamespace(ns)
	cached := rest.NewResources(c, rest.StatefulSets, decode.Compact[api.StatefulSet]()).InNamespace(ns)
	revs := rest.NewResources(c, rest.ControllerRevisions, decode.Typed[api.ControllerRevision]()).InNamespace(ns)
	pods := rest.NewResources(c, rest.Pods, decode.Typed[api.Pod]()).InNamespace(ns)

	// The sets exist before kube-controller-manager starts, so that the
	// revision taking collide's first name can be made first.
	for name, template := range pinSets {
		obj, err := decode.Raw().Decode([]byte(pinSetJSON(name, template)))
		if err != nil {
			t.Fatal(err)
		}
		if _, err := raw.Create(ctx, obj); err != nil {
			t.Fatalf("create %s: %v", name, err)
		}
	}
	collide, err := sets.Get(ctx, "collide")
	if err != nil {
		t.Fatal(err)
	}
	patch, err := history.StatefulSetPatch(collide)
	if err != nil {
		t.Fatal(err)
	}
	// kube-controller-manager hashes a set's first revision with the
	// collision count it read, nil read as 0.
	taken := &api.ControllerRevision{ObjectMeta: api.ObjectMeta{Name: history.RevisionName("collide", history.Hash(patch, ptr(int32(0))))},
		Data: api.RawExtension{Raw: []byte(`{"spec":{"template":{"$patch":"replace","metadata":{"labels":{"other":"data"}}}}}`)}, Revision: 1}
	if _, err := revs.Create(ctx, taken); err != nil {
		t.Fatalf("create the revision that takes collide's name: %v", err)
	}

	kcm, err := cl.StartKubeControllerManager(ctx, testenv.KCMOptions{Controllers: []string{"statefulset"}})
	if err != nil {
		t.Fatal(err)
	}
	defer func() {
		if err := kcm.Stop(); err != nil {
			t.Error(err)
		}
	}()
	recorded := cl.Release() == testenv.ReferenceRelease()
	readers := newRevisionReaders(t, cl)
	for name := range pinSets {
		set := waitForSet(ctx, t, sets, name, func(s *api.StatefulSet) bool {
			return s.Status.UpdateRevision != "" && s.Status.CollisionCount != nil && s.Status.ObservedGeneration >= s.Generation
		})
		t.Logf("%s: kube-controller-manager: updateRevision %s, collisionCount %d", name, set.Status.UpdateRevision, *set.Status.CollisionCount)
		wantCount := int32(0)
		if name == "collide" {
			wantCount = 1
		}
		if *set.Status.CollisionCount != wantCount {
			t.Errorf("%s: collisionCount %d, want %d", name, *set.Status.CollisionCount, wantCount)
		}
		if recorded && set.Status.UpdateRevision != pinRecorded[name] {
			t.Errorf("%s: kube-controller-manager named the revision %s; recorded %s", name, set.Status.UpdateRevision, pinRecorded[name])
		}
		list, err := cached.List(ctx, rest.ListOptions{FieldSelector: "metadata.name=" + name})
		if err != nil || len(list.Items) != 1 {
			t.Fatalf("list %s with the Compact codec: %v", name, err)
		}
		for how, s := range map[string]*api.StatefulSet{"Typed": set, "Compact": list.Items[0]} {
			// The first sync proposes the revision with the count it read,
			// nil read as 0; a name taken by other data renames it with the
			// bumped count, but its hash label stays the first hash
			// (CreateControllerRevision renames and never relabels).
			mine, err := history.NewStatefulSetRevision(s, 1, ptr(int32(0)))
			if err != nil {
				t.Fatalf("%s (%s): %v", name, how, err)
			}
			wantName := history.RevisionName(s.Name, history.Hash(mine.Data.Raw, s.Status.CollisionCount))
			if wantName != set.Status.UpdateRevision {
				t.Errorf("%s (%s): kcm names the revision %s, kube-controller-manager %s", name, how, wantName, set.Status.UpdateRevision)
			}
			theirs, err := revs.Get(ctx, set.Status.UpdateRevision)
			if err != nil {
				t.Fatalf("%s: get kube-controller-manager's revision: %v", name, err)
			}
			if recorded && name == "collide" && theirs.Labels[history.HashLabel] != pinRecordedCollideLabel {
				t.Errorf("collide: hash label %s; recorded %s", theirs.Labels[history.HashLabel], pinRecordedCollideLabel)
			}
			if !bytes.Equal(theirs.Data.Raw, mine.Data.Raw) {
				t.Errorf("%s (%s): data\nkcm:                     %s\nkube-controller-manager: %s", name, how, mine.Data.Raw, theirs.Data.Raw)
			}
			if !maps.Equal(theirs.Labels, mine.Labels) ||
				!maps.Equal(theirs.Annotations, mine.Annotations) || theirs.Revision != 1 || !theirs.IsControlledBy(set.UID) {
				t.Errorf("%s (%s): kube-controller-manager's revision %+v; kcm's %+v", name, how, theirs.ObjectMeta, mine.ObjectMeta)
			}
		}
		// kube-controller-manager's revision reads alike through a JSON
		// and a protobuf client, GET and cached LIST: the data kcm
		// computes from the set, so the name kube-controller-manager gave.
		mine, err := history.NewStatefulSetRevision(set, 1, ptr(int32(0)))
		if err != nil {
			t.Fatal(err)
		}
		readers.sameOnBothWires(ctx, t, ns, set.Status.UpdateRevision, mine.Data.Raw, set.Status.CollisionCount)
		if got := history.RevisionName(name, history.Hash(mine.Data.Raw, set.Status.CollisionCount)); got != set.Status.UpdateRevision {
			t.Errorf("%s: kcm names the revision %s, kube-controller-manager %s", name, got, set.Status.UpdateRevision)
		}
		pod := waitForPod(ctx, t, pods, name+"-0")
		if got := pod.Labels["controller-revision-hash"]; got != set.Status.UpdateRevision {
			t.Errorf("%s: pod label controller-revision-hash %q, want %q", name, got, set.Status.UpdateRevision)
		}
	}

	// kcm's own revision is stored as sent: the apiserver keeps the data's
	// bytes, so what kcm writes compares equal to what it computes.
	plain, err := sets.Get(ctx, "plain")
	if err != nil {
		t.Fatal(err)
	}
	mine, err := history.NewStatefulSetRevision(plain, 1, ptr(int32(7)))
	if err != nil {
		t.Fatal(err)
	}
	mine.OwnerReferences, mine.Labels = nil, nil // not the set's: kube-controller-manager must not adopt it
	if _, err := revs.Create(ctx, mine); err != nil {
		t.Fatal(err)
	}
	back, err := revs.Get(ctx, mine.Name)
	if err != nil || !bytes.Equal(back.Data.Raw, mine.Data.Raw) {
		t.Errorf("kcm's revision read back: %s, %v; sent %s", back.Data.Raw, err, mine.Data.Raw)
	}
	// ... and reads alike through both wires, as does the revision that
	// took collide's name (written by kcm's test, JSON of a struct).
	readers.sameOnBothWires(ctx, t, ns, mine.Name, mine.Data.Raw, ptr(int32(7)))
	readers.sameOnBothWires(ctx, t, ns, taken.Name, taken.Data.Raw, ptr(int32(0)))
	handWrittenRevision(ctx, t, c, readers, ns)
}

// waitForSet watches the StatefulSet until cond holds.
func waitForSet(ctx context.Context, t *testing.T, sets *rest.Resources[*api.StatefulSet], name string, cond func(*api.StatefulSet) bool) *api.StatefulSet {
	t.Helper()
	return waitFor(ctx, t, sets, name, cond)
}

// waitForPod watches until the pod exists.
func waitForPod(ctx context.Context, t *testing.T, pods *rest.Resources[*api.Pod], name string) *api.Pod {
	t.Helper()
	return waitFor(ctx, t, pods, name, func(*api.Pod) bool { return true })
}

// waitFor watches the object name until it exists and cond holds.
func waitFor[T api.Object](ctx context.Context, t *testing.T, r *rest.Resources[T], name string, cond func(T) bool) T {
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
