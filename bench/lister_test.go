package bench_test

import (
	"sync"
	"testing"

	"github.com/kcmlab/kcm/bench"
)

// listerEngines are the listers compared, in table order: kcm's
// informer.ForRaw and informer.For[api.Pod] listers, client-go's.
var listerEngines = []string{bench.KCM, bench.KCMTyped, bench.ClientGo}

// listers are built once over storeData's pods (the same 10k pods in 50
// namespaces as the store benchmarks) and shared by every lister benchmark.
var listers = sync.OnceValues(func() (map[string]bench.PodLister, error) {
	d, err := storeData()
	if err != nil {
		return nil, err
	}
	return newListers(d)
})

func newListers(d *bench.StoreData) (map[string]bench.PodLister, error) {
	q := bench.NewListerQueries(d)
	typed, err := bench.NewKCMTypedLister(d, q)
	if err != nil {
		return nil, err
	}
	return map[string]bench.PodLister{
		bench.KCM:      bench.NewKCMRawLister(d, q),
		bench.KCMTyped: typed,
		bench.ClientGo: bench.NewClientGoLister(d, q),
	}, nil
}

// BenchmarkLister: a controller's typical cache reads over 10k pods in 50
// namespaces, one goroutine, no writer. All is Lister.List(app=X) over
// every pod (about 1 in 18 match); Namespace is Pods(ns).List(app=Y),
// cycling over one query per namespace. ns/op and allocs/op per call.
func BenchmarkLister(b *testing.B) {
	ls, err := listers()
	if err != nil {
		b.Fatal(err)
	}
	for _, q := range []struct {
		name string
		do   func(l bench.PodLister, i int) int
	}{
		{"All", func(l bench.PodLister, _ int) int { return l.All() }},
		{"Namespace", func(l bench.PodLister, i int) int { return l.InNamespace(i) }},
	} {
		b.Run(q.name, func(b *testing.B) {
			for _, engine := range listerEngines {
				b.Run(engine, func(b *testing.B) {
					l := ls[engine]
					b.ReportAllocs()
					i := 0
					for b.Loop() {
						if q.do(l, i) == 0 {
							b.Fatalf("%s found nothing", q.name)
						}
						i++
					}
				})
			}
		})
	}
}

// TestListersAgree: every lister finds the same pods for every benchmark
// query, and the queries find some (the All selector about 1 in 18).
func TestListersAgree(t *testing.T) {
	d, err := bench.NewStoreData(2000)
	if err != nil {
		t.Fatal(err)
	}
	ls, err := newListers(d)
	if err != nil {
		t.Fatal(err)
	}
	want := ls[bench.ClientGo].All()
	if want < 2000/30 || want > 2000/10 {
		t.Errorf("client-go All = %d of 2000, want about 1 in 18", want)
	}
	nq := len(bench.NewListerQueries(d).Namespaces)
	for _, e := range listerEngines {
		if got := ls[e].All(); got != want {
			t.Errorf("%s All = %d, client-go %d", e, got, want)
		}
		for i := range nq {
			if got, w := ls[e].InNamespace(i), ls[bench.ClientGo].InNamespace(i); got != w || w == 0 {
				t.Errorf("%s InNamespace(%d) = %d, client-go %d (want equal, non-zero)", e, i, got, w)
			}
		}
	}
}
