package bench

import (
	"fmt"

	k8slabels "k8s.io/apimachinery/pkg/labels"
	corelisters "k8s.io/client-go/listers/core/v1"
	"k8s.io/client-go/tools/cache"

	"github.com/kcmlab/kcm/informer"
	"github.com/kcmlab/kcm/internal/testing/podgen"
	"github.com/kcmlab/kcm/kube/api"
	"github.com/kcmlab/kcm/kube/api/decode"
	"github.com/kcmlab/kcm/kube/labels"
	"github.com/kcmlab/kcm/store"
)

// PodLister is what the lister benchmarks ask of a controller's pod
// lister: the reads a ReplicaSet or Deployment sync makes. Each returns the
// number of pods found, so a benchmark can check them.
type PodLister interface {
	// All is Lister.List(selector) over every cached pod.
	All() int
	// InNamespace is Pods(ns).List(selector) for query i (cycling over one
	// query per namespace).
	InNamespace(i int) int
}

// ListerQueries are the selectors of the lister benchmarks: an "app=X"
// label selector that matches about one pod in eighteen across the whole
// cache, and one (namespace, app=Y) pair per namespace, taken from the
// first pod cached in that namespace.
type ListerQueries struct {
	App        string
	Namespaces []string
	Apps       []string
}

// NewListerQueries picks the queries from d's pods.
func NewListerQueries(d *StoreData) ListerQueries {
	q := ListerQueries{App: d.kcm[0][0].Labels["app"]}
	seen := map[string]bool{}
	for _, o := range d.kcm[0] {
		if !seen[o.Namespace] {
			seen[o.Namespace] = true
			q.Namespaces = append(q.Namespaces, o.Namespace)
			q.Apps = append(q.Apps, o.Labels["app"])
		}
	}
	return q
}

// kcmLister is an informer's lister (informer.Lister) over a store built
// as the informer builds it: store.New with the informer's default
// indexes (namespace, label, owner).
type kcmLister[T api.Object] struct {
	l    informer.Lister[T]
	all  labels.Selector
	sels []labels.Selector
	ns   []string
}

func newKCMLister[T api.Object](objs []T, q ListerQueries) PodLister {
	s := store.New(store.Options[T]{Indexers: store.BuiltinIndexers[T]()})
	for _, o := range objs {
		s.Set(o)
	}
	k := &kcmLister[T]{l: informer.NewLister(s.View(), "pods"), ns: q.Namespaces,
		all: labels.SelectorFromSet(map[string]string{"app": q.App})}
	for _, a := range q.Apps {
		k.sels = append(k.sels, labels.SelectorFromSet(map[string]string{"app": a}))
	}
	return k
}

func (k *kcmLister[T]) All() int { return len(k.l.List(k.all)) }
func (k *kcmLister[T]) InNamespace(i int) int {
	i %= len(k.ns)
	return len(k.l.Namespace(k.ns[i]).List(k.sels[i]))
}

// NewKCMRawLister returns informer.ForRaw's lister over d's pods
// (RawObjects, managedFields stripped, as the informer caches them).
func NewKCMRawLister(d *StoreData, q ListerQueries) PodLister { return newKCMLister(d.kcm[0], q) }

// NewKCMTypedLister returns informer.For[api.Pod]'s lister over d's pods,
// decoded as that informer decodes them (decode.Compact, managedFields
// stripped).
func NewKCMTypedLister(d *StoreData, q ListerQueries) (PodLister, error) {
	codec := decode.StrippingManagedFields(decode.Compact[api.Pod]())
	pods := make([]*api.Pod, len(d.Keys))
	for i := range pods {
		p, err := codec.Decode(podgen.PodVersion(i, 0, d.kcm[0][i].ResourceVersion))
		if err != nil {
			return nil, fmt.Errorf("pod %d: %w", i, err)
		}
		pods[i] = p
	}
	return newKCMLister(pods, q), nil
}

// clientGoLister is client-go's generated pod lister
// (k8s.io/client-go/listers/core/v1) over the indexer a pod informer from
// client-go's informer factory has: the namespace index only.
type clientGoLister struct {
	l    corelisters.PodLister
	all  k8slabels.Selector
	sels []k8slabels.Selector
	ns   []string
}

// NewClientGoLister returns client-go's pod lister over d's typed pods.
func NewClientGoLister(d *StoreData, q ListerQueries) PodLister {
	idx := cache.NewIndexer(cache.MetaNamespaceKeyFunc, cache.Indexers{cache.NamespaceIndex: cache.MetaNamespaceIndexFunc})
	for _, p := range d.cg[0] {
		_ = idx.Add(p)
	}
	c := &clientGoLister{l: corelisters.NewPodLister(idx), ns: q.Namespaces,
		all: k8slabels.SelectorFromSet(k8slabels.Set{"app": q.App})}
	for _, a := range q.Apps {
		c.sels = append(c.sels, k8slabels.SelectorFromSet(k8slabels.Set{"app": a}))
	}
	return c
}

func (c *clientGoLister) All() int {
	pods, _ := c.l.List(c.all)
	return len(pods)
}

func (c *clientGoLister) InNamespace(i int) int {
	i %= len(c.ns)
	pods, _ := c.l.Pods(c.ns[i]).List(c.sels[i])
	return len(pods)
}
