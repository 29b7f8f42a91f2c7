package deltafifo

import (
	"context"
	"fmt"
	"testing"
)

// benchObjs builds n objects on distinct keys, their keys precomputed so
// that the benchmark measures the FIFO and not the "ns/name" concatenation.
func benchObjs(n int) ([]*obj, map[*obj]string) {
	objs := make([]*obj, n)
	keys := make(map[*obj]string, n)
	for i := range objs {
		objs[i] = mk(fmt.Sprintf("ns/pod-%d", i), "1")
		keys[objs[i]] = objs[i].Key()
	}
	return objs, keys
}

// cachedKey is a KeyFunc reading a precomputed key, allocation-free.
func cachedKey(keys map[*obj]string) func(*obj) string {
	return func(o *obj) string { return keys[o] }
}

func nop([]Delta[*obj]) error { return nil }

// benchAddPop enqueues b.N deltas over 1024 keys, popping batches of 256
// whenever 256 are queued: one goroutine, no contention.
func benchAddPop(b *testing.B, keyFunc func(objs []*obj, keys map[*obj]string) func(*obj) string) {
	objs, keys := benchObjs(1024)
	f := New(Options[*obj]{KeyFunc: keyFunc(objs, keys)})
	ctx := context.Background()
	b.ReportAllocs()
	b.ResetTimer()
	for i := range b.N {
		if err := f.Update(objs[i&1023]); err != nil {
			b.Fatal(err)
		}
		if i&255 == 255 {
			if err := f.Pop(ctx, 256, nop); err != nil {
				b.Fatal(err)
			}
		}
	}
}

func BenchmarkAddPop(b *testing.B) {
	b.Run("cachedKey", func(b *testing.B) {
		benchAddPop(b, func(_ []*obj, keys map[*obj]string) func(*obj) string { return cachedKey(keys) })
	})
	b.Run("defaultKey", func(b *testing.B) {
		benchAddPop(b, func([]*obj, map[*obj]string) func(*obj) string { return nil })
	})
}

// A producer goroutine (the benchmark loop) and a consumer goroutine popping
// batches of up to 256, as in an informer.
func BenchmarkAddPopConcurrent(b *testing.B) {
	objs, keys := benchObjs(1024)
	f := New(Options[*obj]{KeyFunc: cachedKey(keys)})
	done := make(chan struct{})
	go func() {
		defer close(done)
		for f.Pop(context.Background(), 256, nop) == nil {
		}
	}()
	b.ReportAllocs()
	b.ResetTimer()
	for i := range b.N {
		if err := f.Update(objs[i&1023]); err != nil {
			b.Fatal(err)
		}
	}
	b.StopTimer()
	f.Close()
	<-done
}

// A streamed 50k-item initial list, applied as it arrives.
func BenchmarkStreamingReplace50k(b *testing.B) {
	const n = 50_000
	objs, keys := benchObjs(n)
	ctx := context.Background()
	b.ReportAllocs()
	b.ResetTimer()
	for range b.N {
		f := New(Options[*obj]{KeyFunc: cachedKey(keys)})
		r := f.StartReplace("1")
		for i, o := range objs {
			if err := r.Add(o); err != nil {
				b.Fatal(err)
			}
			if i&255 == 255 {
				if err := f.Pop(ctx, 256, nop); err != nil {
					b.Fatal(err)
				}
			}
		}
		if err := r.Finish(); err != nil {
			b.Fatal(err)
		}
		for f.Len() > 0 {
			if err := f.Pop(ctx, 256, nop); err != nil {
				b.Fatal(err)
			}
		}
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*n), "ns/item")
}
