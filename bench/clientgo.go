package bench

import (
	"fmt"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/fields"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/cache"
)

// clientGoEngine starts client-go SharedIndexInformers for pods with a
// namespace index, as kube-controller-manager's pod informer has, with
// client-go's defaults otherwise (LIST at resourceVersion 0, then WATCH),
// and optionally the transform that strips managedFields.
type clientGoEngine struct {
	name  string
	strip bool
	cs    *kubernetes.Clientset
}

// NewClientGo returns the client-go engine for host; strip adds a
// transform that drops managedFields before objects are cached.
func NewClientGo(host string, strip bool) (Engine, error) {
	name := ClientGo
	if strip {
		name = ClientGoStrip
	}
	return NewClientGoFor(name, &rest.Config{Host: host}, strip)
}

// NewClientGoFor returns a client-go engine named name for the cluster
// cfg points at. The engine speaks JSON, as kcm does, and is not rate
// limited (QPS −1), whatever cfg says.
func NewClientGoFor(name string, cfg *rest.Config, strip bool) (Engine, error) {
	cfg = rest.CopyConfig(cfg)
	cfg.QPS = -1
	cfg.ContentConfig = rest.ContentConfig{ContentType: "application/json", AcceptContentTypes: "application/json"}
	cs, err := kubernetes.NewForConfig(cfg)
	if err != nil {
		return nil, fmt.Errorf("client-go clientset: %w", err)
	}
	return &clientGoEngine{name: name, strip: strip, cs: cs}, nil
}

func (e *clientGoEngine) Name() string { return e.name }

// listThenWatch is a ListWatch that says it does not support WatchList
// semantics, so that client-go's reflector lists (resourceVersion "0",
// through its pager) and then watches. Since v0.35 client-go streams the
// initial state by default (the WatchListClient feature gate, beta and
// on); the benchmarks compare the engines doing the same work, kcm's
// default first list, and measure WatchList apart (kcm/stream). Per
// informer, unlike turning the process-wide gate off.
type listThenWatch struct{ *cache.ListWatch }

func (listThenWatch) IsWatchListSemanticsUnSupported() bool { return true }

func (e *clientGoEngine) Start(c *Counter) (Running, error) {
	lw := listThenWatch{cache.NewListWatchFromClient(e.cs.CoreV1().RESTClient(), "pods", metav1.NamespaceAll, fields.Everything())}
	inf := cache.NewSharedIndexInformer(lw, &corev1.Pod{}, 0,
		cache.Indexers{cache.NamespaceIndex: cache.MetaNamespaceIndexFunc})
	if e.strip {
		if err := inf.SetTransform(StripManagedFields); err != nil {
			return nil, fmt.Errorf("client-go transform: %w", err)
		}
	}
	_, err := inf.AddEventHandler(cache.ResourceEventHandlerFuncs{
		AddFunc:    func(any) { c.Add() },
		UpdateFunc: func(_, _ any) { c.Update() },
	})
	if err != nil {
		return nil, fmt.Errorf("client-go handler: %w", err)
	}
	stop, done := make(chan struct{}), make(chan struct{})
	go func() {
		defer close(done)
		inf.Run(stop)
	}()
	return &clientGoRunning{inf: inf, stop: stop, done: done}, nil
}

// StripManagedFields is the transform kube-controller-manager installs on
// its informers: it drops metadata.managedFields from each object before
// the object is cached.
func StripManagedFields(obj any) (any, error) {
	if m, err := meta.Accessor(obj); err == nil {
		m.SetManagedFields(nil)
	}
	return obj, nil
}

type clientGoRunning struct {
	inf  cache.SharedIndexInformer
	stop chan struct{}
	done chan struct{}
}

func (r *clientGoRunning) HasSynced() bool { return r.inf.HasSynced() }
func (r *clientGoRunning) Len() int        { return len(r.inf.GetStore().ListKeys()) }
func (r *clientGoRunning) Stop()           { close(r.stop); <-r.done }

func (r *clientGoRunning) Lookup(key string) (string, bool, bool) {
	obj, ok, err := r.inf.GetIndexer().GetByKey(key)
	if err != nil || !ok {
		return "", false, false
	}
	p, isPod := obj.(*corev1.Pod)
	if !isPod {
		return "", false, false
	}
	return p.ResourceVersion, len(p.ManagedFields) > 0, true
}

// Engines returns every informer engine for host, kcm's first.
func Engines(host string) ([]Engine, error) {
	var out []Engine
	for _, mk := range []func() (Engine, error){
		func() (Engine, error) { return NewKCM(host, false) },
		func() (Engine, error) { return NewKCM(host, true) },
		func() (Engine, error) { return NewClientGo(host, false) },
		func() (Engine, error) { return NewClientGo(host, true) },
	} {
		e, err := mk()
		if err != nil {
			return nil, err
		}
		out = append(out, e)
	}
	return out, nil
}
