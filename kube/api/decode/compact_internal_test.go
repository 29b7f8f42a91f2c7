package decode

import (
	"reflect"
	"strconv"
	"syscall"
	"testing"
	"time"
	"unsafe"

	"github.com/kcmlab/kcm/internal/testing/podgen"
	"github.com/kcmlab/kcm/kube/api"
	"github.com/kcmlab/kcm/kube/internal/jsonx"
)

// TestFastPathTakesTheApiserversJSON: the pods the apiserver writes (as
// podgen makes them, managedFields cut or not, with unmodelled members
// and nulls) decode on the fast path; the slow path is for the unusual.
func TestFastPathTakesTheApiserversJSON(t *testing.T) {
	ct := compactTypeOf[api.Pod]()
	inputs := map[string][]byte{
		"unmodelled members": []byte(`{"apiVersion":"v1","kind":"Pod","metadata":{"name":"p","uid":"u","labels":{"a":"b"}},` +
			`"spec":{"affinity":{},"securityContext":{"runAsUser":1},"containers":[{"name":"c","image":"i","securityContext":{}}],"serviceAccount":"default"},` +
			`"status":{"conditions":[{"type":"Ready","status":"True","lastProbeTime":null,"lastTransitionTime":"2024-01-02T03:04:05Z"}],"startTime":"2024-01-02T03:04:05Z"}}`),
		"managedFields kept": podgen.Pod(11),
	}
	for i := range 8 {
		inputs["podgen "+strconv.Itoa(i)] = must(StripManagedFields(podgen.PodVersion(i, i%3, "7")))
	}
	var hint unsafe.Pointer
	for name, in := range inputs {
		p := new(api.Pod)
		fd := fastDec{remScan: remScan{d: in}}
		if _, err := fd.object(ct.schema, unsafe.Pointer(p), hint); err != nil {
			t.Errorf("%s: the fast path declined: %v", name, err)
		}
		hint = unsafe.Pointer(p)
	}
	for name, in := range map[string]string{
		"a key twice":        `{"metadata":{"name":"a","name":"b"}}`,
		"an escaped key":     `{"metadata":{"n\u0061me":"a"}}`,
		"a number spelt 1.0": `{"spec":{"priority":1.0}}`,
		"a []byte":           `{"kind":"ConfigMap"}`,
	} {
		if name == "a []byte" {
			cm := compactTypeOf[api.ConfigMap]()
			fd := fastDec{remScan: remScan{d: []byte(`{"binaryData":{"k":"AAEC"}}`)}}
			if _, err := fd.object(cm.schema, unsafe.Pointer(new(api.ConfigMap)), nil); err == nil {
				t.Errorf("%s: the fast path took it", name)
			}
			continue
		}
		fd := fastDec{remScan: remScan{d: []byte(in)}}
		if _, err := fd.object(ct.schema, unsafe.Pointer(new(api.Pod)), nil); err == nil {
			t.Errorf("%s: the fast path took %s", name, in)
		}
	}
}

// cpuTime returns the CPU time (user + system) the process used so far:
// on a shared machine a steadier figure than the wall time.
func cpuTime() time.Duration {
	var ru syscall.Rusage
	_ = syscall.Getrusage(syscall.RUSAGE_SELF, &ru)
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

func must(b []byte, err error) []byte {
	if err != nil {
		panic(err)
	}
	return b
}

// BenchmarkCompactParts times the parts of a compact decode of podgen
// pods, one after another as a LIST brings them: the remainder's scan,
// json-iterator's decode and the sharing walk.
func BenchmarkCompactParts(b *testing.B) {
	const n = 64
	var pods [][]byte
	for i := range n {
		p, err := StripManagedFields(podgen.Pod(i))
		if err != nil {
			b.Fatal(err)
		}
		pods = append(pods, p)
	}
	t := compactTypeOf[api.Pod]()
	b.Run("compact", func(b *testing.B) {
		c := Compact[api.Pod]()
		b.ReportAllocs()
		cpu := cpuTime()
		for i := range b.N {
			if _, err := c.Decode(pods[i%n]); err != nil {
				b.Fatal(err)
			}
		}
		b.ReportMetric(float64((cpuTime()-cpu).Nanoseconds())/float64(b.N), "cpu-ns/op")
	})
	// A watch's MODIFIED events: a new version of a cached pod, in
	// scattered order (another workload's pod decoded before each), with
	// Compact (hint: the pod decoded before) and CompactCached (hint: the
	// cached version), what informer.For uses.
	var updates [][]byte
	for i := range n {
		p, err := StripManagedFields(podgen.PodVersion(i*29%n, 1, strconv.Itoa(900000+i)))
		if err != nil {
			b.Fatal(err)
		}
		updates = append(updates, p)
	}
	for _, cached := range []bool{false, true} {
		name := "update"
		if cached {
			name = "update-cached"
		}
		b.Run(name, func(b *testing.B) {
			cache := map[string]*api.Pod{}
			find := func(ns, name string) (*api.Pod, bool) { p, ok := cache[ns+"/"+name]; return p, ok }
			c := Compact[api.Pod]()
			if cached {
				c = CompactCached[api.Pod](find)
			}
			for _, p := range pods {
				obj, err := c.Decode(p)
				if err != nil {
					b.Fatal(err)
				}
				cache[obj.Namespace+"/"+obj.Name] = obj
			}
			b.ReportAllocs()
			b.ResetTimer()
			cpu := cpuTime()
			for i := range b.N {
				if _, err := c.Decode(updates[i%n]); err != nil {
					b.Fatal(err)
				}
			}
			b.ReportMetric(float64((cpuTime()-cpu).Nanoseconds())/float64(b.N), "cpu-ns/op")
		})
	}
	// The same against a cache of 10 000 pods, as an informer's watch
	// decodes: the cached versions are cold in the processor's caches, so
	// comparing with them costs what it costs in the informer.
	b.Run("update-cached-10k", func(b *testing.B) {
		const pods = 10000
		cache := make(map[string]*api.Pod, pods)
		c := StrippingManagedFields(CompactCached[api.Pod](func(ns, name string) (*api.Pod, bool) {
			p, ok := cache[ns+"/"+name]
			return p, ok
		}))
		for i := range pods {
			obj, err := c.Decode(podgen.Pod(i))
			if err != nil {
				b.Fatal(err)
			}
			cache[obj.Namespace+"/"+obj.Name] = obj
		}
		events := make([][]byte, min(b.N, 2*pods))
		for k := range events { // podgen's watch events: versions 1 and 2 of each pod
			events[k] = podgen.PodVersion(podgen.EventTarget(pods, k), k/pods+1, strconv.Itoa(900000+k))
		}
		b.ReportAllocs()
		b.ResetTimer()
		cpu := cpuTime()
		for i := range b.N {
			obj, err := c.Decode(events[i%len(events)])
			if err != nil {
				b.Fatal(err)
			}
			cache[obj.Namespace+"/"+obj.Name] = obj
		}
		b.ReportMetric(float64((cpuTime()-cpu).Nanoseconds())/float64(b.N), "cpu-ns/op")
	})
	b.Run("fast", func(b *testing.B) {
		sc := &scratch{}
		var last unsafe.Pointer
		for i := range b.N {
			p := new(api.Pod)
			fd := fastDec{remScan: remScan{d: pods[i%n], out: sc.ops[:0]}}
			if _, err := fd.object(t.schema, unsafe.Pointer(p), last); err != nil {
				b.Fatal(err)
			}
			sc.ops = fd.out
			last = unsafe.Pointer(p)
		}
	})
	b.Run("remainder", func(b *testing.B) {
		sc := &scratch{}
		for i := range b.N {
			if _, err := t.remainderOf(pods[i%n], sc); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("jsoniter", func(b *testing.B) {
		for i := range b.N {
			var p api.Pod
			if err := jsonx.Unmarshal(pods[i%n], &p); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("share", func(b *testing.B) {
		objs := make([]api.Pod, n)
		for i := range objs {
			if err := jsonx.Unmarshal(pods[i], &objs[i]); err != nil {
				b.Fatal(err)
			}
		}
		fresh := make([]api.Pod, n)
		var last *api.Pod
		b.ResetTimer()
		for i := range b.N {
			b.StopTimer()
			fresh[i%n] = api.Pod{}
			_ = jsonx.Unmarshal(pods[i%n], &fresh[i%n])
			b.StartTimer()
			shareObject(unsafe.Pointer(&fresh[i%n]), unsafe.Pointer(last), t.plan)
			last = &fresh[i%n]
		}
		_ = reflect.TypeFor[api.Pod]
	})
}
