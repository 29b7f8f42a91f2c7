package bench

import (
	"context"
	"fmt"
	"net/http"
	"runtime"
	"slices"
	"strings"
	"sync/atomic"
	"time"

	"k8s.io/client-go/tools/clientcmd"

	kcmclientcmd "github.com/kcmlab/kcm/kube/clientcmd"
	"github.com/kcmlab/kcm/kube/rest"
	"github.com/kcmlab/kcm/reflector"
)

// APIVariant is one engine and request pattern of the real-apiserver
// benchmark: how the initial state of every pod is read.
type APIVariant struct {
	Name    string
	Engine  string                // KCM, KCMTyped or ClientGo
	Initial reflector.InitialList // kcm only
	// Informer (kcm only) picks the informer beyond Engine's default
	// (KCMRawInformer for KCM, KCMTypedInformer for KCMTyped): e.g.
	// KCMMetadataInformer or KCMRawFamiliesInformer.
	Informer string
	PageSize int64 // kcm only: reflector.Options.PageSize
	// NoGzip (client-go only) turns off the transport's Accept-Encoding:
	// gzip, which Go's HTTP transport otherwise adds to every request and
	// kube-apiserver honours for responses over 128 KiB.
	NoGzip bool
	// Protobuf asks for application/vnd.kubernetes.protobuf,
	// kube-controller-manager's default, instead of JSON: client-go's
	// ContentConfig, or kcm's rest.Config.ContentType (the RawObject
	// informer then caches protobuf messages).
	Protobuf bool
	// Strip (client-go only) installs the transform that drops
	// managedFields before objects are cached (SetTransform), as
	// kube-controller-manager does on every informer. kcm's Factory
	// always strips them.
	Strip bool
}

// StripsManagedFields reports whether v's cache is meant to hold objects
// without managedFields: every kcm variant (the Factory's default), and
// client-go with Strip.
func (v APIVariant) StripsManagedFields() bool { return v.Engine != ClientGo || v.Strip }

// Wire is the encoding v's cache is meant to have read: WireProtobuf or
// WireJSON.
func (v APIVariant) Wire() string {
	if v.Protobuf {
		return WireProtobuf
	}
	return WireJSON
}

// APIVariants are the variants the real-apiserver benchmark runs, client-go
// first: client-go's reflector (LIST at resourceVersion "0" through its
// pager, limit 500, then WATCH), and kcm's RawObject informer with each
// way of reading the initial state — from the watch cache (resourceVersion
// "0"), consistent (resourceVersion "") in pages of 500, 5000 or in one
// response, and streamed (WatchList) — then kcm's typed informer with the
// default. Then the protobuf pair of issue 34: client-go as
// kube-controller-manager runs it (protobuf, managedFields stripped by a
// transform) and kcm's RawObject informer on protobuf. client-go/no-gzip,
// not in the default set, shows what the apiserver's gzip of the list
// costs (both engines' transports ask for it).
var APIVariants = []APIVariant{
	{Name: "client-go", Engine: ClientGo},
	{Name: "kcm/from-cache", Engine: KCM, Initial: reflector.ListFromCache, PageSize: 500},
	{Name: "kcm/consistent-500", Engine: KCM, Initial: reflector.ListConsistent, PageSize: 500},
	{Name: "kcm/consistent-5000", Engine: KCM, Initial: reflector.ListConsistent, PageSize: 5000},
	{Name: "kcm/consistent-all", Engine: KCM, Initial: reflector.ListConsistent, PageSize: -1},
	{Name: "kcm/stream", Engine: KCM, Initial: reflector.ListStream},
	{Name: "kcm/default", Engine: KCM},
	{Name: "kcm-typed/default", Engine: KCMTyped},
	{Name: "client-go/protobuf-strip", Engine: ClientGo, Protobuf: true, Strip: true},
	{Name: "kcm/protobuf", Engine: KCM, Protobuf: true},
}

// extraAPIVariants can be named with -variants but do not run by default:
// besides client-go/no-gzip, client-go on protobuf without the transform,
// kcm's RawObject informer on protobuf family deltas (decode.WireFamilies,
// which the Factory does not use) and kcm's metadata-only informer on
// protobuf (the garbage collector's and quota's kind of informer, which
// caches less than a pod informer: not the comparison), and
// kcm's typed pod informer on protobuf (informer.For[Pod] as the manager
// caches pods: CompactCached, decoded with the hint).
var extraAPIVariants = []APIVariant{
	{Name: "client-go/no-gzip", Engine: ClientGo, NoGzip: true},
	{Name: "client-go/protobuf", Engine: ClientGo, Protobuf: true},
	{Name: "kcm/protobuf-families", Engine: KCM, Protobuf: true, Informer: KCMRawFamiliesInformer},
	{Name: "kcm-metadata/protobuf", Engine: KCM, Protobuf: true, Informer: KCMMetadataInformer},
	{Name: "kcm-typed/protobuf", Engine: KCMTyped, Protobuf: true},
}

// LookupAPIVariants returns the variants named in names (comma-separated);
// "" means all of APIVariants.
func LookupAPIVariants(names string) ([]APIVariant, error) {
	if names == "" {
		return slices.Clone(APIVariants), nil
	}
	known := slices.Concat(APIVariants, extraAPIVariants)
	var out []APIVariant
	for n := range strings.SplitSeq(names, ",") {
		i := slices.IndexFunc(known, func(v APIVariant) bool { return v.Name == strings.TrimSpace(n) })
		if i < 0 {
			return nil, fmt.Errorf("bench: unknown variant %q", n)
		}
		out = append(out, known[i])
	}
	return out, nil
}

// SyncSample is one sync measured inside the process that ran it: from
// the informer's start until it reports HasSynced and its handler has
// seen every pod.
type SyncSample struct {
	Variant  string        `json:"variant"`
	Pods     int           `json:"pods"`
	Wall     time.Duration `json:"wall"`
	CPU      time.Duration `json:"cpu"`      // this process, all threads
	Requests int64         `json:"requests"` // HTTP requests sent until synced (LIST pages and WATCH)
	HeapLive uint64        `json:"heapLive"` // live heap with the cache synced, after a GC
	// Wire is the encoding the engine read: the Content-Type of client-go's
	// first response, or for kcm whether its cached RawObjects hold
	// protobuf messages (RawObject.IsProto). SyncOnce fails when it is not
	// the variant's (APIVariant.Wire).
	Wire string `json:"wire"`
	// ManagedFields reports whether the cached pods still carry
	// managedFields (read from the objects SyncOnce inspects after the
	// measurement); SyncOnce fails when it contradicts
	// APIVariant.StripsManagedFields.
	ManagedFields bool `json:"managedFields"`
}

// SyncOnce starts variant v's informer on the cluster kubeconfig names,
// waits until it has synced pods pods and returns what it took. It is
// meant to run once in a fresh process (cmd/apisync runs one per sample),
// so that nothing of an earlier sync is in its heap or its connections.
func SyncOnce(ctx context.Context, kubeconfig string, v APIVariant, pods int) (SyncSample, error) {
	s := SyncSample{Variant: v.Name, Pods: pods}
	var requests atomic.Int64
	var respType atomic.Pointer[string]
	e, err := newAPIEngine(kubeconfig, v, &requests, &respType)
	if err != nil {
		return s, err
	}
	runtime.GC()
	c := NewCounter(pods, 0)
	start, cpu0 := time.Now(), CPUTime()
	r, err := e.Start(c)
	if err != nil {
		return s, err
	}
	defer r.Stop()
	err = WaitSynced(ctx, r, c)
	s.Wall, s.CPU, s.Requests = time.Since(start), CPUTime()-cpu0, requests.Load()
	if err != nil {
		return s, fmt.Errorf("bench: %s: %w", v.Name, err)
	}
	if got := r.Len(); got != pods {
		return s, fmt.Errorf("bench: %s cached %d pods, want %d", v.Name, got, pods)
	}
	s.HeapLive = LiveHeap()
	if err := checkCache(v, r, &respType, &s); err != nil {
		return s, err
	}
	runtime.KeepAlive(r)
	return s, nil
}

// newAPIEngine builds v's engine for the cluster kubeconfig names, counting
// its HTTP requests into requests; client-go's first response's
// Content-Type goes into respType.
func newAPIEngine(kubeconfig string, v APIVariant, requests *atomic.Int64, respType *atomic.Pointer[string]) (Engine, error) {
	switch v.Engine {
	case ClientGo:
		cfg, err := clientcmd.BuildConfigFromFlags("", kubeconfig)
		if err != nil {
			return nil, fmt.Errorf("bench: client-go kubeconfig: %w", err)
		}
		cfg.Wrap(func(rt http.RoundTripper) http.RoundTripper { return countingTransport{rt, requests, respType} })
		cfg.DisableCompression = v.NoGzip
		if v.Protobuf {
			return NewClientGoProtoFor(v.Name, cfg, v.Strip)
		}
		return NewClientGoFor(v.Name, cfg, v.Strip)
	case KCM, KCMTyped:
		cfg, err := kcmclientcmd.LoadKubeconfig(kcmclientcmd.LoadOptions{ExplicitPath: kubeconfig})
		if err != nil {
			return nil, fmt.Errorf("bench: kcm kubeconfig: %w", err)
		}
		cfg.QPS = -1
		if v.Protobuf {
			cfg.ContentType = rest.ContentTypeProtobuf
		}
		ro := reflector.Options{InitialList: v.Initial, PageSize: v.PageSize}
		mode := v.Informer
		if mode == "" && v.Engine == KCMTyped {
			mode = KCMTypedInformer
		}
		return NewKCMInformerFor(v.Name, cfg, mode, ro, rest.WithRequestMetrics(countingMetrics{requests}))
	}
	return nil, fmt.Errorf("bench: variant %s: unknown engine %q", v.Name, v.Engine)
}

// countingTransport counts client-go's requests and keeps the first
// response's Content-Type (the LIST's).
type countingTransport struct {
	rt       http.RoundTripper
	n        *atomic.Int64
	respType *atomic.Pointer[string]
}

func (t countingTransport) RoundTrip(r *http.Request) (*http.Response, error) {
	t.n.Add(1)
	resp, err := t.rt.RoundTrip(r)
	if err == nil {
		ct := resp.Header.Get("Content-Type")
		t.respType.CompareAndSwap(nil, &ct)
	}
	return resp, err
}

// countingMetrics counts kcm's requests.
type countingMetrics struct{ n *atomic.Int64 }

func (m countingMetrics) Request(string, string, string, time.Duration) { m.n.Add(1) }
func (countingMetrics) RateLimited(string, string, time.Duration)       {}
