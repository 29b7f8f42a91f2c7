package bench

import (
	"bytes"
	"context"
	"fmt"

	"github.com/kcmlab/kcm/informer"
	"github.com/kcmlab/kcm/kube/api"
	"github.com/kcmlab/kcm/kube/api/decode"
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
	// metadata starts ForMetadata instead of ForRaw; families a RawObject
	// informer on decode.WireFamilies (startFamilies). Neither with typed.
	metadata, families bool
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
	mode := KCMRawInformer
	if typed {
		mode = KCMTypedInformer
	}
	return NewKCMInformerFor(name, cfg, mode, ro, opts...)
}

// The informers a kcm engine can start (NewKCMInformerFor).
const (
	KCMRawInformer         = "raw"          // informer.ForRaw: RawObjects, decode.Wire
	KCMTypedInformer       = "typed"        // informer.For[api.Pod]
	KCMMetadataInformer    = "metadata"     // informer.ForMetadata: PartialObjectMetadata as RawObjects
	KCMRawFamiliesInformer = "raw-families" // RawObjects on decode.WireFamilies (protobuf family deltas)
)

// NewKCMInformerFor is NewKCMFor starting the informer mode names.
func NewKCMInformerFor(name string, cfg *rest.Config, mode string, ro reflector.Options, opts ...rest.Option) (Engine, error) {
	e := &kcmEngine{name: name, opts: informer.FactoryOptions{Reflector: ro}}
	switch mode {
	case KCMRawInformer, "":
	case KCMTypedInformer:
		e.typed = true
	case KCMMetadataInformer:
		e.metadata = true
	case KCMRawFamiliesInformer:
		e.families = true
	default:
		return nil, fmt.Errorf("bench: unknown kcm informer %q", mode)
	}
	c, err := rest.NewClient(cfg, opts...)
	if err != nil {
		return nil, fmt.Errorf("kcm client: %w", err)
	}
	e.client = c
	return e, nil
}

func (e *kcmEngine) Name() string { return e.name }

// FactoryOptions are the options every kcm informer in the suite uses:
// the reflector's defaults, spelled out.
func FactoryOptions() informer.FactoryOptions {
	return informer.FactoryOptions{Reflector: reflector.Options{InitialList: reflector.ListFromCache, PageSize: 500}}
}

func (e *kcmEngine) Start(c *Counter) (Running, error) {
	if e.families {
		return e.startFamilies(c)
	}
	f := informer.NewFactory(e.client, e.opts)
	run, stop := func(ctx context.Context) { f.Start(ctx) }, f.Shutdown
	switch {
	case e.typed:
		return startKCM(informer.For[api.Pod](f, rest.Pods), c, run, stop)
	case e.metadata:
		return startKCM(informer.ForMetadata(f, rest.Pods), c, run, stop)
	}
	return startKCM(informer.ForRaw(f, rest.Pods), c, run, stop)
}

// startFamilies starts a RawObject informer on
// StrippingManagedFields(decode.WireFamilies()), which the Factory does
// not offer: on protobuf each cached pod with a controller is kept as a
// delta against its family's base message.
func (e *kcmEngine) startFamilies(c *Counter) (Running, error) {
	codec := decode.StrippingManagedFields(decode.WireFamilies())
	r := rest.NewResources(e.client, rest.Pods, codec)
	inf, err := informer.New(reflector.FromResources(r, e.opts.Transport),
		informer.Options[*api.RawObject]{Name: "pods(raw-families)", Resource: rest.Pods, Reflector: e.opts.Reflector})
	if err != nil {
		return nil, fmt.Errorf("kcm informer: %w", err)
	}
	done := make(chan struct{})
	run := func(ctx context.Context) {
		go func() {
			defer close(done)
			_ = inf.Run(ctx) // ends with ctx; a sync that fails shows as a timeout
		}()
	}
	return startKCM(inf, c, run, func() { <-done })
}

// startKCM registers the counting handler on inf and starts it with run;
// stop, after the context run was given ends, waits for it.
func startKCM[T api.Object](inf *informer.Informer[T], c *Counter, run func(context.Context), stop func()) (Running, error) {
	h := processor.HandlerFuncs[T]{
		AddFunc:    func(T, bool) { c.Add() },
		UpdateFunc: func(_, _ T) { c.Update() },
	}
	if _, err := inf.AddEventHandler(h, processor.HandlerOptions{Name: "count"}); err != nil {
		return nil, fmt.Errorf("kcm handler: %w", err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	run(ctx)
	return &kcmRunning[T]{inf: inf, stop: func() { cancel(); stop() }}, nil
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
