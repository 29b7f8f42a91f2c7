package rest_test

import (
	"testing"

	"github.com/kcmlab/kcm/internal/testing/podgen"
	"github.com/kcmlab/kcm/kube/api"
	"github.com/kcmlab/kcm/kube/api/decode"
	"github.com/kcmlab/kcm/kube/api/protocodec"
	"github.com/kcmlab/kcm/kube/api/protowire"
	"github.com/kcmlab/kcm/kube/internal/jsonx"
	"github.com/kcmlab/kcm/kube/rest"
)

// BenchmarkWriteBody is the client's CPU for the body of one pod's write
// (podgen's realistic pod): a pod built in code as JSON (what kube/rest
// sends) and as an enveloped protobuf message (protocodec.Marshal), and a
// pod read from the server and changed, as JSON (the three-way merge onto
// its JSON, rest.EncodeForUpdate) and as protobuf (MarshalMerge onto its
// message after decoding it, what kube/rest sends for a pod read as
// protobuf).
func BenchmarkWriteBody(b *testing.B) {
	js := podgen.Pod(7)
	typed := decode.Typed[api.Pod]()
	read, err := typed.Decode(append([]byte(nil), js...))
	if err != nil {
		b.Fatal(err)
	}
	built := *read
	built.SetRaw(nil)
	msg, err := protocodec.Marshal(read)
	if err != nil {
		b.Fatal(err)
	}
	pd, _ := decode.AsProto(typed)
	readPB, err := pd.DecodeProto(api.TypeMeta{APIVersion: "v1", Kind: "Pod"}, msg)
	if err != nil {
		b.Fatal(err)
	}
	changed := func(p *api.Pod) *api.Pod {
		c, err := api.DeepCopy(p)
		if err != nil {
			b.Fatal(err)
		}
		c.Labels = map[string]string{"touched": "yes"}
		return c
	}
	afterJSON, afterPB := changed(read), changed(readPB)
	b.Run("built/json", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			if _, err := jsonx.Marshal(&built); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("built/proto", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			m, err := protocodec.Marshal(&built)
			if err != nil {
				b.Fatal(err)
			}
			_ = protowire.Wrap(nil, "v1", "Pod", m)
		}
	})
	b.Run("read/json", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			if _, err := rest.EncodeForUpdate(typed, afterJSON); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("read/proto", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			orig, _ := afterPB.OriginalProto()
			var before api.Pod
			if err := protocodec.Unmarshal(orig, &before); err != nil {
				b.Fatal(err)
			}
			m, err := protocodec.MarshalMerge(orig, &before, afterPB)
			if err != nil {
				b.Fatal(err)
			}
			_ = protowire.Wrap(nil, "v1", "Pod", m)
		}
	})
}
