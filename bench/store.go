package bench

import (
	"encoding/json"
	"fmt"
	"strconv"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/client-go/tools/cache"

	"github.com/kcmlab/kcm/internal/testing/podgen"
	"github.com/kcmlab/kcm/kube/api"
	"github.com/kcmlab/kcm/kube/api/decode"
	"github.com/kcmlab/kcm/store"
)

// Index names shared by both stores.
const (
	IndexNamespace = store.IndexNamespace // == cache.NamespaceIndex
	IndexLabel     = store.IndexLabel
)

// StoreData holds two versions of n pods, decoded once for each store:
// version 0 as listed and version 1 after a status change (a container
// restart), which leaves every index value alike, as most updates do.
type StoreData struct {
	Keys       []string
	Namespaces []string // distinct, in first-seen order
	// Label is an "app=<name>" label value that selects about one pod in
	// eighteen.
	Label string

	kcm [2][]*api.RawObject
	cg  [2][]*corev1.Pod
}

// NewStoreData decodes pods 0..n-1 in both versions for both stores, as
// their informers cache them: managedFields dropped.
func NewStoreData(n int) (*StoreData, error) {
	d := &StoreData{Keys: make([]string, n)}
	codec := decode.StrippingManagedFields(decode.Raw())
	seen := map[string]bool{}
	for v := range 2 {
		d.kcm[v] = make([]*api.RawObject, n)
		d.cg[v] = make([]*corev1.Pod, n)
		for i := range n {
			raw := podgen.PodVersion(i, v, strconv.Itoa(podgen.BaseResourceVersion+v*n+i))
			o, err := codec.Decode(raw)
			if err != nil {
				return nil, fmt.Errorf("pod %d: %w", i, err)
			}
			p := &corev1.Pod{}
			if err := json.Unmarshal(raw, p); err != nil {
				return nil, fmt.Errorf("pod %d: %w", i, err)
			}
			p.ManagedFields = nil
			d.kcm[v][i], d.cg[v][i] = o, p
			if v == 0 {
				d.Keys[i] = o.Key()
				if !seen[o.Namespace] {
					seen[o.Namespace] = true
					d.Namespaces = append(d.Namespaces, o.Namespace)
				}
			}
		}
	}
	if n > 0 {
		d.Label = "app=" + d.kcm[0][0].Labels["app"]
	}
	return d, nil
}

// Store is what the store benchmarks ask of a cache. Reads return how
// many objects they found, so a benchmark can check them.
type Store interface {
	Get(key string) int
	ByIndex(index, value string) int
	List() int
	// Write stores pod i in version v (0 or 1).
	Write(i, v int)
}

// kcmStore is kcm's store.Store with the namespace and label indexes.
type kcmStore struct {
	s *store.Store[*api.RawObject]
	d *StoreData
}

// NewKCMStore returns a kcm store holding version 0 of every pod.
func NewKCMStore(d *StoreData) Store {
	s := store.New(store.Options[*api.RawObject]{
		Indexers: store.BuiltinIndexers[*api.RawObject](store.IndexNamespace, store.IndexLabel)})
	for _, o := range d.kcm[0] {
		s.Set(o)
	}
	return &kcmStore{s: s, d: d}
}

func (k *kcmStore) Get(key string) int {
	if _, ok := k.s.Get(key); ok {
		return 1
	}
	return 0
}

func (k *kcmStore) ByIndex(index, value string) int {
	objs, _ := k.s.ByIndex(index, value)
	return len(objs)
}

func (k *kcmStore) List() int      { return len(k.s.List()) }
func (k *kcmStore) Write(i, v int) { k.s.Set(k.d.kcm[v][i]) }

// clientGoStore is client-go's cache.Indexer (a threadSafeMap under one
// RWMutex) with a namespace index and a label index.
type clientGoStore struct {
	s cache.Indexer
	d *StoreData
}

// LabelIndexFunc indexes an object under "key=value" for each label, the
// label index a client-go user writes by hand.
func LabelIndexFunc(obj any) ([]string, error) {
	p, ok := obj.(*corev1.Pod)
	if !ok {
		return nil, nil
	}
	out := make([]string, 0, len(p.Labels))
	for k, v := range p.Labels {
		out = append(out, k+"="+v)
	}
	return out, nil
}

// NewClientGoStore returns a client-go indexer holding version 0 of every pod.
func NewClientGoStore(d *StoreData) Store {
	s := cache.NewIndexer(cache.MetaNamespaceKeyFunc, cache.Indexers{
		cache.NamespaceIndex: cache.MetaNamespaceIndexFunc,
		IndexLabel:           LabelIndexFunc,
	})
	for _, p := range d.cg[0] {
		_ = s.Add(p)
	}
	return &clientGoStore{s: s, d: d}
}

func (c *clientGoStore) Get(key string) int {
	if _, ok, _ := c.s.GetByKey(key); ok {
		return 1
	}
	return 0
}

func (c *clientGoStore) ByIndex(index, value string) int {
	objs, _ := c.s.ByIndex(index, value)
	return len(objs)
}

func (c *clientGoStore) List() int      { return len(c.s.List()) }
func (c *clientGoStore) Write(i, v int) { _ = c.s.Update(c.d.cg[v][i]) }

// Stores returns both stores over d, kcm's first, with their engine names.
func Stores(d *StoreData) map[string]Store {
	return map[string]Store{KCM: NewKCMStore(d), ClientGo: NewClientGoStore(d)}
}
