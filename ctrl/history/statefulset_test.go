package history_test

import (
	"errors"
	"os"
	"testing"

	"github.com/kcmlab/kcm/ctrl/history"
	"github.com/kcmlab/kcm/kube/api"
	"github.com/kcmlab/kcm/kube/api/decode"
)

// setJSON is a StatefulSet named db in ns as the apiserver sends it, with
// the given pod template.
func setJSON(template string) string {
	return `{"apiVersion":"apps/v1","kind":"StatefulSet","metadata":{"name":"db","namespace":"ns","uid":"u1",` +
		`"resourceVersion":"5","generation":1,"annotations":{"team":"a"}},"spec":{"replicas":2,"selector":{"matchLabels":{"app":"db"}},` +
		`"serviceName":"db","template":` + template + `,"podManagementPolicy":"OrderedReady",` +
		`"updateStrategy":{"type":"RollingUpdate","rollingUpdate":{"partition":0}},"revisionHistoryLimit":10},` +
		`"status":{"replicas":2,"availableReplicas":2,"collisionCount":1}}`
}

// The codecs a StatefulSet may have been read with: Typed (a GET, a
// write's answer) keeps its JSON; Compact (an informer's cache) rebuilds
// it from the struct and a remainder.
var setCodecs = map[string]decode.Codec[*api.StatefulSet]{
	"Typed":   decode.Typed[api.StatefulSet](),
	"Compact": decode.Compact[api.StatefulSet](),
}

// TestStatefulSetPatch: the statefulset controller's getPatch encodes the
// set, decodes the JSON into generic values (numbers as float64), takes
// spec.template, adds "$patch": "replace" and encodes
// {"spec":{"template":...}} with encoding/json: object keys sorted, <, >
// and & escaped as \u003c, \u003e, \u0026, numbers as float64 prints them.
// Everything the apiserver wrote of the template is in it: empty objects
// ("emptyDir": {}, "securityContext": {}, "resources": {}) and fields kcm
// does not model (affinity, lifecycle). The expected patches are written
// by hand from that rule; the pin test checks the rule against
// kube-controller-manager itself.
func TestStatefulSetPatch(t *testing.T) {
	tests := []struct {
		name, template, want string
	}{
		{
			"empty objects, unmodelled fields, escaped characters",
			`{"metadata":{"labels":{"app":"db"},"annotations":{"note":"a<b&c>"}},"spec":{"volumes":[{"name":"scratch","emptyDir":{}}],` +
				`"containers":[{"name":"db","image":"busybox","resources":{},"securityContext":{},` +
				`"lifecycle":{"preStop":{"exec":{"command":["sh","-c","sleep 5"]}}}}],"securityContext":{},` +
				`"affinity":{"nodeAffinity":{"preferredDuringSchedulingIgnoredDuringExecution":[{"weight":10,` +
				`"preference":{"matchExpressions":[{"key":"disk","operator":"In","values":["ssd"]}]}}]}},"terminationGracePeriodSeconds":30}}`,
			`{"spec":{"template":{"$patch":"replace","metadata":{"annotations":{"note":"a\u003cb\u0026c\u003e"},"labels":{"app":"db"}},` +
				`"spec":{"affinity":{"nodeAffinity":{"preferredDuringSchedulingIgnoredDuringExecution":[{"preference":{"matchExpressions":` +
				`[{"key":"disk","operator":"In","values":["ssd"]}]},"weight":10}]}},"containers":[{"image":"busybox","lifecycle":{"preStop":` +
				`{"exec":{"command":["sh","-c","sleep 5"]}}},"name":"db","resources":{},"securityContext":{}}],"securityContext":{},` +
				`"terminationGracePeriodSeconds":30,"volumes":[{"emptyDir":{},"name":"scratch"}]}}}}`,
		},
		{
			"numbers go through float64: 2^53+1 comes out as 2^53, 0 stays",
			`{"metadata":{},"spec":{"activeDeadlineSeconds":9007199254740993,"containers":[{"name":"c","image":"i"}],"terminationGracePeriodSeconds":0}}`,
			`{"spec":{"template":{"$patch":"replace","metadata":{},"spec":{"activeDeadlineSeconds":9007199254740992,` +
				`"containers":[{"image":"i","name":"c"}],"terminationGracePeriodSeconds":0}}}}`,
		},
	}
	for _, tt := range tests {
		for cname, codec := range setCodecs {
			t.Run(tt.name+"/"+cname, func(t *testing.T) {
				set, err := codec.Decode([]byte(setJSON(tt.template)))
				if err != nil {
					t.Fatal(err)
				}
				for what, s := range map[string]*api.StatefulSet{"read": set, "copied": mustCopy(t, set)} {
					got, err := history.StatefulSetPatch(s)
					if err != nil || string(got) != tt.want {
						t.Errorf("%s: patch\n got %s, %v\nwant %s", what, got, err, tt.want)
					}
				}
			})
		}
	}
}

func mustCopy(t *testing.T, s *api.StatefulSet) *api.StatefulSet {
	t.Helper()
	cp, err := api.DeepCopy(s)
	if err != nil {
		t.Fatal(err)
	}
	return cp
}

// TestStatefulSetPatchOfTypedSet: a set built in code has no JSON; it is
// encoded from its fields, as kube-controller-manager encodes its struct:
// a container's resources is a struct, written {} even when empty, and a
// zero creationTimestamp is left out (apimachinery's omitzero), though
// kcm's ObjectMeta writes null.
func TestStatefulSetPatchOfTypedSet(t *testing.T) {
	set := &api.StatefulSet{ObjectMeta: api.ObjectMeta{Name: "db"}, Spec: api.StatefulSetSpec{Template: api.PodTemplateSpec{
		ObjectMeta: api.ObjectMeta{Labels: map[string]string{"app": "x"}},
		Spec:       api.PodSpec{Containers: []api.Container{{Name: "c", Image: "i"}}}}}}
	const want = `{"spec":{"template":{"$patch":"replace","metadata":{"labels":{"app":"x"}},"spec":{"containers":[{"image":"i","name":"c","resources":{}}]}}}}`
	if got, err := history.StatefulSetPatch(set); err != nil || string(got) != want {
		t.Errorf("patch\n got %s, %v\nwant %s", got, err, want)
	}
}

// TestStatefulSetPatchWithoutTemplate: JSON without spec.template (which
// kube-controller-manager's struct always has) is an ErrPatch, not a
// patch of nothing.
func TestStatefulSetPatchWithoutTemplate(t *testing.T) {
	set, err := decode.Typed[api.StatefulSet]().Decode([]byte(`{"metadata":{"name":"db"},"spec":{}}`))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := history.StatefulSetPatch(set); !errors.Is(err, history.ErrPatch) {
		t.Errorf("err = %v, want ErrPatch", err)
	}
}

// TestNewStatefulSetRevision: the statefulset controller's newRevision —
// data the patch, labels the template's plus the hash label, annotations
// the set's, controlled by the set, named with the collision count.
func TestNewStatefulSetRevision(t *testing.T) {
	set, err := decode.Typed[api.StatefulSet]().Decode([]byte(setJSON(
		`{"metadata":{"labels":{"app":"db"}},"spec":{"containers":[{"name":"c","image":"i"}]}}`)))
	if err != nil {
		t.Fatal(err)
	}
	patch, err := history.StatefulSetPatch(set)
	if err != nil {
		t.Fatal(err)
	}
	r, err := history.NewStatefulSetRevision(set, 4, set.Status.CollisionCount)
	if err != nil {
		t.Fatal(err)
	}
	hash := history.Hash(patch, ptr(int32(1)))
	if string(r.Data.Raw) != string(patch) || r.Name != "db-"+hash || r.Labels[history.HashLabel] != hash ||
		r.Labels["app"] != "db" || r.Annotations["team"] != "a" || r.Revision != 4 ||
		r.OwnerReferences[0].UID != "u1" || r.OwnerReferences[0].Kind != "StatefulSet" {
		t.Errorf("revision = %+v", r)
	}
	r.Annotations["x"] = "y"
	if set.Annotations["x"] != "" {
		t.Error("the revision shares the set's annotations")
	}
}

// TestApplyRevision: restoring a revision replaces the set's template
// whole (the strategic merge of "$patch": "replace") and keeps the rest of
// the set; recording the restored set again gives the revision's data,
// byte for byte, so the controller finds the revision it restored.
func TestApplyRevision(t *testing.T) {
	old, err := decode.Typed[api.StatefulSet]().Decode([]byte(setJSON(
		`{"metadata":{"labels":{"app":"db"}},"spec":{"containers":[{"name":"c","image":"v1","securityContext":{}}],"securityContext":{}}}`)))
	if err != nil {
		t.Fatal(err)
	}
	rev, err := history.NewStatefulSetRevision(old, 1, nil)
	if err != nil {
		t.Fatal(err)
	}
	for cname, codec := range setCodecs {
		cur, err := codec.Decode([]byte(setJSON(
			`{"metadata":{"labels":{"app":"db","v":"2"}},"spec":{"containers":[{"name":"c","image":"v2"}],"hostNetwork":true}}`)))
		if err != nil {
			t.Fatal(err)
		}
		restored, err := history.ApplyRevision(cur, rev)
		if err != nil {
			t.Fatalf("%s: %v", cname, err)
		}
		if restored.Spec.Template.Spec.Containers[0].Image != "v1" || restored.Spec.Template.Labels["v"] != "" ||
			restored.Spec.Template.Spec.HostNetwork || *restored.Spec.Replicas != 2 || restored.Name != "db" ||
			restored.Status.AvailableReplicas != 2 || cur.Spec.Template.Spec.Containers[0].Image != "v2" {
			t.Errorf("%s: restored %+v from %+v", cname, restored, cur)
		}
		again, err := history.StatefulSetPatch(restored)
		if err != nil || string(again) != string(rev.Data.Raw) {
			t.Errorf("%s: the restored set's patch\n got %s, %v\nwant %s", cname, again, err, rev.Data.Raw)
		}
	}
}

// TestApplyRevisionRefusesOtherPatches: kcm applies only the patches a
// StatefulSet's revisions hold; anything else is an ErrPatch rather than
// a wrong strategic merge.
func TestApplyRevisionRefusesOtherPatches(t *testing.T) {
	set, err := decode.Typed[api.StatefulSet]().Decode([]byte(setJSON(`{"metadata":{},"spec":{"containers":[]}}`)))
	if err != nil {
		t.Fatal(err)
	}
	for _, data := range []string{
		`{"spec":{"template":{"metadata":{}}}}`,
		`{"spec":{"template":{"$patch":"merge","metadata":{}}}}`,
		`{"spec":{"replicas":3,"template":{"$patch":"replace"}}}`,
		`{"metadata":{},"spec":{"template":{"$patch":"replace"}}}`,
		`{"spec":`,
		``,
	} {
		rev := &api.ControllerRevision{ObjectMeta: api.ObjectMeta{Name: "r"}, Data: api.RawExtension{Raw: []byte(data)}}
		if _, err := history.ApplyRevision(set, rev); !errors.Is(err, history.ErrPatch) {
			t.Errorf("data %s: err = %v, want ErrPatch", data, err)
		}
	}
}

// TestProtobufSetIsRefused: a StatefulSet read as protobuf (here the
// protocodec vector, the message k8s.io/api's generated code writes) has
// no JSON of its template; StatefulSetPatch, NewStatefulSetRevision and
// ApplyRevision refuse it (ErrProtobufSet, wrapped in ErrPatch) instead of
// encoding its typed fields, which would drop the fields kcm does not
// model and name another revision. Its DeepCopy is refused too.
func TestProtobufSetIsRefused(t *testing.T) {
	msg, err := os.ReadFile("../../kube/api/protocodec/testdata/vectors/statefulset.pb")
	if err != nil {
		t.Fatal(err)
	}
	rev := &api.ControllerRevision{ObjectMeta: api.ObjectMeta{Name: "r"},
		Data: api.RawExtension{Raw: []byte(`{"spec":{"template":{"$patch":"replace","metadata":{},"spec":{"containers":[]}}}}`)}}
	for cname, codec := range setCodecs {
		set, err := codec.(decode.ProtoDecoder[*api.StatefulSet]).DecodeProto(api.TypeMeta{APIVersion: "apps/v1", Kind: "StatefulSet"},
			append([]byte(nil), msg...))
		if err != nil {
			t.Fatalf("%s: %v", cname, err)
		}
		if !set.IsProto() || len(set.Spec.Template.Spec.Containers) == 0 {
			t.Fatalf("%s: IsProto %v, template %+v: want the vector's set, read as protobuf", cname, set.IsProto(), set.Spec.Template)
		}
		for what, s := range map[string]*api.StatefulSet{"read": set, "copied": mustCopy(t, set)} {
			for call, err := range map[string]error{
				"StatefulSetPatch":       second(history.StatefulSetPatch(s)),
				"NewStatefulSetRevision": second(history.NewStatefulSetRevision(s, 1, nil)),
				"ApplyRevision":          second(history.ApplyRevision(s, rev)),
			} {
				if !errors.Is(err, history.ErrProtobufSet) || !errors.Is(err, history.ErrPatch) {
					t.Errorf("%s, %s: %s: err = %v, want ErrProtobufSet and ErrPatch", cname, what, call, err)
				}
			}
		}
	}
}

func second[T any](_ T, err error) error { return err }
