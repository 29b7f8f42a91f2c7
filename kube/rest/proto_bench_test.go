package rest

import (
	"bytes"
	"os"
	"path/filepath"
	"testing"

	"github.com/kcmlab/kcm/internal/testing/podgen"
	"github.com/kcmlab/kcm/kube/api"
	"github.com/kcmlab/kcm/kube/api/decode"
	"github.com/kcmlab/kcm/kube/api/protowire"
)

// BenchmarkProtoList: the decode half of a LIST of podgen's realistic
// pods 0..2, repeated to 5000, in protobuf (the bytes apimachinery wrote
// for them, kube/api/protowire/testdata/podlist.pb) and in JSON, through the
// codecs a raw informer uses. Reported per pod.
func BenchmarkProtoList(b *testing.B) {
	const n = 5000
	pl, err := os.ReadFile(filepath.Join("..", "api", "protowire", "testdata", "podlist.pb"))
	if err != nil {
		b.Fatal(err)
	}
	u, err := protowire.Unwrap(pl)
	if err != nil {
		b.Fatal(err)
	}
	three, err := protowire.SplitList(u.Raw)
	if err != nil {
		b.Fatal(err)
	}
	var list []byte
	js := []byte(`{"kind":"PodList","apiVersion":"v1","metadata":{"resourceVersion":"1"},"items":[`)
	for i := range n {
		list = protowire.AppendBytes(list, 2, three.Items[i%3])
		if i > 0 {
			js = append(js, ',')
		}
		js = append(js, podgen.Pod(i%3)...)
	}
	js = append(js, "]}"...)
	pb := protowire.Wrap(nil, "v1", "PodList", list)
	run := func(b *testing.B, body []byte, proto bool, codec decode.Codec[*api.RawObject]) {
		b.SetBytes(int64(len(body)))
		b.ReportAllocs()
		pd, _ := decode.AsProto(codec)
		for range b.N {
			got := 0
			fn := func(*api.RawObject) error { got++; return nil }
			var err error
			if proto {
				_, err = decodeProtoList(bytes.NewReader(body), pd, api.TypeMeta{}, 0, fn)
			} else {
				_, err = decodeList(bytes.NewReader(body), codec, 0, fn)
			}
			if err != nil || got != n {
				b.Fatalf("%d items, %v", got, err)
			}
		}
		b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*n), "ns/pod")
	}
	b.Run("json-raw-stripped", func(b *testing.B) { run(b, js, false, decode.StrippingManagedFields(decode.Raw())) })
	b.Run("proto-wire-stripped", func(b *testing.B) { run(b, pb, true, decode.StrippingManagedFields(decode.Wire())) })
	b.Run("proto-wire", func(b *testing.B) { run(b, pb, true, decode.Wire()) })
}
