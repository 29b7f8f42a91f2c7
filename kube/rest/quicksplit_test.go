package rest

import (
	"bytes"
	"testing"

	"github.com/kcmlab/kcm/kube/api"
	"github.com/kcmlab/kcm/kube/api/decode"
	"github.com/kcmlab/kcm/kube/internal/jsonx"
)

// TestDecodeEventAtAgrees: splitting an event by the span the frame
// scanner saw gives exactly what reading the envelope's members gives —
// the same type, the same object or the same kind of failure — for the
// apiserver's envelopes, which take the short way, and for every other
// shape (members after the object, a second type or object, keys reordered or
// spaced, ERROR events, a malformed object), which must not.
func TestDecodeEventAtAgrees(t *testing.T) {
	tests := []struct {
		name, frame string
		quick       bool // the short way applies
	}{
		{"added", rcEvAdded, true},
		{"modified", rcEvModified, true},
		{"bookmark", rcEvInitEnd, true},
		{"space before the closing brace", `{"type":"DELETED","object":{"metadata":{"name":"a"}}` + " \n}", true},
		{"a member after the object", `{"type":"ADDED","object":{"metadata":{"name":"a"}},"x":{}}`, false},
		{"a scalar member after the object", `{"type":"ADDED","object":{"metadata":{"name":"a"}},"x":1}`, false},
		{"a second type after the object", `{"type":"ADDED","object":{"metadata":{"name":"a"}},"type":"DELETED"}`, false},
		{"a second object", `{"type":"ADDED","object":{"metadata":{"name":"a"}},"object":{"metadata":{"name":"b"}}}`, false},
		{"object first", `{"object":{"metadata":{"name":"a"}},"type":"ADDED"}`, false},
		{"spaced keys", `{ "type" : "ADDED" , "object" : {"metadata":{"name":"a"}} }`, false},
		{"error event", rcEvExpired, false},
		{"unknown type", `{"type":"SURPRISE","object":{}}`, false},
		{"escaped type", `{"type":"ADD\u0045D","object":{"metadata":{"name":"a"}}}`, false},
		{"malformed object", `{"type":"ADDED","object":{"metadata":x}}`, true},
		{"object not an object", `{"type":"ADDED","object":[{}]}`, false},
	}
	codec := decode.Raw()
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			frame := []byte(tc.frame)
			var s jsonx.Scanner
			if end, err := s.Scan(frame); err != nil || end != len(frame) {
				t.Fatalf("scan: %d, %v", end, err)
			}
			start, end, ok := s.LastChild()
			_, objStart, quick := quickSplit(frame)
			if got := ok && quick && objStart == start && closesAt(frame, end); got != tc.quick {
				t.Fatalf("short way taken: %v, want %v", got, tc.quick)
			}
			want, wantErr := decodeEvent(bytes.Clone(frame), codec, "/p")
			var got WatchEvent[*api.RawObject]
			var gotErr error
			if ok {
				got, gotErr = decodeEventAt(bytes.Clone(frame), start, end, codec, "/p")
			} else {
				got, gotErr = decodeEvent(bytes.Clone(frame), codec, "/p")
			}
			if (gotErr == nil) != (wantErr == nil) {
				t.Fatalf("error %v, want %v", gotErr, wantErr)
			}
			if got.Type != want.Type || got.Size != want.Size || (got.Err == nil) != (want.Err == nil) {
				t.Fatalf("event %s/%d, want %s/%d", got.Type, got.Size, want.Type, want.Size)
			}
			if (got.Object == nil) != (want.Object == nil) {
				t.Fatalf("object %v, want %v", got.Object, want.Object)
			}
			if got.Object != nil && !bytes.Equal(got.Object.Raw(), want.Object.Raw()) {
				t.Fatalf("object %s, want %s", got.Object.Raw(), want.Object.Raw())
			}
		})
	}
}
