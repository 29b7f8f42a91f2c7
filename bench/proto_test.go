package bench_test

import (
	"fmt"
	"reflect"
	"runtime"
	"sync"
	"testing"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/client-go/kubernetes/scheme"

	"github.com/kcmlab/kcm/bench"
	"github.com/kcmlab/kcm/internal/testing/podgen"
	"github.com/kcmlab/kcm/kube/api"
	"github.com/kcmlab/kcm/kube/api/decode"
	"github.com/kcmlab/kcm/kube/api/protowire"
)

// kube/api/protowire's micro-benchmarks (issues 13, 34): one pod decoded
// by kube/api/protowire's metadata scan from its protobuf message, by kcm's
// RawObject codec from its JSON, and by client-go from either; and the
// bytes and live heap each keeps per pod. Inputs are podgen's pods, the
// protobuf bytes written by apimachinery's serializer from the same pods.

// protoInputs are podgen's pods 0..n-1 in both encodings, list-item form.
type protoInputs struct {
	pb, js   [][]byte // list items: the Pod message, the item JSON
	jsTyped  [][]byte // the pod's JSON with apiVersion and kind (a GET)
	pbBody   []byte   // the whole PodList, enveloped
	jsBody   []byte   // the whole PodList JSON
	pbMsgLen int      // sum of len(pb)
}

var (
	protoOnce sync.Once
	protoIn   *protoInputs
	protoErr  error
)

// protoPods is how many distinct pods the benchmarks cycle through: a
// ReplicaSet's worth and more, so kcm's family and sharing tables see
// siblings as they do in a cache.
const protoPods = 2000

func loadProtoInputs(tb testing.TB) *protoInputs {
	tb.Helper()
	protoOnce.Do(func() {
		in := &protoInputs{}
		in.pbBody, in.jsBody, protoErr = bench.PodgenProtoList(protoPods, "4242")
		if protoErr != nil {
			return
		}
		u, err := protowire.Unwrap(in.pbBody)
		if err != nil {
			protoErr = err
			return
		}
		l, err := protowire.SplitList(u.Raw)
		if err != nil {
			protoErr = err
			return
		}
		in.pb, in.js = l.Items, podgen.Items(protoPods)
		for i := range protoPods {
			in.jsTyped = append(in.jsTyped, podgen.Pod(i))
			in.pbMsgLen += len(in.pb[i])
		}
		protoIn = in
	})
	if protoErr != nil {
		tb.Fatal(protoErr)
	}
	return protoIn
}

// protoDecoder decodes pod i of the inputs and returns what a cache would
// hold.
type protoDecoder struct {
	name   string
	decode func(in *protoInputs, i int) (any, error)
}

var podTypeMeta = api.TypeMeta{APIVersion: "v1", Kind: "Pod"}

var kcmRawStrip = decode.StrippingManagedFields(decode.Raw())

// kcmWireStrip is what kcm's raw informers decode protobuf with
// (informer.ForRaw on a protobuf client): a RawObject holding its
// message, managedFields dropped; kcmWireFamilies also keeps it in its
// family (decode.WireFamilies).
var (
	kcmWireStrip, _    = decode.AsProto(decode.StrippingManagedFields(decode.Wire()))
	kcmWireFamilies, _ = decode.AsProto(decode.StrippingManagedFields(decode.WireFamilies()))
)

var protoDecoders = []protoDecoder{
	{"protowire-scan", func(in *protoInputs, i int) (any, error) {
		return protowire.DecodeMessage(podTypeMeta, in.pb[i], protowire.Options{DropManagedFields: true})
	}},
	{"protowire-family", func(in *protoInputs, i int) (any, error) {
		return protowire.DecodeMessage(podTypeMeta, in.pb[i], protowire.Options{DropManagedFields: true, FamilyDelta: true})
	}},
	{"kcm-wire-proto", func(in *protoInputs, i int) (any, error) {
		return decode.BorrowedProto(kcmWireStrip, podTypeMeta, in.pb[i])
	}},
	{"kcm-wire-proto-families", func(in *protoInputs, i int) (any, error) {
		return decode.BorrowedProto(kcmWireFamilies, podTypeMeta, in.pb[i])
	}},
	{"kcm-json-raw", func(in *protoInputs, i int) (any, error) {
		return decode.Borrowed(kcmRawStrip, in.js[i])
	}},
	{"client-go-proto", func(in *protoInputs, i int) (any, error) {
		p := &corev1.Pod{}
		if err := p.Unmarshal(in.pb[i]); err != nil {
			return nil, err
		}
		p.ManagedFields = nil // what client-go-strip's transform does
		return p, nil
	}},
	{"client-go-json", func(in *protoInputs, i int) (any, error) {
		obj, _, err := scheme.Codecs.UniversalDeserializer().Decode(in.jsTyped[i], nil, &corev1.Pod{})
		if err != nil {
			return nil, err
		}
		obj.(*corev1.Pod).ManagedFields = nil
		return obj, nil
	}},
}

// BenchmarkProtoDecodePod: the CPU and allocations of decoding one pod
// as a cache keeps it, per decoder. protowire-scan reads the metadata and
// keeps the message less managedFields; protowire-family keeps it as a
// delta against its ReplicaSet's first pod (Options.FamilyDelta);
// kcm-wire-proto is kcm's informer path for RawObject on protobuf
// (decode.Wire, stripped), kcm-wire-proto-families the same kept in
// families (decode.WireFamilies);
// kcm-json-raw is kcm's informer path for RawObject on JSON (list
// items decoded borrowed, managedFields stripped); the client-go rows
// decode a whole v1.Pod.
func BenchmarkProtoDecodePod(b *testing.B) {
	in := loadProtoInputs(b)
	for _, d := range protoDecoders {
		b.Run(d.name, func(b *testing.B) {
			b.ReportAllocs()
			cpu0 := bench.CPUTime()
			i := 0
			for b.Loop() {
				if _, err := d.decode(in, i); err != nil {
					b.Fatal(err)
				}
				if i++; i == protoPods {
					i = 0
				}
			}
			b.ReportMetric(float64((bench.CPUTime()-cpu0).Nanoseconds())/float64(b.N), "cpu-ns/op")
		})
	}
}

// BenchmarkProtoHeap: the live heap a cache of protoPods decoded pods
// holds per pod (the objects alone: no informer, no index), per decoder.
func BenchmarkProtoHeap(b *testing.B) {
	in := loadProtoInputs(b)
	for _, d := range protoDecoders {
		b.Run(d.name, func(b *testing.B) {
			var perPod float64
			for range b.N {
				held := make([]any, protoPods)
				base := bench.LiveHeap()
				for i := range protoPods {
					o, err := d.decode(in, i)
					if err != nil {
						b.Fatal(err)
					}
					held[i] = o
				}
				perPod += (float64(bench.LiveHeap()) - float64(base)) / protoPods
				runtime.KeepAlive(held)
			}
			b.ReportMetric(perPod/float64(b.N), "B/pod")
		})
	}
}

// BenchmarkProtoWireBytes: bytes per pod as served (a LIST item) and as
// kept with managedFields dropped, JSON and protobuf. No time is
// measured; the op does nothing.
func BenchmarkProtoWireBytes(b *testing.B) {
	in := loadProtoInputs(b)
	var js, jsStrip, pbStrip int
	for i := range protoPods {
		js += len(in.js[i])
		s, err := decode.StripManagedFields(in.js[i])
		if err != nil {
			b.Fatal(err)
		}
		jsStrip += len(s)
		o, err := protowire.DecodeMessage(podTypeMeta, in.pb[i], protowire.Options{DropManagedFields: true})
		if err != nil {
			b.Fatal(err)
		}
		pbStrip += len(o.Message())
	}
	for b.Loop() {
	}
	n := float64(protoPods)
	b.ReportMetric(float64(js)/n, "json-B/pod")
	b.ReportMetric(float64(in.pbMsgLen)/n, "proto-B/pod")
	b.ReportMetric(float64(jsStrip)/n, "json-strip-B/pod")
	b.ReportMetric(float64(pbStrip)/n, "proto-strip-B/pod")
	b.ReportMetric(float64(len(in.jsBody))/n, "json-list-B/pod")
	b.ReportMetric(float64(len(in.pbBody))/n, "proto-list-B/pod")
}

// TestProtoScanAgreesWithClientGo: for every input pod, the metadata the
// protobuf scan reads equals what kcm's RawObject reads from the JSON, and
// the kept message with managedFields dropped is, to client-go's
// generated Unmarshal, the whole pod without managedFields.
func TestProtoScanAgreesWithClientGo(t *testing.T) {
	in := loadProtoInputs(t)
	for i := 0; i < protoPods; i += 97 {
		o, err := protowire.DecodeMessage(podTypeMeta, in.pb[i], protowire.Options{DropManagedFields: true})
		if err != nil {
			t.Fatal(err)
		}
		raw, err := decode.Raw().Decode(in.js[i])
		if err != nil {
			t.Fatal(err)
		}
		if a, b := fmt.Sprint(metaFields(&o.ObjectMeta)), fmt.Sprint(metaFields(&raw.ObjectMeta)); a != b {
			t.Errorf("pod %d: protobuf metadata %s, JSON %s", i, a, b)
		}
		want := &corev1.Pod{}
		if err := want.Unmarshal(in.pb[i]); err != nil {
			t.Fatal(err)
		}
		if len(want.ManagedFields) == 0 {
			t.Fatalf("pod %d has no managedFields: nothing is checked", i)
		}
		want.ManagedFields = nil
		got := &corev1.Pod{}
		if err := got.Unmarshal(o.Message()); err != nil {
			t.Fatalf("pod %d: client-go cannot read the kept message: %v", i, err)
		}
		if !reflect.DeepEqual(got, want) {
			t.Errorf("pod %d: kept message reads\n%v\nwant\n%v", i, got, want)
		}
	}
}

// metaFields lists m's modelled fields, times in UTC seconds.
func metaFields(m *api.ObjectMeta) []any {
	var del any
	if m.DeletionTimestamp != nil {
		del = m.DeletionTimestamp.Unix()
	}
	var owners []string
	for _, r := range m.OwnerReferences {
		owners = append(owners, fmt.Sprint(r.APIVersion, r.Kind, r.Name, r.UID, r.IsController(), r.BlockOwnerDeletion != nil && *r.BlockOwnerDeletion))
	}
	return []any{m.Name, m.GenerateName, m.Namespace, m.UID, m.ResourceVersion, m.Generation, m.CreationTimestamp.Unix(), del,
		m.DeletionGracePeriodSeconds, m.Labels, m.Annotations, owners, m.Finalizers}
}
