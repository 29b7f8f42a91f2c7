package statefulset

import (
	"errors"
	"os"
	"strings"
	"testing"

	"github.com/kcmlab/kcm/ctrl/history"
	"github.com/kcmlab/kcm/kube/api"
	"github.com/kcmlab/kcm/kube/api/decode"
)

// The pod of ordinal 1 of pcSetJSON, member for member: GetPodFromTemplate's
// metadata (template labels, annotations, finalizers; generateName
// "<set>-"; the set as controller), the identity (name, namespace, the
// pod-name and pod-index labels, hostname = name and subdomain =
// serviceName over the template's), the revision label, and the claim's
// volume first, replacing the template volume of its name; every other
// member of the template's spec as written, empty objects and fields kcm
// does not model included (Kubernetes' newStatefulSetPod: the pod's spec
// is the template's, deep-copied).
const wantPod1 = `{"apiVersion":"v1","kind":"Pod",
"metadata":{"name":"web-1","generateName":"web-","namespace":"ns",
 "labels":{"app":"web","statefulset.kubernetes.io/pod-name":"web-1","apps.kubernetes.io/pod-index":"1","controller-revision-hash":"web-rev1"},
 "annotations":{"note":"a<b"},"finalizers":["example.com/keep"],
 "ownerReferences":[{"apiVersion":"apps/v1","kind":"StatefulSet","name":"web","uid":"uid-web","controller":true,"blockOwnerDeletion":true}]},
"spec":{"affinity":{"podAntiAffinity":{"preferredDuringSchedulingIgnoredDuringExecution":[{"weight":100,
  "podAffinityTerm":{"labelSelector":{"matchLabels":{"app":"web"}},"topologyKey":"kubernetes.io/hostname"}}]}},
 "topologySpreadConstraints":[{"maxSkew":1,"topologyKey":"zone","whenUnsatisfiable":"ScheduleAnyway"}],
 "securityContext":{},"hostname":"web-1","subdomain":"nginx","terminationGracePeriodSeconds":30,
 "volumes":[{"name":"data","persistentVolumeClaim":{"claimName":"data-web-1"}},{"name":"scratch","emptyDir":{}}],
 "containers":[{"name":"c","image":"nginx:1.27","resources":{},
  "readinessProbe":{"httpGet":{"path":"/healthz","port":8080},"periodSeconds":5},
  "volumeMounts":[{"name":"data","mountPath":"/data"},{"name":"scratch","mountPath":"/tmp"}]}]}}`

func TestNewPodIsTheTemplateMemberForMember(t *testing.T) {
	set := pcSet(t, nil)
	pod, err := newVersionedStatefulSetPod(set, set, "web-rev1", "web-rev1", 1)
	if err != nil {
		t.Fatal(err)
	}
	raw, err := pod.Original()
	if err != nil || raw == nil {
		t.Fatalf("pod has no JSON: %v", err)
	}
	jsonEqual(t, "pod JSON", raw, wantPod1)
	// The typed pod is that JSON decoded: what the control reads.
	if pod.Name != "web-1" || pod.Namespace != "ns" || pod.Spec.Hostname != "web-1" || pod.Spec.Subdomain != "nginx" ||
		getPodRevision(pod) != "web-rev1" || !identityMatches(set, pod) || !storageMatches(set, pod) {
		t.Errorf("typed pod: %+v", pod.ObjectMeta)
	}
	if pod.GenerateName != "web-" {
		t.Errorf("generateName %q, want web- (GetPodFromTemplate sets it beside the name)", pod.GenerateName)
	}
}

// A set built in code (no JSON) makes its pod from its typed fields; no
// serviceName means no subdomain, no claim templates and no volumes means
// no volumes member. (The typed encoding writes the container's resources {}.)
func TestNewPodFromTypedSet(t *testing.T) {
	set := &api.StatefulSet{
		ObjectMeta: api.ObjectMeta{Name: "db", Namespace: "ns", UID: "u1"},
		Spec: api.StatefulSetSpec{
			Template: api.PodTemplateSpec{ObjectMeta: api.ObjectMeta{Labels: map[string]string{"app": "db"}},
				Spec: api.PodSpec{Containers: []api.Container{{Name: "c", Image: "pg"}}}},
		},
	}
	pod, err := newVersionedStatefulSetPod(set, set, "db-1", "db-2", 0)
	if err != nil {
		t.Fatal(err)
	}
	raw, _ := pod.Original()
	jsonEqual(t, "pod JSON", raw, `{"apiVersion":"v1","kind":"Pod",
	"metadata":{"name":"db-0","generateName":"db-","namespace":"ns",
	 "labels":{"app":"db","statefulset.kubernetes.io/pod-name":"db-0","apps.kubernetes.io/pod-index":"0","controller-revision-hash":"db-2"},
	 "ownerReferences":[{"apiVersion":"apps/v1","kind":"StatefulSet","name":"db","uid":"u1","controller":true,"blockOwnerDeletion":true}]},
	"spec":{"containers":[{"name":"c","image":"pg","resources":{}}],"hostname":"db-0"}}`)
}

// Kubernetes' newVersionedStatefulSetPod picks the current revision's
// template below the partition, with its condition's operator precedence:
// (RollingUpdate && rollingUpdate == nil && ordinal < start +
// status.currentReplicas) || (rollingUpdate != nil && ordinal < start +
// partition).
func TestNewVersionedPodPartition(t *testing.T) {
	i32 := func(v int32) *int32 { return &v }
	ru := api.RollingUpdateStatefulSetStrategyType
	od := api.OnDeleteStatefulSetStrategyType
	cases := []struct {
		name            string
		strategy        api.StatefulSetUpdateStrategy
		start           int32 // spec.ordinals.start
		currentReplicas int32
		ordinal         int
		wantCurrent     bool
	}{
		{"below partition", api.StatefulSetUpdateStrategy{Type: ru, RollingUpdate: &api.RollingUpdateStatefulSetStrategy{Partition: i32(2)}}, 0, 0, 1, true},
		{"at partition", api.StatefulSetUpdateStrategy{Type: ru, RollingUpdate: &api.RollingUpdateStatefulSetStrategy{Partition: i32(2)}}, 0, 0, 2, false},
		{"partition 0", api.StatefulSetUpdateStrategy{Type: ru, RollingUpdate: &api.RollingUpdateStatefulSetStrategy{Partition: i32(0)}}, 0, 3, 0, false},
		{"nil partition reads as 0", api.StatefulSetUpdateStrategy{Type: ru, RollingUpdate: &api.RollingUpdateStatefulSetStrategy{}}, 0, 3, 0, false},
		{"partition counts from start", api.StatefulSetUpdateStrategy{Type: ru, RollingUpdate: &api.RollingUpdateStatefulSetStrategy{Partition: i32(2)}}, 5, 0, 6, true},
		{"partition counts from start, at it", api.StatefulSetUpdateStrategy{Type: ru, RollingUpdate: &api.RollingUpdateStatefulSetStrategy{Partition: i32(2)}}, 5, 0, 7, false},
		{"no rollingUpdate: below currentReplicas", api.StatefulSetUpdateStrategy{Type: ru}, 0, 2, 1, true},
		{"no rollingUpdate: at currentReplicas", api.StatefulSetUpdateStrategy{Type: ru}, 0, 2, 2, false},
		{"no rollingUpdate: currentReplicas from start", api.StatefulSetUpdateStrategy{Type: ru}, 3, 2, 4, true},
		{"OnDelete: update revision", api.StatefulSetUpdateStrategy{Type: od}, 0, 3, 0, false},
		{"OnDelete with a partition: precedence reads it", api.StatefulSetUpdateStrategy{Type: od, RollingUpdate: &api.RollingUpdateStatefulSetStrategy{Partition: i32(2)}}, 0, 0, 1, true},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			current := pcSet(t, nil)
			current.Spec.UpdateStrategy = tc.strategy
			current.Spec.Ordinals = &api.StatefulSetOrdinals{Start: tc.start}
			current.Status.CurrentReplicas = tc.currentReplicas
			update := pcSet(t, nil)
			pod, err := newVersionedStatefulSetPod(current, update, "web-cur", "web-upd", tc.ordinal)
			if err != nil {
				t.Fatal(err)
			}
			want := "web-upd"
			if tc.wantCurrent {
				want = "web-cur"
			}
			if got := getPodRevision(pod); got != want {
				t.Errorf("revision %s, want %s", got, want)
			}
		})
	}
}

// A pod below the partition is made from the current revision's template
// as history.ApplyRevision restores it, unmodelled fields included; a pod
// at or above it from the set's own template.
func TestNewVersionedPodFromRestoredRevision(t *testing.T) {
	old := pcSet(t, nil)
	rev, err := history.NewStatefulSetRevision(old, 1, nil)
	if err != nil {
		t.Fatal(err)
	}
	update := pcSet(t, func(m map[string]any) {
		spec := obj(m, "spec")
		obj(spec, "updateStrategy", "rollingUpdate")["partition"] = 1
		tspec := obj(spec, "template", "spec")
		delete(tspec, "affinity")
		c := tspec["containers"].([]any)[0].(map[string]any)
		c["image"] = "nginx:1.28"
	})
	current, err := history.ApplyRevision(update, rev)
	if err != nil {
		t.Fatal(err)
	}
	pod0, err := newVersionedStatefulSetPod(current, update, "web-old", "web-new", 0)
	if err != nil {
		t.Fatal(err)
	}
	raw0, _ := pod0.Original()
	want0 := wantPod1
	for _, r := range [][2]string{{`"web-1"`, `"web-0"`}, {`pod-index":"1"`, `pod-index":"0"`}, {`data-web-1`, `data-web-0`}, {`web-rev1`, `web-old`}} {
		want0 = strings.ReplaceAll(want0, r[0], r[1])
	}
	jsonEqual(t, "pod 0 (current revision)", raw0, want0)

	pod1, err := newVersionedStatefulSetPod(current, update, "web-old", "web-new", 1)
	if err != nil {
		t.Fatal(err)
	}
	if got := pod1.Spec.Containers[0].Image; got != "nginx:1.28" || getPodRevision(pod1) != "web-new" {
		t.Errorf("pod 1: image %s revision %s, want nginx:1.28 web-new", got, getPodRevision(pod1))
	}
	raw1, _ := pod1.Original()
	if strings.Contains(string(raw1), "affinity") || !strings.Contains(string(raw1), "readinessProbe") {
		t.Errorf("pod 1 is not the update template: %s", raw1)
	}
}

// TestProtobufSetMakesNoPod: a StatefulSet read as protobuf (the protocodec
// vector) has no JSON of its templates; its pods and claims are refused
// (ErrTemplate wrapping history.ErrProtobufSet) rather than built from
// kcm's typed template, which models part of a pod.
func TestProtobufSetMakesNoPod(t *testing.T) {
	msg, err := os.ReadFile("../../kube/api/protocodec/testdata/vectors/statefulset.pb")
	if err != nil {
		t.Fatal(err)
	}
	set, err := decode.Typed[api.StatefulSet]().(decode.ProtoDecoder[*api.StatefulSet]).DecodeProto(api.TypeMeta{APIVersion: "apps/v1", Kind: "StatefulSet"}, msg)
	if err != nil {
		t.Fatal(err)
	}
	if !set.IsProto() || len(set.Spec.VolumeClaimTemplates) == 0 {
		t.Fatalf("IsProto %v, %d claim templates: want the vector's set, read as protobuf", set.IsProto(), len(set.Spec.VolumeClaimTemplates))
	}
	_, err = newStatefulSetPod(set, "rev", 0)
	if !errors.Is(err, ErrTemplate) || !errors.Is(err, history.ErrProtobufSet) {
		t.Errorf("pod: err = %v, want ErrTemplate and history.ErrProtobufSet", err)
	}
	pod := &api.Pod{ObjectMeta: api.ObjectMeta{Name: set.Name + "-0"}}
	_, err = getPersistentVolumeClaims(set, pod)
	if !errors.Is(err, ErrTemplate) || !errors.Is(err, history.ErrProtobufSet) {
		t.Errorf("claims: err = %v, want ErrTemplate and history.ErrProtobufSet", err)
	}
}
