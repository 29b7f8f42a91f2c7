package rest

import (
	"context"
	"fmt"
	"io"
	"strings"
	"testing"

	"github.com/kcmlab/kcm/clock"
	"github.com/kcmlab/kcm/kube/api"
	"github.com/kcmlab/kcm/kube/api/decode"
)

// lenientCodec keeps an object's bytes without reading them: a codec that
// does not check its input is one whole object (decode.ChecksWholeObject).
type lenientCodec struct{}

func (lenientCodec) Decode(data []byte) (*api.RawObject, error) {
	o := &api.RawObject{}
	o.SetRaw(data)
	return o, nil
}

// lnDrain reads a whole stream (in reads of chunk bytes) with codec: the
// events' types and objects, how it ended, and how many bytes the scanner
// had examined once the first event was read.
func lnDrain(t *testing.T, body string, chunk int, codec decode.Codec[*api.RawObject]) (events []string, end string, scanned int) {
	t.Helper()
	src := newChunkedSource(context.Background(), clock.Real{}, io.NopCloser(&rcChunkReader{data: []byte(body), n: chunk}), 0, func() {})
	w := &Watcher[*api.RawObject]{src: src, codec: codec, path: "/api/v1/configmaps", cancel: func() {}}
	defer w.Close()
	for k := range len(body) + 1 {
		ev, err := w.Next()
		if k == 0 {
			scanned = src.fr.scanned
		}
		if err != nil {
			return events, rcErrClass(err), scanned
		}
		if ev.Err != nil {
			events = append(events, fmt.Sprintf("%s %d %d", ev.Type, ev.Err.Status.Code, ev.Size))
			continue
		}
		events = append(events, fmt.Sprintf("%s %s %d", ev.Type, ev.Object.Raw(), ev.Size))
	}
	t.Fatalf("more events than bytes in %q", body)
	return nil, "", 0
}

// TestWatchNewlineHint: events that end with the newline kube-apiserver
// writes after each are framed by it, without the scanner, when the codec
// checks whole objects; every other stream — back to back, pretty-printed,
// two events on one line, a malformed event, a codec that does not check —
// is framed by the scanner, with the same events and the same end as when
// it is read in small chunks (where the whole line is rarely buffered).
func TestWatchNewlineHint(t *testing.T) {
	evs := []string{rcEvAdded, rcEvModified, rcEvBookmark, rcEvDeleted}
	lines := strings.Join(evs, "\n") + "\n"
	pretty := "{\n \"type\": \"ADDED\",\n \"object\": {\"metadata\": {\"name\": \"a\"}}\n}\n"
	tests := []struct {
		name, body string
		codec      decode.Codec[*api.RawObject]
		hinted     bool // the first event is framed without the scanner when read whole
		events     int
		end        string
	}{
		{"one event a line", lines, decode.Raw(), true, 4, "eof"},
		{"one event a line, CRLF and blanks", strings.Join(evs, " \r\n") + "\t\r\n", decode.Raw(), true, 4, "eof"},
		{"one event a line, stripping codec", lines, decode.StrippingManagedFields(decode.Raw()), true, 4, "eof"},
		{"back to back", strings.Join(evs, ""), decode.Raw(), false, 4, "eof"},
		{"pretty-printed", pretty + pretty, decode.Raw(), false, 2, "eof"},
		{"two events on one line", rcEvAdded + " " + rcEvModified + "\n" + rcEvDeleted + "\n", decode.Raw(), false, 3, "eof"},
		{"two events on one line, lenient codec", rcEvAdded + rcEvModified + "\n", lenientCodec{}, false, 2, "eof"},
		{"one event a line, lenient codec", lines, lenientCodec{}, false, 4, "eof"},
		{"a malformed object", `{"type":"ADDED","object":{"metadata":{"name":"a"},}}` + "\n" + rcEvDeleted + "\n", decode.Raw(), false, 0, "decode"},
		{"a line cut short", rcEvAdded + "\n" + rcEvModified[:40], decode.Raw(), true, 1, "truncated"},
		{"an ERROR event", rcEvAdded + "\n" + rcEvExpired + "\n", decode.Raw(), true, 2, "eof"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			whole, wholeEnd, scanned := lnDrain(t, tc.body, len(tc.body)+1, tc.codec)
			split, splitEnd, _ := lnDrain(t, tc.body, 7, tc.codec)
			if fmt.Sprint(whole) != fmt.Sprint(split) || wholeEnd != splitEnd {
				t.Fatalf("read whole: %q, %s\nread in chunks of 7: %q, %s", whole, wholeEnd, split, splitEnd)
			}
			if len(whole) != tc.events || wholeEnd != tc.end {
				t.Fatalf("%d events, then %s; want %d, then %s: %q", len(whole), wholeEnd, tc.events, tc.end, whole)
			}
			if hinted := scanned == 0; hinted != tc.hinted {
				t.Fatalf("the scanner examined %d bytes for the first event: framed by its newline %v, want %v", scanned, hinted, tc.hinted)
			}
		})
	}
	if decode.ChecksWholeObject[*api.RawObject](lenientCodec{}) {
		t.Fatal("a codec of another package claims to check whole objects")
	}
	for name, c := range map[string]bool{
		"Raw": decode.ChecksWholeObject(decode.Raw()), "Typed": decode.ChecksWholeObject(decode.Typed[api.Pod]()),
		"Compact": decode.ChecksWholeObject(decode.Compact[api.Pod]()), "stripping Compact": decode.ChecksWholeObject(decode.StrippingManagedFields(decode.Compact[api.Pod]())),
	} {
		if !c {
			t.Errorf("%s does not check whole objects", name)
		}
	}
}
