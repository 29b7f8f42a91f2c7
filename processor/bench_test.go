package processor

import (
	"context"
	"fmt"
	"sync/atomic"
	"testing"

	"github.com/kcmlab/kcm/internal/ring"
	"github.com/kcmlab/kcm/kube/api"
)

// BenchmarkDistribute measures notifications per second from Distribute to
// handlers that do nothing but count, end to end: the clock stops only when
// every handler has received all b.N notifications. ns/op is per
// notification, whatever the number of listeners.
func BenchmarkDistribute(b *testing.B) {
	for _, listeners := range []int{1, 4} {
		b.Run(fmt.Sprintf("listeners=%d", listeners), func(b *testing.B) {
			p, err := New(Options[*api.Pod]{})
			if err != nil {
				b.Fatal(err)
			}
			dones := make([]chan struct{}, listeners)
			for i := range dones {
				done := make(chan struct{})
				dones[i] = done
				var seen atomic.Int64
				target := int64(b.N)
				_, err := p.AddHandler(HandlerFuncs[*api.Pod]{UpdateFunc: func(_, _ *api.Pod) {
					if seen.Add(1) == target {
						close(done)
					}
				}}, HandlerOptions{})
				if err != nil {
					b.Fatal(err)
				}
			}
			ctx, cancel := context.WithCancel(context.Background())
			runErr := make(chan error, 1)
			go func() { runErr <- p.Run(ctx) }()
			o := pod("ns", "a", 1)
			n := UpdateNotification(o, o)
			b.ReportAllocs()
			b.ResetTimer()
			for range b.N {
				p.Distribute(n)
			}
			for _, d := range dones {
				<-d
			}
			b.StopTimer()
			cancel()
			if err := <-runErr; err != nil {
				b.Fatal(err)
			}
		})
	}
}

// BenchmarkRingPushPop measures the listener buffer alone at a steady depth.
func BenchmarkRingPushPop(b *testing.B) {
	var r ring.Ring[Notification[*api.Pod]]
	o := pod("ns", "a", 1)
	for range 100 {
		r.Push(AddNotification(o, false))
	}
	b.ReportAllocs()
	b.ResetTimer()
	for range b.N {
		r.Push(AddNotification(o, false))
		r.Pop()
	}
}
