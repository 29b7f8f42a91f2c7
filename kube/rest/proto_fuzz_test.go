package rest

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"testing"

	"github.com/kcmlab/kcm/clock"
	"github.com/kcmlab/kcm/kube/api"
	"github.com/kcmlab/kcm/kube/api/decode"
	"github.com/kcmlab/kcm/kube/api/protowire"
)

// The protobuf entry points under hostile bytes: a list body, a watch
// stream and a failure's body never panic, fail only with ErrDecode or an
// I/O error, and read the same however the bytes are cut into reads.

// rcProtoMeta is what a decoded RawObject shows of itself.
func rcProtoMeta(o *api.RawObject) string {
	return fmt.Sprintf("%s/%s %s/%s@%s %x", o.APIVersion, o.Kind, o.Namespace, o.Name, o.ResourceVersion, o.Proto())
}

// rcProtoListResult decodes a protobuf list read in chunks of n bytes,
// decoders goroutines decoding every item after the first in pairs.
func rcProtoListResult(t *testing.T, data []byte, n, decoders int) (string, string) {
	pd, _ := decode.AsProto(decode.StrippingManagedFields(decode.Wire()))
	var items []string
	tm := api.TypeMeta{APIVersion: "v1", Kind: "Pod"}
	d := newItemDecoder[*api.RawObject](protoItems[*api.RawObject]{pd: pd, tm: &tm}, func(o *api.RawObject) error {
		items = append(items, rcProtoMeta(o))
		return nil
	}, decoders)
	d.after, d.batch = 1, 2
	meta, err := decodeProtoListWith(&rcChunkReader{data: data, n: n}, 1<<16, d, &tm)
	rcCheckErr(t, err)
	if err != nil {
		return fmt.Sprintf("%q", items), rcErrClass(err)
	}
	return fmt.Sprintf("%q %q %q", items, meta.ResourceVersion, meta.Continue), "ok"
}

func FuzzProtoList(f *testing.F) {
	f.Add(pbList("42", "tok", pbPod("a", "1"), pbPod("b", "2")), uint8(0))
	f.Add(pbList("42", "")[:9], uint8(3))
	f.Add(pbStatusBody(410, "Expired", "x"), uint8(1))
	f.Add([]byte("k8s\x00\x12\x00"), uint8(0))
	f.Fuzz(func(t *testing.T, data []byte, chunk uint8) {
		n := 1 + int(chunk%16)
		w, wc := rcProtoListResult(t, data, len(data)+1, 1)
		s, sc := rcProtoListResult(t, data, n, 1)
		if w != s || wc != sc {
			t.Fatalf("read whole: %s, %s\nread in chunks of %d: %s, %s", w, wc, n, s, sc)
		}
		p, pc := rcProtoListResult(t, data, n, 3)
		if w != p || wc != pc {
			t.Fatalf("serial: %s, %s\non 3 decoders: %s, %s", w, wc, p, pc)
		}
	})
}

// rcProtoWatchResult decodes a protobuf watch stream read in chunks of n
// bytes.
func rcProtoWatchResult(t *testing.T, data []byte, n int) (string, string) {
	r := &rcChunkReader{data: data, n: n}
	src := newProtoChunkedSource(context.Background(), clock.Real{}, io.NopCloser(r), 0, func() {}, 1<<16)
	pd, _ := decode.AsProto(decode.Wire())
	w := &Watcher[*api.RawObject]{src: src, codec: decode.Wire(), pd: pd, path: "/api/v1/pods", cancel: func() {}}
	defer w.Close()
	var out []string
	for range len(data) + 2 { // each event takes at least four bytes
		ev, err := w.Next()
		if err != nil {
			rcCheckErr(t, err)
			return fmt.Sprintf("%q", out), rcErrClass(err)
		}
		if ev.Err != nil {
			out = append(out, fmt.Sprintf("%s %d %s", ev.Type, ev.Err.Status.Code, ev.Err.Status.Reason))
			continue
		}
		out = append(out, fmt.Sprintf("%s %s %d", ev.Type, rcProtoMeta(ev.Object), ev.Size))
	}
	t.Fatalf("stream of %d bytes gave more than %d events", len(data), len(data)+2)
	return "", ""
}

func FuzzProtoWatch(f *testing.F) {
	f.Add(pbFrames(pbPodEvent("ADDED", "a", "11"), pbInitEnd, pbExpired), uint8(0))
	f.Add(pbFrames(pbPodEvent("ADDED", "a", "11"))[:20], uint8(2))
	f.Add(pbFrames([]byte{0x0a, 0x01}), uint8(1))
	f.Fuzz(func(t *testing.T, data []byte, chunk uint8) {
		n := 1 + int(chunk%16)
		w, wc := rcProtoWatchResult(t, data, len(data)+1)
		s, sc := rcProtoWatchResult(t, data, n)
		if w != s || wc != sc {
			t.Fatalf("read whole: %s, %s\nread in chunks of %d: %s, %s", w, wc, n, s, sc)
		}
	})
}

// FuzzProtoStatus: any body of a failure answered as protobuf gives a
// *StatusError with the response's code, never a panic.
func FuzzProtoStatus(f *testing.F) {
	f.Add(pbStatusBody(410, "Expired", "too old"))
	f.Add(protowire.Wrap(nil, "v1", "Status", []byte{0x2a, 0x03, 0x22, 0x01}))
	f.Add([]byte("<html>"))
	f.Fuzz(func(t *testing.T, data []byte) {
		h := http.Header{"Content-Type": {ContentTypeProtobuf}}
		e := newStatusError("GET", "/api/v1/pods", 503, h, data)
		if e.Status.Code != 503 || e.Status.Reason == "" {
			t.Fatalf("status %+v", e.Status)
		}
		_ = e.Error()
	})
}
