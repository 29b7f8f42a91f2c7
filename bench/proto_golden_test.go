package bench_test

import (
	"bytes"
	"flag"
	"os"
	"path/filepath"
	"testing"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"

	"github.com/kcmlab/kcm/bench"
)

var updateGolden = flag.Bool("update-proto-golden", false, "rewrite kube/api/protowire/testdata from apimachinery's serializers")

// protoTestdata is where kube/api/protowire's tests read real protobuf bytes:
// the root module cannot import apimachinery, so this test writes them
// (with -update-proto-golden) and checks that they are still what
// apimachinery v0.37 produces.
const protoTestdata = "../kube/api/protowire/testdata"

// TestProtoGolden: the protobuf testdata of kube/api/protowire is what
// apimachinery's serializers write for podgen's pods — one enveloped pod,
// an enveloped PodList of three with ListMeta, and a watch stream.
func TestProtoGolden(t *testing.T) {
	files := map[string][]byte{}
	pod, err := bench.PodgenPod(0)
	if err != nil {
		t.Fatal(err)
	}
	if files["pod.pb"], err = bench.EncodeProto(pod); err != nil {
		t.Fatal(err)
	}
	remaining := int64(997)
	l := &corev1.PodList{TypeMeta: metav1.TypeMeta{APIVersion: "v1", Kind: "PodList"},
		ListMeta: metav1.ListMeta{ResourceVersion: "4242", Continue: "c2VjcmV0LWNvbnRpbnVl", RemainingItemCount: &remaining}}
	for i := range 3 {
		p, err := bench.PodgenPod(i)
		if err != nil {
			t.Fatal(err)
		}
		p.TypeMeta = metav1.TypeMeta{}
		l.Items = append(l.Items, *p)
	}
	if files["podlist.pb"], err = bench.EncodeProto(l); err != nil {
		t.Fatal(err)
	}
	bookmark := &corev1.Pod{TypeMeta: metav1.TypeMeta{APIVersion: "v1", Kind: "Pod"},
		ObjectMeta: metav1.ObjectMeta{ResourceVersion: "5000",
			Annotations: map[string]string{metav1.InitialEventsAnnotationKey: "true"}}}
	var events []metav1.WatchEvent
	for k, o := range []struct {
		typ string
		obj runtime.Object
	}{{"ADDED", pod}, {"MODIFIED", &l.Items[1]}, {"DELETED", &l.Items[2]}, {"BOOKMARK", bookmark}} {
		if p, ok := o.obj.(*corev1.Pod); ok && p.Kind == "" {
			p = p.DeepCopy()
			p.TypeMeta = metav1.TypeMeta{APIVersion: "v1", Kind: "Pod"}
			o.obj = p
		}
		raw, err := bench.EncodeProto(o.obj)
		if err != nil {
			t.Fatalf("event %d: %v", k, err)
		}
		events = append(events, metav1.WatchEvent{Type: o.typ, Object: runtime.RawExtension{Raw: raw}})
	}
	if files["watch.pb"], err = bench.EncodeProtoWatch(events...); err != nil {
		t.Fatal(err)
	}
	for name, want := range files {
		path := filepath.Join(protoTestdata, name)
		if *updateGolden {
			if err := os.WriteFile(path, want, 0o644); err != nil {
				t.Fatal(err)
			}
			continue
		}
		got, err := os.ReadFile(path)
		if err != nil {
			t.Fatalf("%v (run with -update-proto-golden to write it)", err)
		}
		if !bytes.Equal(got, want) {
			t.Errorf("%s differs from what apimachinery writes now (%d bytes, want %d): rerun with -update-proto-golden", path, len(got), len(want))
		}
	}
}
