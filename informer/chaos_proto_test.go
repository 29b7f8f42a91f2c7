package informer_test

import (
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"math/rand/v2"
	"net/http"
	"net/http/httptest"
	"runtime"
	"testing"
	"time"

	"go.uber.org/goleak"

	"github.com/kcmlab/kcm/informer"
	"github.com/kcmlab/kcm/internal/testing/fakeapi"
	"github.com/kcmlab/kcm/kube/api"
	"github.com/kcmlab/kcm/kube/api/decode"
	"github.com/kcmlab/kcm/kube/api/protowire"
	"github.com/kcmlab/kcm/kube/rest"
	"github.com/kcmlab/kcm/reflector"
)

// Regression tests for the faults of protobuf answers (fakeapi's
// protofaults.go), one fault at a time: what the client makes of the
// first broken frame or list (read through it, or an error that names it:
// api.ErrDecode, and the protowire sentinel where one applies), and that
// an informer on a protobuf client converges through it.

// protoCap is the client's bound on one object in these tests (and the
// fake's Options.MaxObject, which ProtoOversize exceeds).
const protoCap = 64 << 10

// newProtoFake starts a fake serving pods whose only fault is f, at rate
// p, disabled until the test enables it.
func newProtoFake(t *testing.T, f fakeapi.Fault, p float64) (*fakeapi.Server, *fakeapi.Injector) {
	t.Helper()
	inj := fakeapi.NewInjector(1, fakeapi.Rates{f: p}, 0)
	inj.SetEnabled(false)
	srv := fakeapi.New(fakeapi.Options{Resources: []fakeapi.Resource{chaosPods}, Faults: inj, MaxObject: protoCap})
	t.Cleanup(srv.Close)
	return srv, inj
}

// protoClient is a client of srv that asks for protobuf, with objects
// bounded by protoCap.
func protoClient(t *testing.T, srv *fakeapi.Server) *rest.Client {
	t.Helper()
	c, err := rest.NewClient(&rest.Config{Host: srv.URL(), QPS: -1, ContentType: rest.ContentTypeProtobuf},
		rest.WithMaxObjectBytes(protoCap),
		rest.WithRetryPolicy(rest.RetryPolicy{MaxAttempts: 1}))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(c.CloseIdleConnections)
	return c
}

func createPod(t *testing.T, srv *fakeapi.Server, name string) {
	t.Helper()
	if _, err := srv.Create(chaosPods, map[string]any{"metadata": map[string]any{"namespace": "chaos", "name": name},
		"spec": map[string]any{"containers": []any{map[string]any{"name": "c", "image": "registry.k8s.io/pause:3.10"}}}}); err != nil {
		t.Fatal(err)
	}
}

// TestProtoWatchFaults: a watch on protobuf meeting each fault of a
// protobuf stream, on every frame, over chunked HTTP and WebSocket. A
// fault a correct reader reads through (unknown fields, which protobuf's
// rules say to skip; JSON over WebSocket, where each message says its
// encoding) must give the event; any other must end the watch with an
// error that names it, never an event made of the broken bytes. Several
// watches per case, so the fault's variants (a prefix too long, too short
// or near 4 GiB; the three truncated varints) all come up.
func TestProtoWatchFaults(t *testing.T) {
	defer goleak.VerifyNone(t, goleak.IgnoreCurrent())
	for _, tc := range []struct {
		fault fakeapi.Fault
		tr    rest.WatchTransport
		want  error // nil: the event is read through the fault
	}{
		{fakeapi.ProtoLyingLength, rest.Chunked, api.ErrDecode},
		{fakeapi.ProtoLyingLength, rest.WebSocket, api.ErrDecode},
		{fakeapi.ProtoTruncatedVarint, rest.Chunked, protowire.ErrTruncated},
		{fakeapi.ProtoTruncatedVarint, rest.WebSocket, protowire.ErrTruncated},
		{fakeapi.ProtoWrongKind, rest.Chunked, api.ErrDecode},
		{fakeapi.ProtoWrongKind, rest.WebSocket, api.ErrDecode},
		{fakeapi.ProtoUnknownFields, rest.Chunked, nil},
		{fakeapi.ProtoUnknownFields, rest.WebSocket, nil},
		{fakeapi.ProtoOversize, rest.Chunked, protowire.ErrFrameSize},
		{fakeapi.ProtoOversize, rest.WebSocket, api.ErrDecode},
		{fakeapi.ProtoJSON, rest.Chunked, protowire.ErrFrameSize},
		{fakeapi.ProtoJSON, rest.WebSocket, nil},
		{fakeapi.Garbage, rest.Chunked, api.ErrDecode},
		{fakeapi.Garbage, rest.WebSocket, api.ErrDecode},
	} {
		t.Run(fmt.Sprintf("%v/%s", tc.fault, transportName(tc.tr)), func(t *testing.T) {
			srv, inj := newProtoFake(t, tc.fault, 1)
			pods := rest.NewResources(protoClient(t, srv), rest.Pods, decode.Typed[api.Pod]())
			for i := range 8 {
				rv := srv.ResourceVersion()
				a, b := fmt.Sprintf("a-%d", i), fmt.Sprintf("b-%d", i)
				createPod(t, srv, a)
				createPod(t, srv, b)
				inj.SetEnabled(true)
				ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
				w, err := pods.Watch(ctx, rest.WatchOptions{ListOptions: rest.ListOptions{ResourceVersion: rv}, Transport: tc.tr})
				if err != nil {
					cancel()
					t.Fatalf("watch %d: %v", i, err)
				}
				got, err := readTwo(w)
				w.Close()
				cancel()
				inj.SetEnabled(false)
				switch {
				case tc.want == nil && (err != nil || got != a+","+b):
					t.Fatalf("watch %d: read %q, %v; want the events of %s and %s", i, got, err, a, b)
				case tc.want != nil && !errors.Is(err, tc.want):
					t.Fatalf("watch %d: read %q, then %v; want an error wrapping %v", i, got, err, tc.want)
				case tc.want != nil && !errors.Is(err, api.ErrDecode):
					t.Fatalf("watch %d: %v does not wrap api.ErrDecode", i, err)
				case tc.want != nil && got != "" && got != a:
					t.Fatalf("watch %d: read %q before the error %v: only %s was sent whole", i, got, err, a)
				}
			}
			if inj.Counts()[tc.fault] == 0 {
				t.Fatal("the fault never struck: the test tests nothing")
			}
		})
	}
}

// readTwo reads up to two events and returns their objects' names, joined
// by a comma, and the error that stopped it.
func readTwo(w *rest.Watcher[*api.Pod]) (string, error) {
	got := ""
	for range 2 {
		ev, err := w.Next()
		if err != nil {
			return got, err
		}
		if ev.Type != rest.Added {
			return got, fmt.Errorf("event %s of %q", ev.Type, ev.Object.GetObjectMeta().Name)
		}
		if got != "" {
			got += ","
		}
		got += ev.Object.GetObjectMeta().Name
	}
	return got, nil
}

func transportName(tr rest.WatchTransport) string {
	if tr == rest.WebSocket {
		return "websocket"
	}
	return "chunked"
}

// TestProtoListFaults: a protobuf LIST whose envelope, list, list metadata
// and items carry unknown fields is the same list; one whose first item is
// over the client's object bound, or that turns to garbage halfway, is an
// error naming it.
func TestProtoListFaults(t *testing.T) {
	defer goleak.VerifyNone(t, goleak.IgnoreCurrent())
	for _, tc := range []struct {
		fault fakeapi.Fault
		want  error
	}{
		{fakeapi.ProtoListUnknownFields, nil},
		{fakeapi.ProtoListOversize, protowire.ErrItemSize},
		{fakeapi.ListGarbage, api.ErrDecode},
	} {
		t.Run(tc.fault.String(), func(t *testing.T) {
			srv, inj := newProtoFake(t, tc.fault, 1)
			for i := range 5 {
				createPod(t, srv, fmt.Sprintf("p-%d", i))
			}
			pods := rest.NewResources(protoClient(t, srv), rest.Pods, decode.Typed[api.Pod]())
			inj.SetEnabled(true)
			l, err := pods.ListAll(context.Background(), rest.ListOptions{Limit: 3})
			inj.SetEnabled(false)
			switch {
			case tc.want == nil && err != nil:
				t.Fatalf("list: %v", err)
			case tc.want == nil && (len(l.Items) != 5 || l.Items[4].Name != "p-4" || l.ResourceVersion != srv.ResourceVersion()):
				t.Fatalf("list: %d items at %q, want p-0..p-4 at %s", len(l.Items), l.ResourceVersion, srv.ResourceVersion())
			case tc.want != nil && (!errors.Is(err, tc.want) || !errors.Is(err, api.ErrDecode)):
				t.Fatalf("list: %v; want an error wrapping %v and api.ErrDecode", err, tc.want)
			}
			if inj.Counts()[tc.fault] == 0 {
				t.Fatal("the fault never struck: the test tests nothing")
			}
		})
	}
}

// TestProtoFaultsConverge: an informer on a protobuf client, under one
// fault of protobuf answers at a time (a fifth of the frames or lists),
// converges once the faults stop, over chunked HTTP and WebSocket: the
// reflector resumes from its last resourceVersion after every broken
// stream, relists after every broken list, and never caches an object
// made of broken bytes.
func TestProtoFaultsConverge(t *testing.T) {
	defer goleak.VerifyNone(t, goleak.IgnoreCurrent())
	for _, f := range []fakeapi.Fault{fakeapi.ProtoLyingLength, fakeapi.ProtoTruncatedVarint, fakeapi.ProtoWrongKind,
		fakeapi.ProtoUnknownFields, fakeapi.ProtoOversize, fakeapi.ProtoJSON, fakeapi.ProtoListUnknownFields,
		fakeapi.ProtoListOversize} {
		for _, tr := range []rest.WatchTransport{rest.Chunked, rest.WebSocket} {
			t.Run(fmt.Sprintf("%v/%s", f, transportName(tr)), func(t *testing.T) {
				srv, inj := newProtoFake(t, f, 0.2)
				w := &chaosWriter{srv: srv, rng: rand.New(rand.NewPCG(uint64(f), 3)), names: 10}
				for range 20 {
					if err := w.write(); err != nil {
						t.Fatal(err)
					}
				}
				b := reflector.DefaultBackoff()
				b.Initial, b.Max = time.Millisecond, 5*time.Millisecond
				fo := informer.NewFactory(protoClient(t, srv), informer.FactoryOptions{Transport: tr,
					Reflector: reflector.Options{InitialList: reflector.ListConsistent, PageSize: 4, Backoff: &b,
						IdleTimeout: 200 * time.Millisecond}})
				defer fo.Shutdown()
				if d := drivePodInformer(t, fo, srv, inj, w, 100); d != "" {
					t.Fatalf("no convergence under %v: %s (faults %v, requests %+v)", f, d, inj.Counts(), srv.Stats())
				}
				if inj.Counts()[f] == 0 || srv.Stats().Protobuf == 0 {
					t.Fatalf("faults %v, requests %+v: the test tests nothing", inj.Counts(), srv.Stats())
				}
			})
		}
	}
}

// TestProtoLengthPrefixAllocatesNothing: a protobuf watch frame whose
// length prefix announces 1 GiB, far over the client's bound, is refused
// when its 4 bytes are read (protowire.ErrFrameSize), before anything is
// allocated for it: a client that trusted the prefix would allocate a
// gibibyte per such frame (the chaos suite's ProtoLyingLength sends ones
// near 4 GiB). Measured as the bytes the Go heap allocated while the
// watch was read, which a trusting client takes past 256 MiB.
func TestProtoLengthPrefixAllocatesNothing(t *testing.T) {
	defer goleak.VerifyNone(t, goleak.IgnoreCurrent())
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", protowire.ContentType+";stream=watch")
		w.WriteHeader(http.StatusOK)
		_, _ = w.Write(binary.BigEndian.AppendUint32(nil, 1<<30))
		_, _ = w.Write(make([]byte, 1024))
		_ = http.NewResponseController(w).Flush()
		<-r.Context().Done()
	}))
	defer srv.Close()
	c, err := rest.NewClient(&rest.Config{Host: srv.URL, QPS: -1, ContentType: rest.ContentTypeProtobuf},
		rest.WithMaxObjectBytes(protoCap))
	if err != nil {
		t.Fatal(err)
	}
	defer c.CloseIdleConnections()
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	w, err := rest.NewResources(c, rest.Pods, decode.Typed[api.Pod]()).Watch(ctx, rest.WatchOptions{})
	if err != nil {
		t.Fatal(err)
	}
	_, err = w.Next()
	runtime.ReadMemStats(&after)
	w.Close()
	if alloc := after.TotalAlloc - before.TotalAlloc; alloc > 256<<20 {
		t.Errorf("reading a frame that announces 1 GiB allocated %d MiB", alloc>>20)
	}
	if !errors.Is(err, protowire.ErrFrameSize) || !errors.Is(err, api.ErrDecode) {
		t.Fatalf("frame announcing 1 GiB with a bound of %d: %v, want ErrFrameSize", protoCap, err)
	}
}
