package store

import (
	"fmt"
	"math/rand/v2"
	"sync"
	"sync/atomic"
	"testing"
)

// Benchmarks. The "naive" variants run the same workload on naiveStore, a
// single RWMutex over a map plus per-index sets: the classic design (and
// client-go's threadSafeMap's locking), written here as a yardstick. The
// side-by-side comparison with client-go itself lives in bench/.
//
//	go test -run '^$' -bench . -cpu 1,2 ./store/

const (
	benchPodsN = 10000
	benchNS    = 100 // 100 pods per namespace
	benchApps  = 10  // 10 pods per app label per namespace
)

// benchPod builds pod i in version v: versions 0 and 1 carry label
// track=a, 2 and 3 track=b; versions of one label differ only in Rev (a
// status update).
func benchPod(i, v int) *tobj {
	ns := fmt.Sprintf("ns-%03d", i%benchNS)
	app := fmt.Sprintf("app-%d", (i/benchNS)%benchApps)
	track := "a"
	if v >= 2 {
		track = "b"
	}
	return mk(ns, fmt.Sprintf("pod-%05d", i),
		labels("app", app, "pod-template-hash", "h"+app, "track", track),
		owners("rs-"+ns+"-"+app), node(fmt.Sprintf("node-%d", i%50)), rev(v))
}

// benchSet is every pod in every version, built once, with the query
// arguments the readers use.
type benchSet struct {
	v          [4][]*tobj
	keys       []string
	namespaces []string
	apps       []string
}

var benchData = sync.OnceValue(func() *benchSet {
	b := &benchSet{}
	for v := range b.v {
		b.v[v] = make([]*tobj, benchPodsN)
		for i := range benchPodsN {
			b.v[v][i] = benchPod(i, v)
		}
	}
	for _, o := range b.v[0] {
		b.keys = append(b.keys, o.Key())
	}
	for i := range benchNS {
		b.namespaces = append(b.namespaces, fmt.Sprintf("ns-%03d", i))
	}
	for i := range benchApps {
		b.apps = append(b.apps, fmt.Sprintf("app=app-%d", i))
	}
	return b
})

// cache is what the benchmarks need from either store.
type cache interface {
	Set(*tobj)
	Delete(key string)
	Get(key string) (*tobj, bool)
	ByIndex(index, value string) ([]*tobj, error)
	List() []*tobj
}

type kcmCache struct{ *Store[*tobj] }

func (c kcmCache) Set(o *tobj)       { c.Store.Set(o) }
func (c kcmCache) Delete(key string) { c.Store.Delete(key) }

func newKcmCache() cache {
	s := New(Options[*tobj]{Indexers: allIndexers()})
	s.Replace(benchData().v[0])
	return kcmCache{s}
}

func newNaiveCache() cache {
	s := newNaive(map[string]IndexFunc[*tobj]{
		IndexNamespace: NamespaceIndexFunc[*tobj], IndexLabel: LabelIndexFunc[*tobj],
		IndexOwner: OwnerIndexFunc[*tobj], "node": byNode,
	})
	for _, o := range benchData().v[0] {
		s.Set(o)
	}
	return s
}

var impls = []struct {
	name string
	new  func() cache
}{{"kcm", newKcmCache}, {"naive", newNaiveCache}}

// mixedWriter is the informer's apply loop in miniature: it updates pods
// round robin; nine writes in ten are status updates (index values kept),
// the tenth flips the pod's track label (label index entries move).
type mixedWriter struct {
	n     int
	track []uint8 // per pod: 0 = a, 1 = b (the store starts at version 0)
}

func newMixedWriter() *mixedWriter { return &mixedWriter{track: make([]uint8, benchPodsN)} }

func (w *mixedWriter) op(c cache) {
	i := w.n % benchPodsN
	if w.n%10 == 9 {
		w.track[i] ^= 1
	}
	c.Set(benchData().v[int(w.track[i])*2+(w.n/benchPodsN+1)%2][i])
	w.n++
}

// withWriter runs w flat out until the returned stop is called.
func withWriter(c cache, w *mixedWriter) (stop func()) {
	var done atomic.Bool
	var wg sync.WaitGroup
	wg.Go(func() {
		for !done.Load() {
			w.op(c)
		}
	})
	return func() { done.Store(true); wg.Wait() }
}

type readFn func(c cache, r *rand.Rand)

// sink keeps read results alive so the compiler cannot drop the reads.
var sink atomic.Int64

var reads = []struct {
	name string
	fn   readFn
}{
	{"Get", func(c cache, r *rand.Rand) {
		if _, ok := c.Get(benchData().keys[r.IntN(benchPodsN)]); ok {
			sink.Add(1)
		}
	}},
	// 100 objects per namespace (fewer while addDelete runs).
	{"ByIndexNamespace", func(c cache, r *rand.Rand) {
		objs, _ := c.ByIndex(IndexNamespace, benchData().namespaces[r.IntN(benchNS)])
		if len(objs) > benchPodsN/benchNS {
			panic(len(objs))
		}
	}},
	// 1000 objects per app label.
	{"ByIndexLabel", func(c cache, r *rand.Rand) {
		objs, _ := c.ByIndex(IndexLabel, benchData().apps[r.IntN(benchApps)])
		if len(objs) > benchPodsN/benchApps {
			panic(len(objs))
		}
	}},
	{"List", func(c cache, r *rand.Rand) {
		if len(c.List()) > benchPodsN {
			panic("long list")
		}
	}},
}

// BenchmarkRead measures each read alone, in parallel (b.RunParallel, one
// reader per -cpu), and in parallel while one writer runs flat out.
func BenchmarkRead(b *testing.B) {
	benchData()
	for _, rd := range reads {
		for _, impl := range impls {
			c, w := impl.new(), newMixedWriter()
			b.Run(rd.name+"/"+impl.name+"/serial", func(b *testing.B) {
				r := rand.New(rand.NewPCG(1, 2))
				for b.Loop() {
					rd.fn(c, r)
				}
			})
			b.Run(rd.name+"/"+impl.name+"/parallel", func(b *testing.B) {
				runParallel(b, c, rd.fn)
			})
			b.Run(rd.name+"/"+impl.name+"/underWrite", func(b *testing.B) {
				stop := withWriter(c, w)
				defer stop()
				runParallel(b, c, rd.fn)
			})
		}
	}
}

func runParallel(b *testing.B, c cache, fn readFn) {
	var seed atomic.Uint64
	b.ResetTimer()
	b.RunParallel(func(pb *testing.PB) {
		r := rand.New(rand.NewPCG(seed.Add(1), 2))
		for pb.Next() {
			fn(c, r)
		}
	})
}

// BenchmarkWrite measures the writer alone and while readers (Get and
// ByIndex, flat out) hammer the store. ns/op is per write.
func BenchmarkWrite(b *testing.B) {
	benchData()
	for _, w := range []struct {
		name string
		op   func(c cache, n int)
	}{
		{"mixed", nil},
		{"status", func(c cache, n int) { c.Set(benchData().v[(n/benchPodsN+1)%2][n%benchPodsN]) }},
		{"relabel", func(c cache, n int) { c.Set(benchData().v[(n/benchPodsN+1)%2*2][n%benchPodsN]) }},
		{"addDelete", func(c cache, n int) {
			o := benchData().v[0][n%benchPodsN]
			if (n/benchPodsN)%2 == 0 {
				c.Delete(o.Key())
			} else {
				c.Set(o)
			}
		}},
	} {
		for _, impl := range impls {
			for _, readers := range []int{0, 1, 16} {
				b.Run(fmt.Sprintf("%s/%s/readers=%d", w.name, impl.name, readers), func(b *testing.B) {
					c, mw := impl.new(), newMixedWriter()
					op := w.op
					if op == nil {
						op = func(c cache, _ int) { mw.op(c) }
					}
					stop := withReaders(c, readers)
					defer stop()
					n := 0
					for b.Loop() {
						op(c, n)
						n++
					}
				})
			}
		}
	}
}

// withReaders runs n readers (Get, ByIndex namespace, ByIndex label in
// turn) until stop is called.
func withReaders(c cache, n int) (stop func()) {
	var done atomic.Bool
	var wg sync.WaitGroup
	for i := range n {
		wg.Go(func() {
			r := rand.New(rand.NewPCG(uint64(i), 9))
			for k := 0; !done.Load(); k++ {
				reads[k%3].fn(c, r)
			}
		})
	}
	return func() { done.Store(true); wg.Wait() }
}

// BenchmarkApplyBatch measures Apply with batches of 64 label-changing
// updates (every write moves a label entry: the dear case), alone and
// under 16 readers; ns/object is per write.
func BenchmarkApplyBatch(b *testing.B) {
	d := benchData()
	for _, readers := range []int{0, 16} {
		b.Run(fmt.Sprintf("readers=%d", readers), func(b *testing.B) {
			s := New(Options[*tobj]{Indexers: allIndexers()})
			s.Replace(d.v[0])
			stop := withReaders(kcmCache{s}, readers)
			defer stop()
			ops := make([]Op[*tobj], 64)
			n := 0
			for b.Loop() {
				for i := range ops {
					k := n*len(ops) + i
					ops[i] = Op[*tobj]{Obj: d.v[(k/benchPodsN+1)%2*2][k%benchPodsN]}
				}
				s.Apply(ops)
				n++
			}
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*len(ops)), "ns/object")
		})
	}
}

// BenchmarkReplace measures a full Replace of 10k objects (the relist).
func BenchmarkReplace(b *testing.B) {
	s := New(Options[*tobj]{Indexers: allIndexers()})
	d := benchData()
	for b.Loop() {
		s.Replace(d.v[0])
	}
}

// naiveStore is the yardstick: one RWMutex over everything.
type naiveStore struct {
	mu    sync.RWMutex
	items map[string]*tobj
	funcs map[string]IndexFunc[*tobj]
	idx   map[string]map[string]map[string]struct{} // index → value → keys
}

func newNaive(funcs map[string]IndexFunc[*tobj]) *naiveStore {
	s := &naiveStore{items: map[string]*tobj{}, funcs: funcs, idx: map[string]map[string]map[string]struct{}{}}
	for name := range funcs {
		s.idx[name] = map[string]map[string]struct{}{}
	}
	return s
}

func (s *naiveStore) Set(o *tobj) {
	key := o.Key()
	s.mu.Lock()
	defer s.mu.Unlock()
	old := s.items[key]
	s.items[key] = o
	for name, f := range s.funcs {
		if old != nil {
			for _, v := range f(old) {
				delete(s.idx[name][v], key)
				if len(s.idx[name][v]) == 0 {
					delete(s.idx[name], v)
				}
			}
		}
		for _, v := range f(o) {
			set := s.idx[name][v]
			if set == nil {
				set = map[string]struct{}{}
				s.idx[name][v] = set
			}
			set[key] = struct{}{}
		}
	}
}

func (s *naiveStore) Delete(key string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	old, ok := s.items[key]
	if !ok {
		return
	}
	delete(s.items, key)
	for name, f := range s.funcs {
		for _, v := range f(old) {
			delete(s.idx[name][v], key)
			if len(s.idx[name][v]) == 0 {
				delete(s.idx[name], v)
			}
		}
	}
}

func (s *naiveStore) Get(key string) (*tobj, bool) {
	s.mu.RLock()
	defer s.mu.RUnlock()
	o, ok := s.items[key]
	return o, ok
}

func (s *naiveStore) ByIndex(index, value string) ([]*tobj, error) {
	s.mu.RLock()
	defer s.mu.RUnlock()
	set := s.idx[index][value]
	out := make([]*tobj, 0, len(set))
	for k := range set {
		out = append(out, s.items[k])
	}
	return out, nil
}

func (s *naiveStore) List() []*tobj {
	s.mu.RLock()
	defer s.mu.RUnlock()
	out := make([]*tobj, 0, len(s.items))
	for _, o := range s.items {
		out = append(out, o)
	}
	return out
}
