package garbagecollector

import (
	"runtime"
	"testing"

	"github.com/rs/zerolog"

	"github.com/kcmlab/kcm/internal/testing/podgen"
	"github.com/kcmlab/kcm/kube/api"
	"github.com/kcmlab/kcm/store"
)

// memoryPods is the cluster size of the memory measurement.
const memoryPods = 10000

// Budgets of TestMemoryPerObject, per object: the cached metadata (store
// entry included), the graph node, and the two together per cached object
// (the "under 1 KB per object in all" of doc.go). They are ceilings that
// catch a regression — a codec that stops dropping labels, a node that
// grows a map per object — not targets; the measured values are logged
// (they differ with -race, which make test uses: the cache's share is
// larger and the graph's smaller). The total is held to 1 KB without
// -race; under -race, where this run measured 971 to 1025 B with the graph's
// share varying between runs by 50 B a node, to 1.125 KB, so that the
// ceiling catches a regression and not the race detector's noise.
const (
	cacheBudgetPerObject = 1024
	graphBudgetPerNode   = 768
)

// totalBudgetPerObject is the ceiling of cache and graph together per
// cached object (see above).
func totalBudgetPerObject() int {
	if raceEnabled {
		return 1152
	}
	return 1024
}

// heapInUse returns the live heap after a full collection.
func heapInUse() uint64 {
	runtime.GC()
	runtime.GC()
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	return ms.HeapAlloc
}

// TestMemoryPerObject measures what the collector keeps for 10 000 pods
// and their 2 500 ReplicaSets — podgen's realistic objects, as
// kube-apiserver 1.34 writes them, whose Deployments stay virtual
// owners — in two parts: the monitors' caches (objects decoded by
// metaCodec in stores without indexes) and the graph (Collector.Apply of
// every add). It logs bytes per object and per node, and fails above the
// budgets. Run alone, without -race, for the figures the README quotes:
//
//	go test -run TestMemoryPerObject -v ./ctrl/garbagecollector/
func TestMemoryPerObject(t *testing.T) {
	pods := make([][]byte, memoryPods)
	for i := range pods {
		pods[i] = podgen.Pod(i)
	}
	rss := make([][]byte, memoryPods/podgen.ReplicasPerSet)
	for i := range rss {
		rss[i] = podgen.ReplicaSet(i)
	}
	before := heapInUse()
	podStore := store.New(store.Options[*api.RawObject]{Indexers: store.Indexers[*api.RawObject]{}})
	rsStore := store.New(store.Options[*api.RawObject]{Indexers: store.Indexers[*api.RawObject]{}})
	decode := func(s *store.Store[*api.RawObject], all [][]byte) []*api.RawObject {
		objs := make([]*api.RawObject, len(all))
		ops := make([]store.Op[*api.RawObject], len(all))
		for i, b := range all {
			o, err := metaCodec{}.DecodeBorrowed(b)
			if err != nil {
				t.Fatal(err)
			}
			objs[i], ops[i] = o, store.Op[*api.RawObject]{Obj: o}
		}
		s.Apply(ops)
		return objs
	}
	podObjs, rsObjs := decode(podStore, pods), decode(rsStore, rss)
	cached := heapInUse()

	c := NewCollector(nil, &recordingQueue{}, &recordingQueue{}, Config{Logger: zerolog.Nop()})
	podHandler, rsHandler := c.Handler("v1", "Pod"), c.Handler("apps/v1", "ReplicaSet")
	for _, o := range podObjs {
		podHandler.OnAdd(o, true)
	}
	for _, o := range rsObjs {
		rsHandler.OnAdd(o, true)
	}
	c.deleteQ, c.orphanQ = nil, nil // the recorded keys are not the graph's
	graphed := heapInUse()

	objects := len(pods) + len(rss)
	nodes := c.graph.Len()
	perObject := float64(cached-before) / float64(objects)
	perNode := float64(graphed-cached) / float64(nodes)
	t.Logf("%d pods + %d ReplicaSets (%d Deployments virtual): cache %.0f B/object (%.1f MB), graph %d nodes, %.0f B/node (%.1f MB); "+
		"total %.0f B per cached object",
		len(pods), len(rss), nodes-objects, perObject, float64(cached-before)/1e6, nodes, perNode, float64(graphed-cached)/1e6,
		float64(graphed-before)/float64(objects))
	total := float64(graphed-before) / float64(objects)
	if perObject > cacheBudgetPerObject || perNode > graphBudgetPerNode || total > float64(totalBudgetPerObject()) {
		t.Errorf("over budget: cache %.0f B/object (budget %d), graph %.0f B/node (budget %d), in all %.0f B/object (budget %d)",
			perObject, cacheBudgetPerObject, perNode, graphBudgetPerNode, total, totalBudgetPerObject())
	}
	runtime.KeepAlive(podStore)
	runtime.KeepAlive(rsStore)
	runtime.KeepAlive(c)
	runtime.KeepAlive(pods)
	runtime.KeepAlive(rss)
}
