package decode_test

import (
	"runtime"
	"testing"

	"github.com/kcmlab/kcm/internal/testing/podgen"
	"github.com/kcmlab/kcm/kube/api"
	"github.com/kcmlab/kcm/kube/api/decode"
	"github.com/kcmlab/kcm/kube/api/protocodec"
)

// BenchmarkCacheHeapPerPod decodes podgen's realistic pods (managedFields
// included) as an informer's typed cache does —
// StrippingManagedFields(CompactCached), each object kept in a map that
// find reads — from JSON and from protobuf, and reports the live heap per
// cached pod (inputs excluded: they are allocated before the first
// measurement and live until after the last). The protobuf messages are
// protocodec.Marshal of the JSON decode, so they lack the fields kcm does
// not model (and managedFields, which the cache drops anyway): a lower
// bound of the apiserver's message.
func BenchmarkCacheHeapPerPod(b *testing.B) {
	const n = 5000
	jsons := make([][]byte, n)
	msgs := make([][]byte, n)
	msgBytes := 0
	for i := range n {
		jsons[i] = podgen.Pod(i)
		p, err := decode.Typed[api.Pod]().Decode(append([]byte(nil), jsons[i]...))
		if err != nil {
			b.Fatal(err)
		}
		if msgs[i], err = protocodec.Marshal(p); err != nil {
			b.Fatal(err)
		}
		msgBytes += len(msgs[i])
	}
	tm := api.TypeMeta{APIVersion: "v1", Kind: "Pod"}
	heap := func() uint64 {
		runtime.GC()
		var ms runtime.MemStats
		runtime.ReadMemStats(&ms)
		return ms.HeapAlloc
	}
	for _, proto := range []bool{false, true} {
		name := "json"
		if proto {
			name = "proto"
		}
		b.Run(name, func(b *testing.B) {
			var perPod float64
			for range b.N {
				cache := make(map[string]*api.Pod, n)
				find := func(ns, name string) (*api.Pod, bool) { p, ok := cache[ns+"/"+name]; return p, ok }
				c := decode.StrippingManagedFields(decode.CompactCached[api.Pod](find))
				pd, _ := decode.AsProto(c)
				before := heap()
				for i := range n {
					var p *api.Pod
					var err error
					if proto {
						p, err = decode.BorrowedProto(pd, tm, msgs[i])
					} else {
						p, err = decode.Borrowed(c, jsons[i])
					}
					if err != nil {
						b.Fatal(err)
					}
					cache[p.Key()] = p
				}
				perPod += (float64(heap()) - float64(before)) / n
				runtime.KeepAlive(cache)
			}
			b.ReportMetric(perPod/float64(b.N), "B/pod")
			if proto {
				b.ReportMetric(float64(msgBytes)/n, "msg-B/pod")
			}
		})
	}
}

// BenchmarkCacheDecodePod is the CPU of one pod decoded as a typed cache
// decodes it (StrippingManagedFields(CompactCached), from a read
// buffer), from JSON and from protobuf (see BenchmarkCacheHeapPerPod for
// the messages), into a cache of 1000 pods.
func BenchmarkCacheDecodePod(b *testing.B) {
	const n = 1000
	jsons := make([][]byte, n)
	msgs := make([][]byte, n)
	for i := range n {
		jsons[i] = podgen.Pod(i)
		p, err := decode.Typed[api.Pod]().Decode(append([]byte(nil), jsons[i]...))
		if err != nil {
			b.Fatal(err)
		}
		if msgs[i], err = protocodec.Marshal(p); err != nil {
			b.Fatal(err)
		}
	}
	tm := api.TypeMeta{APIVersion: "v1", Kind: "Pod"}
	for _, proto := range []bool{false, true} {
		name := "json"
		if proto {
			name = "proto"
		}
		b.Run(name, func(b *testing.B) {
			cache := make(map[string]*api.Pod, n)
			find := func(ns, name string) (*api.Pod, bool) { p, ok := cache[ns+"/"+name]; return p, ok }
			c := decode.StrippingManagedFields(decode.CompactCached[api.Pod](find))
			pd, _ := decode.AsProto(c)
			b.ReportAllocs()
			for i := 0; b.Loop(); i++ {
				var p *api.Pod
				var err error
				if proto {
					p, err = decode.BorrowedProto(pd, tm, msgs[i%n])
				} else {
					p, err = decode.Borrowed(c, jsons[i%n])
				}
				if err != nil {
					b.Fatal(err)
				}
				cache[p.Key()] = p
			}
		})
	}
}
