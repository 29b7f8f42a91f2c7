package bench

import (
	"runtime"
	"runtime/debug"
	"runtime/metrics"
	"time"
)

// Heap figures are read from runtime/metrics:
//
//   - live: "/gc/heap/live:bytes", the bytes the last GC marked reachable.
//     Right after runtime.GC it is exactly what the program holds.
//   - in use: "/memory/classes/heap/objects:bytes", live objects plus
//     garbage not yet swept — what the heap occupies at that moment.
const (
	metricLive  = "/gc/heap/live:bytes"
	metricInUse = "/memory/classes/heap/objects:bytes"
)

// LiveHeap collects garbage twice (the second pass frees what finalizers
// of the first released) and returns the live heap in bytes.
func LiveHeap() uint64 {
	runtime.GC()
	runtime.GC()
	s := []metrics.Sample{{Name: metricLive}}
	metrics.Read(s)
	return s[0].Value.Uint64()
}

// HeapPeak samples the heap on a ticker until Stop and keeps the maxima.
// While it runs the garbage collector's target is lowered to GCPercent, so
// that collections come often and the live heap it reports after each one
// follows the real peak closely.
type HeapPeak struct {
	stop, done chan struct{}
	oldPercent int
	// maxLive and maxInUse are written by the sampling goroutine until
	// done is closed, then read by Stop.
	maxLive, maxInUse uint64
}

// SamplingGCPercent is the GOGC the heap benchmarks run under while they
// look for the peak: a collection every 10% of heap growth.
const SamplingGCPercent = 10

// StartHeapPeak starts sampling every period.
func StartHeapPeak(period time.Duration) *HeapPeak {
	h := &HeapPeak{stop: make(chan struct{}), done: make(chan struct{})}
	h.oldPercent = debug.SetGCPercent(SamplingGCPercent)
	go h.run(period)
	return h
}

func (h *HeapPeak) run(period time.Duration) {
	defer close(h.done)
	s := []metrics.Sample{{Name: metricLive}, {Name: metricInUse}}
	t := time.NewTicker(period)
	defer t.Stop()
	for {
		metrics.Read(s)
		h.maxLive = max(h.maxLive, s[0].Value.Uint64())
		h.maxInUse = max(h.maxInUse, s[1].Value.Uint64())
		select {
		case <-h.stop:
			return
		case <-t.C:
		}
	}
}

// Stop ends sampling, restores the GC target and returns the largest live
// heap seen after a collection and the largest heap in use.
func (h *HeapPeak) Stop() (maxLive, maxInUse uint64) {
	close(h.stop)
	<-h.done
	debug.SetGCPercent(h.oldPercent)
	return h.maxLive, h.maxInUse
}
