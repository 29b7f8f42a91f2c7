package api

import (
	"reflect"
	"testing"
	"unsafe"

	"github.com/kcmlab/kcm/internal/podgen"
	"github.com/kcmlab/kcm/kube/internal/jsonx"
)

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
	t := compactTypeOf[Pod]()
	b.Run("compact", func(b *testing.B) {
		c := Compact[Pod]()
		for i := range b.N {
			if _, err := c.Decode(pods[i%n]); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("fast", func(b *testing.B) {
		sc := &scratch{}
		var last unsafe.Pointer
		for i := range b.N {
			p := new(Pod)
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
			var p Pod
			if err := jsonx.Unmarshal(pods[i%n], &p); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("share", func(b *testing.B) {
		objs := make([]Pod, n)
		for i := range objs {
			if err := jsonx.Unmarshal(pods[i], &objs[i]); err != nil {
				b.Fatal(err)
			}
		}
		fresh := make([]Pod, n)
		var last *Pod
		b.ResetTimer()
		for i := range b.N {
			b.StopTimer()
			fresh[i%n] = Pod{}
			_ = jsonx.Unmarshal(pods[i%n], &fresh[i%n])
			b.StartTimer()
			shareObject(unsafe.Pointer(&fresh[i%n]), unsafe.Pointer(last), t.plan)
			last = &fresh[i%n]
		}
		_ = reflect.TypeFor[Pod]
	})
}
