package informer

import (
	"context"
	"reflect"
	"sync"
	"sync/atomic"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/rs/zerolog"

	"github.com/kcmlab/kcm/clock"
	"github.com/kcmlab/kcm/kube/api"
	"github.com/kcmlab/kcm/kube/api/decode"
	"github.com/kcmlab/kcm/kube/rest"
	"github.com/kcmlab/kcm/reflector"
	"github.com/kcmlab/kcm/tap"
)

// FactoryOptions configure every informer a Factory makes.
type FactoryOptions struct {
	// Namespace limits every informer to one namespace; "" = all.
	Namespace string
	// Reflector settings shared by all informers (page size, how the
	// initial state is read, timeouts, backoff); zero values are the
	// reflector's defaults. The transport is chosen with Transport below.
	Reflector reflector.Options
	Transport rest.WatchTransport
	// KeepManagedFields keeps metadata.managedFields in cached objects. By
	// default they are cut from the bytes before decoding, as
	// kube-controller-manager's informers drop them.
	KeepManagedFields bool
	Clock             clock.Clock
	Logger            zerolog.Logger // also gets the errors an informer's Run returns
	Registerer        prometheus.Registerer

	// ShutdownTimeout is every informer's Options.ShutdownTimeout.
	ShutdownTimeout time.Duration
	// Tap is every informer's Options.Tap (the pipeline view).
	Tap *tap.Tap
}

// runner is the part of an informer the factory starts and waits for.
type runner interface {
	Run(ctx context.Context) error
	HasSynced() bool
	Name() string
}

// factoryKey identifies one informer: a resource and how it is decoded.
type factoryKey struct {
	res  rest.Resource
	kind string // the Go type of the objects, or "metadata"
}

// Factory hands out exactly one informer per resource and representation
// (client-go's SharedInformerFactory): every controller asking for pods
// shares one cache and one watch.
type Factory struct {
	client *rest.Client
	o      FactoryOptions

	mu sync.Mutex
	// informers are all informers made; started marks those running.
	informers map[factoryKey]runner
	started   map[factoryKey]bool
	ctx       context.Context // set by the first Start
	cancel    context.CancelFunc
	wg        sync.WaitGroup
}

// NewFactory returns a factory reading through client.
func NewFactory(client *rest.Client, o FactoryOptions) *Factory {
	if o.Clock == nil {
		o.Clock = clock.Real{}
	}
	return &Factory{client: client, o: o, informers: map[factoryKey]runner{}, started: map[factoryKey]bool{}}
}

// For returns the shared informer for res decoding into typed objects,
// e.g. informer.For[api.Pod](f, rest.Pods). Its objects are compact
// (decode.Compact): they share their repeated parts with each other and keep,
// instead of their JSON, only the members their struct does not model —
// read-only like every cached object, and still written back whole after
// api.DeepCopy.
//
// The decoder compares each object with the cached version it replaces
// (decode.CompactCached), so a watch event's object shares nearly all of
// its parts with that version.
//
// On a client whose ContentType is protobuf, built-in kinds are read as
// protobuf (but StatefulSets, which stay JSON: see package decode): the
// cached objects are the same structs, their source is
// protobuf (ObjectMeta.IsProto; Raw is nil) and a write of their DeepCopy
// keeps every field kcm does not model (kube/rest).
//
// S must be res's kind (CheckKind): For[api.Pod](f, rest.Deployments)
// would decode Deployments into Pod structs, dropping what they do not
// share, so For panics with an ErrKindMismatch error instead, at
// construction — a programming error, like regexp.MustCompile's. Code
// that builds informers from input checks with CheckKind first.
func For[S any, P api.TypedPtr[S]](f *Factory, res rest.Resource) *Informer[P] {
	if err := CheckKind[S](res); err != nil {
		panic(err)
	}
	var made atomic.Pointer[Informer[P]] // set once get returns; the decoder may run before
	codec := decode.CompactCached[S, P](func(namespace, name string) (P, bool) {
		if inf := made.Load(); inf != nil {
			return inf.cached(namespace, name)
		}
		return nil, false
	})
	inf := get(f, res, reflect.TypeFor[P]().String(), codec, false)
	made.Store(inf)
	return inf
}

// ForRaw returns the shared informer for res caching RawObjects (any
// resource, CRDs included; the most compact cache). It decodes with
// decode.Wire(): on a client whose ContentType is protobuf, a built-in
// kind's objects are RawObjects holding their protobuf message
// (RawObject.IsProto; Raw() is nil for them), custom resources stay JSON.
func ForRaw(f *Factory, res rest.Resource) *Informer[*api.RawObject] {
	return get(f, res, "raw", decode.Wire(), false)
}

// ForMetadata returns the shared metadata-only informer for res: objects
// carry apiVersion, kind and metadata only (PartialObjectMetadata). It
// decodes with decode.Wire(): on a client whose ContentType is protobuf
// every resource's metadata, custom ones included, is read as protobuf.
func ForMetadata(f *Factory, res rest.Resource) *Informer[*api.RawObject] {
	return get(f, res, "metadata", decode.Wire(), true)
}

func get[T api.Object](f *Factory, res rest.Resource, kind string, codec decode.Codec[T], metaOnly bool) *Informer[T] {
	f.mu.Lock()
	defer f.mu.Unlock()
	key := factoryKey{res: res, kind: kind}
	if inf, ok := f.informers[key]; ok {
		return inf.(*Informer[T])
	}
	if !f.o.KeepManagedFields {
		codec = decode.StrippingManagedFields(codec)
	}
	r := rest.NewResources(f.client, res, codec).InNamespace(f.o.Namespace)
	if metaOnly {
		r = r.MetadataOnly()
	}
	name := res.Resource
	if res.Group != "" {
		name += "." + res.Group
	}
	if kind == "metadata" || kind == "raw" {
		name += "(" + kind + ")" // names are unique per factory, like the keys
	}
	o := Options[T]{Name: name, Resource: res, Reflector: f.o.Reflector, Clock: f.o.Clock, Logger: f.o.Logger, Registerer: f.o.Registerer}
	o.ShutdownTimeout, o.Tap = f.o.ShutdownTimeout, f.o.Tap
	inf, err := New(reflector.FromResources(r, f.o.Transport), o)
	if err != nil {
		// Only registering metrics can fail: run without them rather than
		// without the informer.
		f.o.Logger.Warn().Err(err).Str("informer", name).Msg("informer metrics not registered")
		o.Registerer = nil
		inf, _ = New(reflector.FromResources(r, f.o.Transport), o)
	}
	f.informers[key] = inf
	if f.ctx != nil {
		f.startLocked(key, inf)
	}
	return inf
}

// Start runs every informer requested so far, and those requested later,
// until ctx ends or Shutdown is called. Calling it again is harmless.
func (f *Factory) Start(ctx context.Context) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.ctx == nil {
		f.ctx, f.cancel = context.WithCancel(ctx)
	}
	for key, inf := range f.informers {
		if !f.started[key] {
			f.startLocked(key, inf)
		}
	}
}

func (f *Factory) startLocked(key factoryKey, inf runner) {
	f.started[key] = true
	f.wg.Add(1)
	go func() {
		defer f.wg.Done()
		if err := inf.Run(f.ctx); err != nil {
			f.o.Logger.Error().Err(err).Str("informer", inf.Name()).Msg("informer stopped with errors")
		}
	}()
}

// WaitForCacheSync blocks until every started informer has synced or ctx
// ends, and reports which have synced.
func (f *Factory) WaitForCacheSync(ctx context.Context) map[string]bool {
	f.mu.Lock()
	var infs []runner
	for key, inf := range f.informers {
		if f.started[key] {
			infs = append(infs, inf)
		}
	}
	f.mu.Unlock()
	return WaitForCacheSync(ctx, f.o.Clock, infs...)
}

// Shutdown stops every informer and waits for all their goroutines.
func (f *Factory) Shutdown() {
	f.mu.Lock()
	if f.cancel != nil {
		f.cancel()
	}
	f.mu.Unlock()
	f.wg.Wait()
}

// Synced is anything that reports a cache sync.
type Synced interface {
	HasSynced() bool
	Name() string
}

// WaitForCacheSync polls (every 100 ms, client-go's period) until all have
// synced or ctx ends, and returns each one's state.
func WaitForCacheSync[S Synced](ctx context.Context, clk clock.Clock, all ...S) map[string]bool {
	out := make(map[string]bool, len(all))
	for {
		done := true
		for _, s := range all {
			out[s.Name()] = s.HasSynced()
			done = done && out[s.Name()]
		}
		if done {
			return out
		}
		t := clk.NewTimer(100 * time.Millisecond)
		select {
		case <-ctx.Done():
			t.Stop()
			return out
		case <-t.C():
		}
	}
}
