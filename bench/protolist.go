package bench

import (
	"bytes"
	"compress/gzip"
	"context"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"runtime"
	"slices"
	"time"

	corev1 "k8s.io/api/core/v1"
	kruntime "k8s.io/apimachinery/pkg/runtime"
	"k8s.io/client-go/kubernetes/scheme"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/clientcmd"

	"github.com/kcmlab/kcm/internal/testing/managerbench"
	"github.com/kcmlab/kcm/kube/api"
	"github.com/kcmlab/kcm/kube/api/decode"
	"github.com/kcmlab/kcm/kube/api/protowire"
	kcmrest "github.com/kcmlab/kcm/kube/rest"
)

// kube/api/protowire against the real kube-apiserver (issues 13, 34): one
// LIST of every pod, asked for as application/json or as
// application/vnd.kubernetes.protobuf, from the watch cache in one
// response (resourceVersion=0, as client-go's first LIST) or consistent
// in pages of 500 (kcm's default pattern). Measured per LIST: wall time
// until the last byte of the last page, bytes on the wire and once
// gunzipped, kube-apiserver's CPU from the first request until it is
// idle again (what the two encodings cost the server, its garbage
// collection included), and — after the bytes are in — the client
// CPU of decoding them: kcm's JSON RawObject codec or kube/api/protowire's
// scan, and client-go's decode of whole v1.Pods for reference.

// ProtoListVariant is one way of listing.
type ProtoListVariant struct {
	Name     string
	Accept   string // the Accept header
	Paged    bool   // consistent pages of 500, else resourceVersion=0 unpaged
	Identity bool   // Accept-Encoding: identity instead of gzip
}

// ProtoListVariants are the variants cmd/protolist runs, in order.
var ProtoListVariants = []ProtoListVariant{
	{Name: "json/rv0", Accept: "application/json"},
	{Name: "proto/rv0", Accept: protowire.ContentType},
	{Name: "json/paged-500", Accept: "application/json", Paged: true},
	{Name: "proto/paged-500", Accept: protowire.ContentType, Paged: true},
	{Name: "json/rv0/identity", Accept: "application/json", Identity: true},
	{Name: "proto/rv0/identity", Accept: protowire.ContentType, Identity: true},
}

// ProtoListSample is one LIST measured.
type ProtoListSample struct {
	Variant   string
	Pods      int
	Pages     int
	Wall      time.Duration // request to last byte, all pages
	WireBytes int64         // bytes received (compressed when gzip)
	Bytes     int64         // bytes once gunzipped
	ServerCPU time.Duration // kube-apiserver's CPU from the first request until it is idle again
	// Client CPU decoding the bytes already read (no I/O): kcm's codec
	// for the variant's encoding (protowire scan, or kcm's RawObject
	// codec for JSON), then client-go's decode of whole v1.Pods.
	DecodeCPU, ClientGoCPU time.Duration
	// FamilyCPU (protobuf only): protowire with Options.FamilyDelta, each
	// pod with a controller kept as a delta against a sibling.
	FamilyCPU time.Duration
}

// NewProtoListClient returns an HTTP client for the cluster kubeconfig
// names (client-go's TLS and credentials, no compression of its own, so
// the wire bytes can be counted) and the server's URL.
func NewProtoListClient(kubeconfig string) (*http.Client, string, error) {
	cfg, err := clientcmd.BuildConfigFromFlags("", kubeconfig)
	if err != nil {
		return nil, "", fmt.Errorf("bench: kubeconfig: %w", err)
	}
	cfg.DisableCompression = true // Accept-Encoding is set per request
	c, err := rest.HTTPClientFor(cfg)
	if err != nil {
		return nil, "", fmt.Errorf("bench: HTTP client: %w", err)
	}
	return c, cfg.Host, nil
}

// Settling: kube-apiserver's CPU over a LIST includes the garbage
// collection of the previous one (an 84 MiB JSON response leaves a lot),
// which would be charged to whichever variant runs next. Before each
// LIST the harness waits until the server's CPU over settleWindow is
// below settleRate of a core, for at most settleMax.
const (
	settleWindow = 250 * time.Millisecond
	settleRate   = 0.15
	settleMax    = 10 * time.Second
)

// settle waits until pid is nearly idle (see above), or settleMax.
func settle(ctx context.Context, pid int) error {
	deadline := time.Now().Add(settleMax)
	t := time.NewTicker(settleWindow)
	defer t.Stop()
	prev, err := managerbench.ReadSample(pid, time.Now())
	if err != nil {
		return err
	}
	for time.Now().Before(deadline) {
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-t.C:
		}
		cur, err := managerbench.ReadSample(pid, time.Now())
		if err != nil {
			return err
		}
		if rate := (cur.CPU - prev.CPU).Seconds() / cur.At.Sub(prev.At).Seconds(); rate < settleRate {
			return nil
		}
		prev = cur
	}
	return nil
}

// MeasureProtoList lists every pod once as v says and decodes the pages.
// apiPID is kube-apiserver's process, for its CPU; the server is let
// settle first (see settle).
func MeasureProtoList(ctx context.Context, c *http.Client, host string, v ProtoListVariant, apiPID int) (ProtoListSample, error) {
	s := ProtoListSample{Variant: v.Name}
	var pages [][]byte
	runtime.GC()
	if err := settle(ctx, apiPID); err != nil {
		return s, err
	}
	s0, err := managerbench.ReadSample(apiPID, time.Now())
	if err != nil {
		return s, err
	}
	start := time.Now()
	pages, s.WireBytes, err = ListPodPages(ctx, c, host, v)
	if err != nil {
		return s, err
	}
	s.Wall = time.Since(start)
	for _, p := range pages {
		s.Bytes += int64(len(p))
	}
	// The server's CPU until it is idle again: the garbage collection of
	// what the LIST allocated is part of its cost, whether or not a cycle
	// happened to run during the request (rv=0 lists showed both).
	if err := settle(ctx, apiPID); err != nil {
		return s, err
	}
	s1, err := managerbench.ReadSample(apiPID, time.Now())
	if err != nil {
		return s, err
	}
	s.ServerCPU, s.Pages = s1.CPU-s0.CPU, len(pages)
	if s.Pods, s.DecodeCPU, err = decodeKCM(pages, v.Accept, false); err != nil {
		return s, err
	}
	if v.Accept == protowire.ContentType {
		if _, s.FamilyCPU, err = decodeKCM(pages, v.Accept, true); err != nil {
			return s, err
		}
	}
	n, cgCPU, err := decodeClientGo(pages, v.Accept)
	if err != nil {
		return s, err
	}
	if n != s.Pods {
		return s, fmt.Errorf("bench: %s: kcm decoded %d pods, client-go %d", v.Name, s.Pods, n)
	}
	s.ClientGoCPU = cgCPU
	return s, nil
}

// ListPodPages lists every pod as v says and returns the pages' bodies
// (gunzipped) and the bytes that came over the wire.
func ListPodPages(ctx context.Context, c *http.Client, host string, v ProtoListVariant) (pages [][]byte, wire int64, err error) {
	cont := ""
	for {
		q := url.Values{}
		if v.Paged {
			q.Set("limit", "500")
			if cont != "" {
				q.Set("continue", cont)
			}
		} else {
			q.Set("resourceVersion", "0")
		}
		body, n, err := getList(ctx, c, host+"/api/v1/pods?"+q.Encode(), v)
		if err != nil {
			return nil, 0, err
		}
		wire += n
		pages = append(pages, body)
		if !v.Paged {
			return pages, wire, nil
		}
		if cont, err = continueOf(body, v.Accept); err != nil {
			return nil, 0, err
		}
		if cont == "" {
			return pages, wire, nil
		}
	}
}

// getList GETs one page and returns its bytes, gunzipped, and how many
// bytes came over the wire.
func getList(ctx context.Context, c *http.Client, u string, v ProtoListVariant) ([]byte, int64, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, u, nil)
	if err != nil {
		return nil, 0, err
	}
	req.Header.Set("Accept", v.Accept)
	if v.Identity {
		req.Header.Set("Accept-Encoding", "identity")
	} else {
		req.Header.Set("Accept-Encoding", "gzip")
	}
	resp, err := c.Do(req)
	if err != nil {
		return nil, 0, fmt.Errorf("bench: LIST %s: %w", u, err)
	}
	defer resp.Body.Close()
	wire, err := io.ReadAll(resp.Body)
	if err != nil {
		return nil, 0, fmt.Errorf("bench: LIST %s: read: %w", u, err)
	}
	if resp.StatusCode != http.StatusOK {
		return nil, 0, fmt.Errorf("bench: LIST %s: %s: %.200s", u, resp.Status, wire)
	}
	if ct := resp.Header.Get("Content-Type"); ct != v.Accept {
		return nil, 0, fmt.Errorf("bench: LIST %s: served as %q, asked for %q", u, ct, v.Accept)
	}
	if resp.Header.Get("Content-Encoding") != "gzip" {
		return wire, int64(len(wire)), nil
	}
	zr, err := gzip.NewReader(bytes.NewReader(wire))
	if err != nil {
		return nil, 0, fmt.Errorf("bench: LIST %s: gunzip: %w", u, err)
	}
	body, err := io.ReadAll(zr)
	if err != nil {
		return nil, 0, fmt.Errorf("bench: LIST %s: gunzip: %w", u, err)
	}
	return body, int64(len(wire)), nil
}

// continueOf reads a page's continue token.
func continueOf(body []byte, accept string) (string, error) {
	if accept == protowire.ContentType {
		u, err := protowire.Unwrap(body)
		if err != nil {
			return "", err
		}
		l, err := protowire.SplitList(u.Raw)
		return l.Continue, err
	}
	meta, err := kcmrest.DecodeList(bytes.NewReader(body), kcmRawStrip, func(*api.RawObject) error { return nil })
	return meta.Continue, err
}

var kcmRawStrip = decode.StrippingManagedFields(decode.Raw())

// decodeKCM decodes the pages as a kcm cache would and returns the pods
// and the CPU it took: kube/api/protowire's scan for protobuf (with family,
// Options.FamilyDelta), kcm's RawObject codec for JSON; managedFields
// dropped in both.
func decodeKCM(pages [][]byte, accept string, family bool) (int, time.Duration, error) {
	held := make([]api.Object, 0, 1024)
	keep := func(o api.Object) error { held = append(held, o); return nil }
	runtime.GC()
	cpu0 := CPUTime()
	for _, p := range pages {
		var err error
		if accept == protowire.ContentType {
			_, err = protowire.DecodeList(p, protowire.Options{DropManagedFields: true, FamilyDelta: family},
				func(o *protowire.Object) error { return keep(o) })
		} else {
			_, err = kcmrest.DecodeList(bytes.NewReader(p), kcmRawStrip, func(o *api.RawObject) error { return keep(o) })
		}
		if err != nil {
			return 0, 0, fmt.Errorf("bench: decode list: %w", err)
		}
	}
	took := CPUTime() - cpu0
	return len(held), took, nil
}

// decodeClientGo decodes the pages into v1.PodLists as client-go does
// (its universal deserializer: protobuf or JSON by content) and returns
// the pods and the CPU it took.
func decodeClientGo(pages [][]byte, accept string) (int, time.Duration, error) {
	info, ok := kruntime.SerializerInfoForMediaType(scheme.Codecs.SupportedMediaTypes(), accept)
	if !ok {
		return 0, 0, fmt.Errorf("bench: no client-go serializer for %s", accept)
	}
	var lists []*corev1.PodList
	runtime.GC()
	cpu0 := CPUTime()
	for _, p := range pages {
		l := &corev1.PodList{}
		if _, _, err := info.Serializer.Decode(p, nil, l); err != nil {
			return 0, 0, fmt.Errorf("bench: client-go decode: %w", err)
		}
		lists = append(lists, l)
	}
	took := CPUTime() - cpu0
	n := 0
	for _, l := range lists {
		n += len(l.Items)
	}
	return n, took, nil
}

// ProtoListTable formats samples: medians per variant, in
// ProtoListVariants' order.
func ProtoListTable(samples []ProtoListSample) string {
	var b bytes.Buffer
	fmt.Fprintf(&b, "%-20s %6s %5s %9s %10s %10s %11s %12s %12s %12s\n", "variant", "pods", "pages", "wall", "wire MiB", "body MiB", "apiserver", "kcm decode", "family", "client-go")
	for _, v := range ProtoListVariants {
		var ss []ProtoListSample
		for _, s := range samples {
			if s.Variant == v.Name {
				ss = append(ss, s)
			}
		}
		if len(ss) == 0 {
			continue
		}
		med := func(f func(ProtoListSample) float64) float64 {
			xs := make([]float64, len(ss))
			for i, s := range ss {
				xs[i] = f(s)
			}
			slices.Sort(xs)
			return xs[len(xs)/2]
		}
		fmt.Fprintf(&b, "%-20s %6d %5d %8.3fs %10.1f %10.1f %10.3fs %11.3fs %11.3fs %11.3fs\n", v.Name, ss[0].Pods, ss[0].Pages,
			med(func(s ProtoListSample) float64 { return s.Wall.Seconds() }),
			med(func(s ProtoListSample) float64 { return float64(s.WireBytes) / (1 << 20) }),
			med(func(s ProtoListSample) float64 { return float64(s.Bytes) / (1 << 20) }),
			med(func(s ProtoListSample) float64 { return s.ServerCPU.Seconds() }),
			med(func(s ProtoListSample) float64 { return s.DecodeCPU.Seconds() }),
			med(func(s ProtoListSample) float64 { return s.FamilyCPU.Seconds() }),
			med(func(s ProtoListSample) float64 { return s.ClientGoCPU.Seconds() }))
	}
	return b.String()
}
