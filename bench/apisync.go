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
	Name     string
	Engine   string                // KCM, KCMTyped or ClientGo
	Initial  reflector.InitialList // kcm only
	PageSize int64                 // kcm only: reflector.Options.PageSize
	// NoGzip (client-go only) turns off the transport's Accept-Encoding:
	// gzip, which Go's HTTP transport otherwise adds to every request and
	// kube-apiserver honours for responses over 128 KiB.
	NoGzip bool
	// Protobuf (client-go only) asks for application/vnd.kubernetes.protobuf,
	// kube-controller-manager's default, instead of JSON.
	Protobuf bool
}

// APIVariants are the variants the real-apiserver benchmark runs, client-go
// first: client-go's reflector (LIST at resourceVersion "0" through its
// pager, limit 500, then WATCH), and kcm's RawObject informer with each
// way of reading the initial state — from the watch cache (resourceVersion
// "0"), consistent (resourceVersion "") in pages of 500, 5000 or in one
// response, and streamed (WatchList) — then kcm's typed informer with the
// default. client-go/no-gzip, not in the default set, shows what the
// apiserver's gzip of the list costs (both engines' transports ask for it).
var APIVariants = []APIVariant{
	{Name: "client-go", Engine: ClientGo},
	{Name: "kcm/from-cache", Engine: KCM, Initial: reflector.ListFromCache, PageSize: 500},
	{Name: "kcm/consistent-500", Engine: KCM, Initial: reflector.ListConsistent, PageSize: 500},
	{Name: "kcm/consistent-5000", Engine: KCM, Initial: reflector.ListConsistent, PageSize: 5000},
	{Name: "kcm/consistent-all", Engine: KCM, Initial: reflector.ListConsistent, PageSize: -1},
	{Name: "kcm/stream", Engine: KCM, Initial: reflector.ListStream},
	{Name: "kcm/default", Engine: KCM},
	{Name: "kcm-typed/default", Engine: KCMTyped},
}

// extraAPIVariants can be named with -variants but do not run by default.
var extraAPIVariants = []APIVariant{
	{Name: "client-go/no-gzip", Engine: ClientGo, NoGzip: true},
	{Name: "client-go/protobuf", Engine: ClientGo, Protobuf: true},
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
}

// SyncOnce starts variant v's informer on the cluster kubeconfig names,
// waits until it has synced pods pods and returns what it took. It is
// meant to run once in a fresh process (cmd/apisync runs one per sample),
// so that nothing of an earlier sync is in its heap or its connections.
func SyncOnce(ctx context.Context, kubeconfig string, v APIVariant, pods int) (SyncSample, error) {
	s := SyncSample{Variant: v.Name, Pods: pods}
	var requests atomic.Int64
	e, err := newAPIEngine(kubeconfig, v, &requests)
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
	runtime.KeepAlive(r)
	return s, nil
}

// newAPIEngine builds v's engine for the cluster kubeconfig names, counting
// its HTTP requests into requests.
func newAPIEngine(kubeconfig string, v APIVariant, requests *atomic.Int64) (Engine, error) {
	switch v.Engine {
	case ClientGo:
		cfg, err := clientcmd.BuildConfigFromFlags("", kubeconfig)
		if err != nil {
			return nil, fmt.Errorf("bench: client-go kubeconfig: %w", err)
		}
		cfg.Wrap(func(rt http.RoundTripper) http.RoundTripper { return countingTransport{rt, requests} })
		cfg.DisableCompression = v.NoGzip
		if v.Protobuf {
			return NewClientGoProtoFor(v.Name, cfg)
		}
		return NewClientGoFor(v.Name, cfg, false)
	case KCM, KCMTyped:
		cfg, err := kcmclientcmd.LoadKubeconfig(kcmclientcmd.LoadOptions{ExplicitPath: kubeconfig})
		if err != nil {
			return nil, fmt.Errorf("bench: kcm kubeconfig: %w", err)
		}
		cfg.QPS = -1
		ro := reflector.Options{InitialList: v.Initial, PageSize: v.PageSize}
		return NewKCMFor(v.Name, cfg, v.Engine == KCMTyped, ro, rest.WithRequestMetrics(countingMetrics{requests}))
	}
	return nil, fmt.Errorf("bench: variant %s: unknown engine %q", v.Name, v.Engine)
}

// countingTransport counts client-go's requests.
type countingTransport struct {
	rt http.RoundTripper
	n  *atomic.Int64
}

func (t countingTransport) RoundTrip(r *http.Request) (*http.Response, error) {
	t.n.Add(1)
	return t.rt.RoundTrip(r)
}

// countingMetrics counts kcm's requests.
type countingMetrics struct{ n *atomic.Int64 }

func (m countingMetrics) Request(string, string, string, time.Duration) { m.n.Add(1) }
func (countingMetrics) RateLimited(string, string, time.Duration)       {}
