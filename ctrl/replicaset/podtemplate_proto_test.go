package replicaset

import (
	"bytes"
	"errors"
	"reflect"
	"testing"

	"github.com/kcmlab/kcm/ctrl/controllerref"
	"github.com/kcmlab/kcm/kube/api"
	"github.com/kcmlab/kcm/kube/api/decode"
	"github.com/kcmlab/kcm/kube/api/protocodec"
)

// protoRS is newRS("web", 1) read as protobuf, its template's spec given
// extra, a field kcm's PodSpec does not model appended (nil: none).
func protoRS(t testing.TB, extra []byte) (*api.ReplicaSet, []byte) {
	t.Helper()
	rs := newRS("web", 1, "")
	rs.Spec.Template.Annotations = map[string]string{"note": "n"}
	rs.Spec.Template.Finalizers = []string{"example.com/f"}
	msg, err := protocodec.Marshal(rs)
	if err != nil {
		t.Fatal(err)
	}
	spec, _, err := protocodec.Field(msg, 2, 3, 2)
	if err != nil {
		t.Fatal(err)
	}
	spec = append(bytes.Clone(spec), extra...)
	if msg, err = protocodec.SetField(msg, spec, 2, 3, 2); err != nil {
		t.Fatal(err)
	}
	p, ok := decode.AsProto(decode.StrippingManagedFields(decode.Compact[api.ReplicaSet]()))
	if !ok {
		t.Fatal("ReplicaSets are not read as protobuf")
	}
	out, err := p.DecodeProto(rs.TypeMeta, msg)
	if err != nil {
		t.Fatal(err)
	}
	return out, spec
}

// TestNewPodProto: the pod of a ReplicaSet read as protobuf is a Pod
// message whose spec is the template's PodSpec message byte for byte
// (here with a pod securityContext {} and a dnsConfig, PodSpec fields 14
// and 26, which kcm does not model) and whose metadata is what
// GetPodFromTemplate copies — the metadata newPodJSON writes — with no
// status; createPods sends it as a protobuf body.
func TestNewPodProto(t *testing.T) {
	unmodelled := []byte{0x72, 0x00, 0xd2, 0x01, 0x07, 0x1a, 0x05, 0x0a, 0x03, 'n', 'd', 'o'} // 14: {}, 26: {options: [{name: "ndo"}]}
	rs, spec := protoRS(t, unmodelled)
	msg, err := NewPodFor(rs)
	if err != nil {
		t.Fatal(err)
	}
	got, found, err := protocodec.Field(msg, 2)
	if err != nil || !found || !bytes.Equal(got, spec) {
		t.Fatalf("pod spec %x (%v), want the template's %x", got, err, spec)
	}
	if _, found, _ := protocodec.Field(msg, 3); found {
		t.Fatal("the pod has a status")
	}
	var pod api.Pod
	if err := protocodec.Unmarshal(msg, &pod); err != nil {
		t.Fatal(err)
	}
	want := api.ObjectMeta{GenerateName: "web-", Namespace: "ns", Labels: rs.Spec.Template.Labels,
		Annotations: rs.Spec.Template.Annotations, Finalizers: rs.Spec.Template.Finalizers,
		OwnerReferences: []api.OwnerReference{controllerref.NewControllerRef(&rs.ObjectMeta, "apps/v1", "ReplicaSet")}}
	if !reflect.DeepEqual(pod.ObjectMeta, want) {
		t.Fatalf("pod metadata %+v, want %+v", pod.ObjectMeta, want)
	}
	body, err := newPodBody(rs)
	if err != nil {
		t.Fatal(err)
	}
	obj, err := body()
	if err != nil || !obj.IsProto() || !bytes.Equal(obj.Proto(), msg) || obj.Kind != "Pod" || obj.APIVersion != "v1" {
		t.Fatalf("the pod body is not the Pod's message (%v)", err)
	}
	rs.Spec.Template.Labels = nil
	if _, err := NewPodFor(rs); !errors.Is(err, ErrNoLabels) {
		t.Fatalf("no labels: %v", err)
	}
}

// BenchmarkNewPodBody: the body of one pod of a cached ReplicaSet, per
// object, for a ReplicaSet read as JSON and the same ReplicaSet read as
// protobuf, its template's spec with a pod securityContext {} and a
// dnsConfig (fields kcm does not model): the template's pod built
// (newPodBody) and the RawObject createPod sends made from it.
func BenchmarkNewPodBody(b *testing.B) {
	pb, _ := protoRS(b, []byte{0x72, 0x00, 0xd2, 0x01, 0x07, 0x1a, 0x05, 0x0a, 0x03, 'n', 'd', 'o'})
	js := newRS("web", 1, "")
	js.Spec.Template.Annotations = map[string]string{"note": "n"}
	js.Spec.Template.Finalizers = []string{"example.com/f"}
	js = reread(js, `"securityContext":{},"dnsConfig":{"options":[{"name":"ndo"}]}`)
	for _, c := range []struct {
		name string
		rs   *api.ReplicaSet
	}{{"json", js}, {"protobuf", pb}} {
		b.Run(c.name, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				body, err := newPodBody(c.rs)
				if err != nil {
					b.Fatal(err)
				}
				if _, err := body(); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
