package rest

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strings"
	"testing"

	"github.com/kcmlab/kcm/clock"
	"github.com/kcmlab/kcm/kube/api"
	"github.com/kcmlab/kcm/kube/api/decode"
)

// Fuzz tests of the decoders that read bytes from the network. In a plain
// `go test` they run their seeds only; `go test -fuzz FuzzX` explores.
// Properties: no panic (a panic recovered inside the decoder and turned into
// an error is reported too: its message says "runtime error"); every error
// wraps ErrDecode or is io.EOF / io.ErrUnexpectedEOF; and the result does
// not depend on how the bytes were split into reads.

// rcChunkReader hands out at most n bytes per Read, like a network
// connection delivering chunks.
type rcChunkReader struct {
	data []byte
	n    int
}

func (r *rcChunkReader) Read(p []byte) (int, error) {
	if len(r.data) == 0 {
		return 0, io.EOF
	}
	k := min(len(p), r.n, len(r.data))
	copy(p, r.data[:k])
	r.data = r.data[k:]
	return k, nil
}

// rcCheckErr fails on errors that are neither decode nor I/O errors, and on
// recovered panics.
func rcCheckErr(t *testing.T, err error) {
	t.Helper()
	if err == nil {
		return
	}
	if strings.Contains(err.Error(), "runtime error") {
		t.Fatalf("recovered panic: %v", err)
	}
	if !errors.Is(err, api.ErrDecode) && !errors.Is(err, io.EOF) && !errors.Is(err, io.ErrUnexpectedEOF) {
		t.Fatalf("error %v wraps neither ErrDecode nor an io error", err)
	}
}

// rcErrClass names what callers can tell apart about an error.
func rcErrClass(err error) string {
	switch {
	case err == nil:
		return "ok"
	case err == io.EOF:
		return "eof"
	case errors.Is(err, io.ErrUnexpectedEOF):
		return "truncated"
	case errors.Is(err, api.ErrDecode):
		return "decode"
	}
	return "other: " + err.Error()
}

// rcHasControlChar reports a byte below 0x20 inside what reads as a
// string. Such bytes are invalid there, and json-iterator rejects them only
// when the whole string sits in its read buffer, so for these inputs the
// outcome may depend on chunking (the apiserver never sends them: Go's
// encoder escapes them).
func rcHasControlChar(data []byte) bool {
	in := false
	for i := 0; i < len(data); i++ {
		switch c := data[i]; {
		case in && c == '\\':
			i++
		case c == '"':
			in = !in
		case in && c < 0x20:
			return true
		}
	}
	return false
}

// rcListResult decodes a list read in chunks of n bytes: the items and,
// after success, the list's metadata; and how decoding ended.
func rcListResult(t *testing.T, data []byte, n int) (string, string) {
	return rcListResultOn(t, data, n, 1)
}

// rcListResultOn is rcListResult with decoders goroutines decoding every
// item after the first in batches of two (listpar.go).
func rcListResultOn(t *testing.T, data []byte, n, decoders int) (string, string) {
	var items []string
	d := newItemDecoder(decode.Codec[*api.RawObject](decode.Raw()), func(o *api.RawObject) error {
		items = append(items, string(o.Raw()))
		return nil
	}, decoders)
	d.after, d.batch = 1, 2
	meta, err := decodeListWith(&rcChunkReader{data: data, n: n}, DefaultMaxObjectBytes, d)
	rcCheckErr(t, err)
	if err != nil {
		// What the metadata holds after a failure is unspecified.
		return fmt.Sprintf("%q", items), rcErrClass(err)
	}
	remaining := "nil"
	if meta.RemainingItemCount != nil {
		remaining = fmt.Sprint(*meta.RemainingItemCount)
	}
	return fmt.Sprintf("%q %q %q %s", items, meta.ResourceVersion, meta.Continue, remaining), "ok"
}

// rcSameOutcome compares two results of one input read in different
// chunks. Bytes that are both malformed and cut short may be reported as
// either, depending on which json-iterator notices first, and that depends
// on its buffer; any other difference is a bug.
func rcSameOutcome(t *testing.T, data []byte, n int, whole, split [2]string) {
	t.Helper()
	if rcHasControlChar(data) {
		return
	}
	ambiguous := map[string]bool{"truncated": true, "decode": true}
	if whole[0] != split[0] || whole[1] != split[1] && !(ambiguous[whole[1]] && ambiguous[split[1]]) {
		t.Fatalf("read whole: %s, %s\nread in chunks of %d: %s, %s", whole[0], whole[1], n, split[0], split[1])
	}
}

func FuzzDecodeList(f *testing.F) {
	f.Add([]byte(`{"kind":"List","metadata":{"resourceVersion":"1","continue":"c"},"items":[{"metadata":{"name":"a"}},{"metadata":{"name":"b"}}]}`), uint8(0))
	f.Add([]byte(`{"items":[{"metadata":{"name":"a","labels":{"x":"y"}},"spec":{"s":"}\"]"}}],"metadata":{"remainingItemCount":3}}`), uint8(3))
	f.Add([]byte(`{"items":[]}`), uint8(1))
	f.Add([]byte(`{"items":null,"metadata":null}`), uint8(1))
	f.Add([]byte(`{"items":[{"metadata":{"name":"a"}},`), uint8(7))
	f.Add([]byte(`{"items":[1,2.5e3,-0,"x",true,null,[]]}`), uint8(2))
	f.Add([]byte(`<html>502</html>`), uint8(0))
	f.Add([]byte(``), uint8(0))
	f.Add([]byte(`{"metadata":{"resourceVersion":5}}`), uint8(0))
	f.Add([]byte(`{"":00`), uint8(0))
	f.Add([]byte(`{}`), uint8(0))
	f.Add([]byte(`null`), uint8(0))
	f.Fuzz(func(t *testing.T, data []byte, chunk uint8) {
		n := 1 + int(chunk%16)
		w, wc := rcListResult(t, data, len(data)+1)
		s, sc := rcListResult(t, data, n)
		if json.Valid(data) && (wc == "truncated" || sc == "truncated") {
			t.Fatalf("complete JSON reported as cut short: %s / %s", wc, sc)
		}
		rcSameOutcome(t, data, n, [2]string{w, wc}, [2]string{s, sc})
		// Decoded by three goroutines, the same bytes give the same items
		// and the same end, exactly.
		if p, pc := rcListResultOn(t, data, len(data)+1, 3); p != w || pc != wc {
			t.Fatalf("serial: %s, %s\nparallel: %s, %s", w, wc, p, pc)
		}
	})
}

// rcWatchResult decodes a watch stream read in chunks of n bytes: the
// events' types and object bytes; and how the stream ended.
func rcWatchResult(t *testing.T, data []byte, n int) (string, string) {
	t.Helper()
	r := &rcChunkReader{data: data, n: n}
	src := newChunkedSource(context.Background(), clock.Real{}, io.NopCloser(r), 0, func() {})
	w := &Watcher[*api.RawObject]{src: src, codec: decode.Raw(), path: "/api/v1/pods", cancel: func() {}}
	defer w.Close()
	var out []string
	for range len(data) + 2 { // each event takes at least one byte
		ev, err := w.Next()
		if err != nil {
			rcCheckErr(t, err)
			return fmt.Sprintf("%q", out), rcErrClass(err)
		}
		switch {
		case ev.Err != nil:
			out = append(out, fmt.Sprintf("%s %d %d", ev.Type, ev.Err.Status.Code, ev.Size))
		default:
			out = append(out, fmt.Sprintf("%s %s %d", ev.Type, ev.Object.Raw(), ev.Size))
		}
	}
	t.Fatalf("stream of %d bytes gave more than %d events", len(data), len(data)+2)
	return "", ""
}

func FuzzWatchStream(f *testing.F) {
	for _, s := range []string{
		rcEvAdded + rcEvModified + rcEvDeleted,
		rcEvBookmark + "\n" + rcEvInitEnd + "\n",
		rcEvExpired + rcEvGoneOld,
		rcEvAdded + rcEvModified[:33],
		rcEvAdded + "<html>",
		`{"type":"ADDED","object":{"metadata":{"name":"a"}}} {"type":"ADDED"}`,
		`{"type":"ERROR","object":{"code":"x"}}`,
		`[1] "x" 12 null`,
		// Newline-framed (nextLine), and streams whose newlines are not frames.
		rcEvAdded + "\n" + rcEvModified + "\n" + rcEvExpired + "\n",
		rcEvAdded + " " + rcEvModified + "\n" + rcEvDeleted + "\n",
		"{\n\"type\": \"ADDED\",\n\"object\": {\"metadata\": {\"name\": \"a\"}}\n}\n",
		`{"type":"ADDED","object":{"metadata":{"name":"a"}}}}` + "\n",
		`{"type":"ADDED","object":{"metadata":{"name":"a"},"x":"}}"` + "\n" + `}}` + "\n",
		``,
		" \n\t",
	} {
		f.Add([]byte(s), uint8(0))
	}
	f.Fuzz(func(t *testing.T, data []byte, chunk uint8) {
		n := 1 + int(chunk%16)
		w, wc := rcWatchResult(t, data, len(data)+1)
		s, sc := rcWatchResult(t, data, n)
		rcSameOutcome(t, data, n, [2]string{w, wc}, [2]string{s, sc})
	})
}
