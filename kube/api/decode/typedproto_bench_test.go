package decode_test

import (
	"fmt"
	"os"
	"runtime"
	"strconv"
	"strings"
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
// bound of the apiserver's message; proto-unmodelled's are upstream's
// pod vector with its unmodelled fields (see below).
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
	// Pods as upstream writes them, with the fields kcm does not model
	// (and managedFields): protocodec's pod vector, named, numbered and
	// addressed per pod by MarshalMerge — its unmodelled fields the same
	// in every pod, as in the replicas of one workload.
	vec, err := os.ReadFile(vectorDir + "pod.pb")
	if err != nil {
		b.Fatal(err)
	}
	var vpod api.Pod
	if err := protocodec.Unmarshal(vec, &vpod); err != nil {
		b.Fatal(err)
	}
	rich := make([][]byte, n)
	richBytes := 0
	for i := range n {
		p := vpod
		p.Name, p.UID = fmt.Sprintf("web-%d", i), fmt.Sprintf("00000000-0000-4000-8000-%012d", i)
		p.ResourceVersion = strconv.Itoa(1000 + i)
		p.Status.PodIP = fmt.Sprintf("10.1.%d.%d", i/250, i%250)
		p.Spec.NodeName = fmt.Sprintf("node-%d", i%100)
		if rich[i], err = protocodec.MarshalMerge(vec, &vpod, &p); err != nil {
			b.Fatal(err)
		}
		richBytes += len(rich[i])
	}
	tm := api.TypeMeta{APIVersion: "v1", Kind: "Pod"}
	heap := func() uint64 {
		runtime.GC()
		var ms runtime.MemStats
		runtime.ReadMemStats(&ms)
		return ms.HeapAlloc
	}
	for _, variant := range []string{"json", "proto", "proto-unmodelled"} {
		proto := variant != "json"
		msgs := msgs
		if variant == "proto-unmodelled" {
			msgs = rich
		}
		b.Run(variant, func(b *testing.B) {
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
			switch variant {
			case "proto":
				b.ReportMetric(float64(msgBytes)/n, "msg-B/pod")
			case "proto-unmodelled":
				b.ReportMetric(float64(richBytes)/n, "msg-B/pod")
			}
		})
	}
}

// BenchmarkCacheDecodePod is the CPU of one pod decoded as a typed cache
// decodes it (StrippingManagedFields(CompactCached), from a read
// buffer), from JSON and from protobuf (see BenchmarkCacheHeapPerPod for
// the messages), into a cache of 1000 pods: as a watch event of a
// cached pod (compared with its cached version), and as a LIST's item
// (-listed: compared with the pod decoded before).
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
	for _, variant := range []string{"json", "proto", "json-listed", "proto-listed"} {
		proto := strings.HasPrefix(variant, "proto")
		listed := strings.HasSuffix(variant, "-listed") // as a LIST: no cached version
		b.Run(variant, func(b *testing.B) {
			cache := make(map[string]*api.Pod, n)
			find := func(ns, name string) (*api.Pod, bool) {
				if listed {
					return nil, false
				}
				p, ok := cache[ns+"/"+name]
				return p, ok
			}
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
