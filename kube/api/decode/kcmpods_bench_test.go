package decode_test

import (
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"strconv"
	"testing"
	"time"

	"github.com/kcmlab/kcm/kube/api"
	"github.com/kcmlab/kcm/kube/api/decode"
	"github.com/kcmlab/kcm/kube/api/protocodec"
)

// kcmPods returns n pod messages as kube-apiserver v1.37.2 wrote them in
// the manager benchmark's sync population (internal/testing/managerbench:
// pods a ReplicaSet of kube-controller-manager made, marked Ready, read
// as protobuf with managedFields and the fields kcm does not model —
// testdata/kcmpods holds one pod of each of two Deployments, read from
// the cluster). Pod i is the message of Deployment i/(n/2)'s pod with
// the name, uid, resourceVersion and timestamps a replica has of its
// own, written by MarshalMerge as the apiserver writes them.
func kcmPods(tb testing.TB, n int) [][]byte {
	tb.Helper()
	files, err := filepath.Glob("testdata/kcmpods/*.pb")
	if err != nil || len(files) == 0 {
		tb.Fatalf("kcmpods: %v (%d files)", err, len(files))
	}
	out := make([][]byte, n)
	base := time.Date(2026, 12, 6, 21, 0, 0, 0, time.UTC)
	for i := range n {
		vec, err := os.ReadFile(files[i*len(files)/n])
		if err != nil {
			tb.Fatal(err)
		}
		var orig api.Pod
		if err := protocodec.Unmarshal(vec, &orig); err != nil {
			tb.Fatal(err)
		}
		p := orig
		p.Status.Conditions = append([]api.PodCondition(nil), orig.Status.Conditions...)
		p.Name = fmt.Sprintf("%s%05d", orig.GenerateName, i)
		p.UID = fmt.Sprintf("00000000-0000-4000-8000-%012d", i)
		p.ResourceVersion = strconv.Itoa(100000 + 3*i)
		created := base.Add(time.Duration(i) * time.Millisecond).Truncate(time.Second)
		p.CreationTimestamp = api.Time{Time: created}
		for j := range p.Status.Conditions {
			p.Status.Conditions[j].LastTransitionTime = api.Time{Time: created.Add(20 * time.Second)}
		}
		if out[i], err = protocodec.MarshalMerge(vec, &orig, &p); err != nil {
			tb.Fatal(err)
		}
	}
	return out
}

// BenchmarkKCMPods decodes the sync benchmark's pods (kcmPods) as the
// manager's pod informer does — StrippingManagedFields(CompactCached)
// from a read buffer — as a LIST's items (listed: the hint is the pod
// decoded before) and as watch events of cached pods (cached: the hint
// is the pod's cached version). B/pod is the live heap per cached pod
// after the listed decode of n pods (inputs excluded).
func BenchmarkKCMPods(b *testing.B) {
	const n = 10000
	msgs := kcmPods(b, n)
	tm := api.TypeMeta{APIVersion: "v1", Kind: "Pod"}
	heap := func() uint64 {
		runtime.GC()
		var ms runtime.MemStats
		runtime.ReadMemStats(&ms)
		return ms.HeapAlloc
	}
	for _, variant := range []string{"listed", "cached"} {
		b.Run(variant, func(b *testing.B) {
			cache := make(map[string]*api.Pod, n)
			find := func(ns, name string) (*api.Pod, bool) {
				if variant == "listed" {
					return nil, false
				}
				p, ok := cache[ns+"/"+name]
				return p, ok
			}
			c := decode.StrippingManagedFields(decode.CompactCached[api.Pod](find))
			pd, _ := decode.AsProto(c)
			before := heap()
			for i := range n {
				p, err := decode.BorrowedProto(pd, tm, msgs[i])
				if err != nil {
					b.Fatal(err)
				}
				cache[p.Key()] = p
			}
			perPod := (float64(heap()) - float64(before)) / n
			b.ReportAllocs()
			b.ResetTimer()
			for i := 0; b.Loop(); i++ {
				p, err := decode.BorrowedProto(pd, tm, msgs[i%n])
				if err != nil {
					b.Fatal(err)
				}
				if variant == "cached" {
					cache[p.Key()] = p
				}
			}
			b.ReportMetric(perPod, "B/pod")
			runtime.KeepAlive(cache)
		})
	}
}
