package protocodec_test

import (
	"os"
	"testing"

	"github.com/kcmlab/kcm/kube/api"
	"github.com/kcmlab/kcm/kube/api/decode"
	"github.com/kcmlab/kcm/kube/api/protocodec"
)

// BenchmarkPod decodes one realistic pod (testdata/vectors/pod: five
// containers' worth of spec and status, managedFields included) from its
// protobuf with Unmarshal and UnmarshalAliasing and from its JSON with kcm's JSON codecs, Typed
// and Compact, and writes it back with Marshal and MarshalMerge.
func BenchmarkPod(b *testing.B) {
	pb, err := os.ReadFile("testdata/vectors/pod.pb")
	if err != nil {
		b.Fatal(err)
	}
	js, err := os.ReadFile("testdata/vectors/pod.json")
	if err != nil {
		b.Fatal(err)
	}
	var pod api.Pod
	if err := protocodec.Unmarshal(pb, &pod); err != nil {
		b.Fatal(err)
	}
	changed := pod
	changed.Spec.NodeName = "node-2"
	run := func(name string, size int, fn func() error) {
		b.Run(name, func(b *testing.B) {
			b.ReportAllocs()
			b.SetBytes(int64(size))
			for b.Loop() {
				if err := fn(); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
	typed, compact := decode.Typed[api.Pod](), decode.Compact[api.Pod]()
	run("protobuf-Unmarshal", len(pb), func() error { var p api.Pod; return protocodec.Unmarshal(pb, &p) })
	run("protobuf-UnmarshalAliasing", len(pb), func() error { var p api.Pod; return protocodec.UnmarshalAliasing(pb, &p) })
	run("json-Typed", len(js), func() error { _, err := typed.Decode(js); return err })
	run("json-Compact", len(js), func() error { _, err := compact.Decode(js); return err })
	run("protobuf-Marshal", len(pb), func() error { _, err := protocodec.Marshal(&pod); return err })
	run("protobuf-MarshalMerge-unchanged", len(pb), func() error { _, err := protocodec.MarshalMerge(pb, &pod, &pod); return err })
	run("protobuf-MarshalMerge-nodeName", len(pb), func() error { _, err := protocodec.MarshalMerge(pb, &pod, &changed); return err })
}
