package bench_test

import (
	"fmt"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/kcmlab/kcm/bench"
)

// storePods is the number of pods in the store benchmarks' caches.
const storePods = 10000

// storeEngines are the stores compared, in table order.
var storeEngines = []string{bench.KCM, bench.ClientGo}

var storeData = sync.OnceValues(func() (*bench.StoreData, error) { return bench.NewStoreData(storePods) })

// stores are built once per engine and shared by every store benchmark
// (and every b.N round of one), so that runs measure reads and writes, not
// filling caches. Writes only alternate pods between their two versions.
var stores struct {
	sync.Mutex
	m map[string]bench.Store
}

func newStore(tb testing.TB, engine string) (bench.Store, *bench.StoreData) {
	tb.Helper()
	d, err := storeData()
	if err != nil {
		tb.Fatal(err)
	}
	stores.Lock()
	defer stores.Unlock()
	if stores.m == nil {
		stores.m = bench.Stores(d)
	}
	return stores.m[engine], d
}

// readOp is one kind of read; it returns the number of objects found.
type readOp struct {
	name string
	do   func(s bench.Store, d *bench.StoreData, i int) int
}

var readOps = []readOp{
	{"Get", func(s bench.Store, d *bench.StoreData, i int) int { return s.Get(d.Keys[i%len(d.Keys)]) }},
	{"ByNamespace", func(s bench.Store, d *bench.StoreData, i int) int {
		return s.ByIndex(bench.IndexNamespace, d.Namespaces[i%len(d.Namespaces)])
	}},
	{"ByLabel", func(s bench.Store, d *bench.StoreData, _ int) int { return s.ByIndex(bench.IndexLabel, d.Label) }},
	{"List", func(s bench.Store, _ *bench.StoreData, _ int) int { return s.List() }},
}

// storeWriteRate is the writer's pace in BenchmarkStoreRead: ten thousand
// updates a second, a busy cluster's pod churn.
const storeWriteRate = 10000

// startWriter updates pods at storeWriteRate, alternating their two
// versions, until the returned stop is called; stop returns the number of
// writes. A writer held up (by readers holding a lock) catches up in a
// burst, so its achieved rate shows how much it was held up.
func startWriter(s bench.Store) (stop func() int) {
	halt := make(chan struct{})
	done := make(chan int)
	go func() {
		t := time.NewTicker(time.Millisecond)
		defer t.Stop()
		start, w := time.Now(), 0
		for {
			select {
			case <-halt:
				done <- w
				return
			case now := <-t.C:
				for due := int(now.Sub(start).Seconds() * storeWriteRate); w < due; w++ {
					s.Write(w%storePods, (w/storePods+1)%2)
				}
			}
		}
	}()
	return func() int { close(halt); return <-done }
}

// startReaders runs r goroutines cycling through Get, ByIndex(namespace)
// and ByIndex(label) until the returned stop is called; stop returns the
// number of reads.
func startReaders(s bench.Store, d *bench.StoreData, r int) (stop func() int64) {
	var halt atomic.Bool
	var reads atomic.Int64
	var wg sync.WaitGroup
	for g := range r {
		wg.Add(1)
		go func() {
			defer wg.Done()
			n := int64(0)
			for i := g * 7919; !halt.Load(); i++ {
				readOps[i%3].do(s, d, i)
				n++
			}
			reads.Add(n)
		}()
	}
	return func() int64 { halt.Store(true); wg.Wait(); return reads.Load() }
}

// BenchmarkStoreRead: GOMAXPROCS readers (set it with -cpu) run one kind
// of read while one writer updates pods at storeWriteRate. ns/op is wall
// time per read across all readers; writes/s is what the writer achieved;
// cpu-ns/op is the process's CPU time per read.
func BenchmarkStoreRead(b *testing.B) {
	for _, op := range readOps {
		b.Run(op.name, func(b *testing.B) {
			for _, engine := range storeEngines {
				b.Run(engine, func(b *testing.B) {
					s, d := newStore(b, engine)
					stop := startWriter(s)
					var seq atomic.Int64
					b.ResetTimer()
					start, cpu := time.Now(), bench.CPUTime()
					b.RunParallel(func(pb *testing.PB) {
						i := int(seq.Add(1)) * 7919
						for pb.Next() {
							if op.do(s, d, i) == 0 {
								b.Errorf("%s found nothing", op.name)
								return
							}
							i++
						}
					})
					took, cpu := time.Since(start), bench.CPUTime()-cpu
					b.StopTimer()
					b.ReportMetric(float64(stop())/took.Seconds(), "writes/s")
					// CPU time (readers, writer, GC) per read: steadier than
					// ns/op on a loaded machine, which stretches wall time.
					b.ReportMetric(float64(cpu.Nanoseconds())/float64(b.N), "cpu-ns/op")
				})
			}
		})
	}
}

// BenchmarkStoreWriter: the writer flat out, alone, with one reader and
// with 16 readers hammering Get and ByIndex. ns/op is per write. With
// fewer cores than readers + 1 the readers also take the writer's CPU
// time, whatever the store does.
func BenchmarkStoreWriter(b *testing.B) {
	for _, readers := range []int{0, 1, 16} {
		b.Run(fmt.Sprintf("readers=%d", readers), func(b *testing.B) {
			for _, engine := range storeEngines {
				b.Run(engine, func(b *testing.B) {
					s, d := newStore(b, engine)
					stop := startReaders(s, d, readers)
					b.ReportAllocs()
					b.ResetTimer()
					start := time.Now()
					for i := range b.N {
						s.Write(i%storePods, (i/storePods+1)%2)
					}
					took := time.Since(start)
					b.StopTimer()
					reads := stop()
					b.ReportMetric(float64(b.N)/took.Seconds(), "writes/s")
					if readers > 0 {
						b.ReportMetric(float64(reads)/took.Seconds(), "reads/s")
					}
				})
			}
		})
	}
}

// TestStoresAgree: both stores answer every benchmark query alike, before
// and after the writer's updates, so the benchmarks compare equal work.
func TestStoresAgree(t *testing.T) {
	d, err := bench.NewStoreData(2000)
	if err != nil {
		t.Fatal(err)
	}
	k, c := bench.NewKCMStore(d), bench.NewClientGoStore(d)
	check := func(when string) {
		for _, op := range readOps {
			for i := range 60 {
				if a, b := op.do(k, d, i), op.do(c, d, i); a != b || a == 0 {
					t.Errorf("%s: %s #%d: kcm %d, client-go %d (want equal, non-zero)", when, op.name, i, a, b)
				}
			}
		}
	}
	check("before writes")
	for i := range 2000 {
		k.Write(i, 1)
		c.Write(i, 1)
	}
	check("after writes")
	if got := k.List(); got != 2000 {
		t.Errorf("kcm List = %d, want 2000", got)
	}
}
