package bench

import (
	"bytes"
	"context"
	"fmt"

	"github.com/kcmlab/kcm/informer"
	"github.com/kcmlab/kcm/kube/api"
	"github.com/kcmlab/kcm/kube/rest"
	"github.com/kcmlab/kcm/processor"
	"github.com/kcmlab/kcm/reflector"
)

// Engine names.
const (
	KCM           = "kcm"
	KCMTyped      = "kcm-typed"
	ClientGo      = "client-go"
	ClientGoStrip = "client-go-strip"
	Floor         = "floor"
	FloorRead     = "floor-read"
)

// kcmEngine starts informers through kcm's public API: a Factory with
// the reflector's default first LIST (resourceVersion "0", 500 per page
// when the server pages it) and either the RawObject cache (ForRaw) or
// typed pods (For[api.Pod]). Both cut managedFields from the bytes, the
// Factory's default.
type kcmEngine struct {
	name   string
	typed  bool
	client *rest.Client
	opts   informer.FactoryOptions
}

// NewKCM returns the kcm engine for host: typed selects For[api.Pod]
// rather than ForRaw. One client serves every informer the engine starts,
// as one process shares one client.
func NewKCM(host string, typed bool) (Engine, error) {
	c, err := rest.NewClient(&rest.Config{Host: host, QPS: -1})
	if err != nil {
		return nil, fmt.Errorf("kcm client: %w", err)
	}
	name := KCM
	if typed {
		name = KCMTyped
	}
	return &kcmEngine{name: name, typed: typed, client: c, opts: FactoryOptions()}, nil
}

// NewKCMFor returns a kcm engine named name for the cluster cfg points
// at, whose informers read with reflector options ro (the Factory's other
// defaults kept); opts are the client's options.
func NewKCMFor(name string, cfg *rest.Config, typed bool, ro reflector.Options, opts ...rest.Option) (Engine, error) {
	c, err := rest.NewClient(cfg, opts...)
	if err != nil {
		return nil, fmt.Errorf("kcm client: %w", err)
	}
	return &kcmEngine{name: name, typed: typed, client: c, opts: informer.FactoryOptions{Reflector: ro}}, nil
}

func (e *kcmEngine) Name() string { return e.name }

// FactoryOptions are the options every kcm informer in the suite uses:
// the reflector's defaults, spelled out.
func FactoryOptions() informer.FactoryOptions {
	return informer.FactoryOptions{Reflector: reflector.Options{InitialList: reflector.ListFromCache, PageSize: 500}}
}

func (e *kcmEngine) Start(c *Counter) (Running, error) {
	f := informer.NewFactory(e.client, e.opts)
	if e.typed {
		return startKCM(f, informer.For[api.Pod](f, rest.Pods), c)
	}
	return startKCM(f, informer.ForRaw(f, rest.Pods), c)
}

func startKCM[T api.Object](f *informer.Factory, inf *informer.Informer[T], c *Counter) (Running, error) {
	h := processor.HandlerFuncs[T]{
		AddFunc:    func(T, bool) { c.Add() },
		UpdateFunc: func(_, _ T) { c.Update() },
	}
	if _, err := inf.AddEventHandler(h, processor.HandlerOptions{Name: "count"}); err != nil {
		return nil, fmt.Errorf("kcm handler: %w", err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	f.Start(ctx)
	return &kcmRunning[T]{inf: inf, stop: func() { cancel(); f.Shutdown() }}, nil
}

type kcmRunning[T api.Object] struct {
	inf  *informer.Informer[T]
	stop func()
}

func (r *kcmRunning[T]) HasSynced() bool { return r.inf.HasSynced() }
func (r *kcmRunning[T]) Len() int        { return r.inf.Store().Len() }
func (r *kcmRunning[T]) Stop()           { r.stop() }

func (r *kcmRunning[T]) Lookup(key string) (string, bool, bool) {
	obj, ok := r.inf.Store().Get(key)
	if !ok {
		return "", false, false
	}
	m := obj.GetObjectMeta()
	if raw, ok := any(obj).(*api.RawObject); ok && raw.IsProto() {
		_, mf, err := inspectKCM(raw)
		return m.ResourceVersion, mf, err == nil
	}
	return m.ResourceVersion, bytes.Contains(m.Raw(), []byte(`"managedFields"`)), true
}
